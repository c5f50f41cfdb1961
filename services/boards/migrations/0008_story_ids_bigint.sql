-- Story ids become bigint, like the int64 that carries them over gRPC: the gateway accepts ids of up to 15
-- digits, and one above 2^31 − 1 failed here ("out of range for type integer", a 500) instead of naming no story.
--
-- Each ALTER rewrites its table, rebuilds its indexes and checks the foreign keys to stories again (indexes and
-- keys follow the columns; the phase-count triggers of 0006 name no column type). Story reads and writes wait
-- until the commit (ACCESS EXCLUSIVE on stories and its five child tables; phases, tags and boards stay free):
-- about 3 s for 200,000 stories with 1.6 million child rows on a 2-core machine. Old pods keep working on the new
-- columns (their int4 parameters compare with bigint; pg-kit parses int8 as a number), except that a statement a
-- connection prepared by name before this commit fails with "cached plan must not change result type" until
-- pg-pool drops that connection after a failed pool query: a short burst of errors while old pods drain.
--
-- boards.last_story_id, the per-project counter that hands out every story id, stays integer: 2^31 − 1 stories
-- on one board is out of reach (the benchmarks use 100,000), and at the limit its UPDATE fails instead of
-- wrapping. Altering it would rewrite `boards`, whose rows every story create locks, for nothing.

-- Rather fail (the migration Job retries) than queue every story query behind an ALTER waiting for a long
-- transaction.
SET LOCAL lock_timeout = '5s';

ALTER TABLE stories ALTER COLUMN id TYPE bigint;
ALTER TABLE story_milestones ALTER COLUMN story_id TYPE bigint;
ALTER TABLE story_steps ALTER COLUMN story_id TYPE bigint;
ALTER TABLE story_tags ALTER COLUMN story_id TYPE bigint;
ALTER TABLE tasks ALTER COLUMN story_id TYPE bigint;
ALTER TABLE comments ALTER COLUMN story_id TYPE bigint;
