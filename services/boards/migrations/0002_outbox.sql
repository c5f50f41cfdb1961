-- Transactional outbox (DDL documented in @flowboard/pg-kit's outbox.ts): `boards.story-deleted.v1` is committed
-- with the story delete it describes and published to Kafka by the OutboxRelay.
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

-- Projects whose board went with `membership.project-deleted.v1`. Project ids are never reused, so a board is
-- never created again for them: neither by a late or retried CreateBoard nor by the lazy creation on first
-- access, which could otherwise race with the delete and leave an orphan board.
CREATE TABLE deleted_projects (
  project_id bigint      PRIMARY KEY CHECK (project_id > 0),
  event_id   uuid        NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now()
);
