-- Who made each change of a story's history (README "Scoped API keys": which agent did this): the user and the API
-- key, with the key's name as it was then, on the milestone and the step the change began. Nullable columns without
-- defaults rewrite nothing; rows from before are left without an author. Expand-only: the previous release writes
-- rows without them.
-- Both tables at once, before either is altered (pg-kit's migration-locks.ts): the previous release's move runs a
-- prepared statement whose cached plan locks story_steps before story_milestones, and altering one and then the other
-- closed a deadlock with it, which PostgreSQL broke by failing the move (a 500 in the version-skew test).
-- flowboard:lock-first ACCESS EXCLUSIVE: story_milestones, story_steps
SET LOCAL lock_timeout = '5s';

ALTER TABLE story_milestones
  ADD COLUMN author_id    bigint,
  ADD COLUMN api_key_id   bigint,
  ADD COLUMN api_key_name text;

ALTER TABLE story_steps
  ADD COLUMN author_id    bigint,
  ADD COLUMN api_key_id   bigint,
  ADD COLUMN api_key_name text;
