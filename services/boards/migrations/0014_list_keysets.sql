-- Cursor paging of the other lists (README "Sync: cursors and updatedSince"): each walks its items in id order after
-- the cursor's id. A story's tasks (indexed by position), its comments (by time) and a user's stories across projects
-- (/me/stories, by project) had no index in that order: a page read the whole list and sorted it, or walked the
-- primary key through everyone else's items. With these a page reads its own rows, however deep the walk.
-- Expand-only: indexes, which older releases ignore.
--
-- The other keyset lists have theirs already: a phase's stories stories_phase_id_idx (0013), a project's tags
-- tags_project_id_key, a tag's stories story_tags_tag_idx and a story's tags the story_tags primary key (0001).
--
-- Plain CREATE INDEX, as in the earlier migrations: the runner applies each file in a transaction, where CONCURRENTLY
-- cannot run. A build blocks its table's writes (not its reads) until the commit: about 0.6 s for 900,000 tasks and
-- 0.2 s each for 300,000 comments or stories on a 2-core machine. As in 0008, rather fail (the migration Job retries)
-- than queue every writer behind a build that waits for a long transaction.
-- The three tables at once, first (pg-kit's migration-locks.ts): built one after another, a request writing a later
-- one and then an earlier one (a story and then its tasks) could deadlock with the migration.
-- flowboard:lock-first SHARE: tasks, comments, stories
SET LOCAL lock_timeout = '5s';

CREATE INDEX IF NOT EXISTS tasks_story_id_idx ON tasks (project_id, story_id, id);
CREATE INDEX IF NOT EXISTS comments_story_id_idx ON comments (project_id, story_id, id);
-- /me/stories walks (id, project_id): story ids are numbered per project, so an id alone does not say where a walk
-- stands. The page's `project_id = ANY(...)` is checked on the row (the given projects are usually all the owner's).
CREATE INDEX IF NOT EXISTS stories_owner_id_idx ON stories (owner_id, id, project_id) WHERE owner_id IS NOT NULL;
