-- Transactional outbox (DDL documented in @flowboard/pg-kit's outbox.ts): events committed with the state
-- change they describe, published to Kafka by the OutboxRelay.
CREATE TABLE outbox (
  id           uuid PRIMARY KEY,
  topic        text NOT NULL,
  key          text NOT NULL,
  payload      jsonb NOT NULL,
  headers      jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now(),
  available_at timestamptz NOT NULL DEFAULT now(),
  published_at timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text
);
-- The relay's claim query: unpublished rows that are due, oldest first.
CREATE INDEX outbox_pending ON outbox (available_at, created_at) WHERE published_at IS NULL;
