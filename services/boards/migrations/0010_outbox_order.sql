-- The order the outbox relay publishes in (@flowboard/pg-kit's outbox.ts): the order the rows were written in.
-- created_at cannot say it: it is the transaction's start, the same for every event one transaction writes (an
-- update publishing story.updated, then story.moved, then story.blocked), and SQL leaves the order of ties open.
--
-- A nullable column with a sequence default rewrites nothing: rows written before have no seq (the relay takes
-- them first), every new row gets the next value. Rather fail (the migration Job retries) than queue the
-- outbox's writers behind the ALTER waiting for a long transaction.
SET LOCAL lock_timeout = '5s';

CREATE SEQUENCE outbox_seq;
ALTER TABLE outbox ADD COLUMN seq bigint;
ALTER TABLE outbox ALTER COLUMN seq SET DEFAULT nextval('outbox_seq');
ALTER SEQUENCE outbox_seq OWNED BY outbox.seq;
