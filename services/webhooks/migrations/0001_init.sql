-- webhooks: subscriptions, the events to deliver (stored once) and their deliveries with every attempt.
-- project ids are references into membership: stored, never joined.

CREATE TABLE webhooks (
  id                bigserial   PRIMARY KEY,
  project_id        bigint      NOT NULL CHECK (project_id > 0),
  url               text        NOT NULL CHECK (char_length(url) BETWEEN 1 AND 2000),
  -- Empty = every type.
  event_types       text[]      NOT NULL DEFAULT '{}',
  active            boolean     NOT NULL,
  description       text        NOT NULL DEFAULT '' CHECK (char_length(description) <= 500),
  -- Why the service deactivated it (retries ran out); '' otherwise.
  disabled_reason   text        NOT NULL DEFAULT '',
  -- The signing secret (whsec_...) sealed with AES-256-GCM under SECRET_ENCRYPTION_KEY, bound to the row's id:
  -- a database dump alone cannot forge signatures. secret_key_id names the key (a digest prefix), so a wrong
  -- key is reported as such and keys can be rotated later.
  secret_sealed     bytea       NOT NULL,
  secret_key_id     text        NOT NULL,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
-- A project's webhooks by id (list, and ingestion's fan-out).
CREATE INDEX webhooks_project_idx ON webhooks (project_id, id);

CREATE TABLE events (
  -- The envelope's id: the webhook-id of every delivery, and what makes ingestion idempotent.
  id          uuid        PRIMARY KEY,
  project_id  bigint      NOT NULL,
  type        text        NOT NULL,
  subject     text        NOT NULL,
  occurred_at timestamptz NOT NULL,
  -- The exact JSON body POSTed (rendered once at ingestion; text, not jsonb, so every retry sends the same bytes).
  body        text        NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
-- Retention sweeps old events; a deleted project's events go with it.
CREATE INDEX events_received_idx ON events (received_at);
CREATE INDEX events_project_idx ON events (project_id);

CREATE TABLE deliveries (
  -- Ingestion inserts a project's deliveries in event order (one Kafka partition per project, one event at a
  -- time), so within a webhook the id is the event order; a redelivery takes a new, later id.
  id               bigserial   PRIMARY KEY,
  webhook_id       bigint      NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id         uuid        NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  -- Copied from the event for the ordering rule's index.
  subject          text        NOT NULL,
  status           text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  -- Behind an earlier pending delivery of the same webhook and subject (per-subject order): not schedulable until
  -- that one finishes and promotes the next. Exactly the oldest pending delivery of a subject is not waiting.
  waiting          boolean     NOT NULL DEFAULT false,
  -- Attempts started (a claim counts one, even if its dispatcher died before the answer).
  attempts         integer     NOT NULL DEFAULT 0,
  -- Pending: when it is due. While an attempt runs, the lease's end: a dispatcher that dies leaves it due again then.
  next_attempt_at  timestamptz,
  -- The running attempt's claim; a result is applied only by the claim that holds it.
  lease_token      uuid,
  first_attempt_at timestamptz,
  -- Why a failed delivery ended (gave up, cancelled by a deactivation); '' otherwise.
  failure          text        NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL DEFAULT now(),
  finished_at      timestamptz,
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL))
);
-- Due deliveries (the dispatcher's claim): only the heads of their subjects, so a claim costs the same however long
-- the queues behind them are.
CREATE INDEX deliveries_due_idx ON deliveries (next_attempt_at) WHERE status = 'pending' AND NOT waiting;
-- Per-subject order: does this webhook and subject have a delivery pending, and which is the oldest?
CREATE INDEX deliveries_subject_order_idx ON deliveries (webhook_id, subject, id) WHERE status = 'pending';
-- A webhook's delivery log, newest first (and the cancel of its pending deliveries).
CREATE INDEX deliveries_webhook_idx ON deliveries (webhook_id, id);
-- Cascade from events (retention).
CREATE INDEX deliveries_event_idx ON deliveries (event_id);

CREATE TABLE delivery_attempts (
  delivery_id          bigint      NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt              integer     NOT NULL CHECK (attempt > 0),
  status               text        NOT NULL CHECK (status IN ('succeeded', 'failed')),
  response_status_code integer     NOT NULL DEFAULT 0,
  latency_ms           integer     NOT NULL DEFAULT 0,
  error                text        NOT NULL DEFAULT '' CHECK (char_length(error) <= 1000),
  attempted_at         timestamptz NOT NULL,
  PRIMARY KEY (delivery_id, attempt)
);
