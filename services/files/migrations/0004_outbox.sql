-- Transactional outbox (DDL documented in @flowboard/pg-kit's outbox.ts): `flowboard.resource-changed.v1`
-- events (attachment created, renamed, deleted) are committed with the change they describe and published to
-- Kafka by the OutboxRelay, in `seq` order (the order they were written in).
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
  last_error   text,
  seq          bigint GENERATED ALWAYS AS IDENTITY
);
-- The relay's claim query: unpublished rows that are due.
CREATE INDEX outbox_pending ON outbox (available_at, created_at) WHERE published_at IS NULL;
