-- Full-text search over stories (README "Search"): one row per story holding what a search reads, kept current by
-- triggers in the transaction of every write, so a search right after a write returns finds it, whichever release
-- of boards made the write (the triggers live in the database, not in the service).
--
-- Each source is a part of its own, so a write recomputes only its part: a comment recomputes the story's comments,
-- not its details. A move changes none (the stories trigger fires only when text or details change). Weights rank a
-- title match above a tag, a tag above details and tasks, and those above comments.
--
-- Each part indexes at most the first 200,000 characters of its source: a tsvector holds at most 1 MB, and many
-- long comments on one story must never make a comment write fail.
--
-- The five tables whose triggers it creates are locked at once, first (pg-kit's migration-locks.ts): one after
-- another, a request holding a later one (a tag written, then its story's tags) could deadlock with it. Requests
-- that write them wait for the backfill below, so it reads sources nobody changes meanwhile.
-- flowboard:lock-first SHARE ROW EXCLUSIVE: stories, tasks, comments, story_tags, tags
SET LOCAL lock_timeout = '5s';

CREATE FUNCTION story_search_vector(source text, weight "char") RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN setweight(to_tsvector('english'::regconfig, left(coalesce(source, ''), 200000)), weight);

CREATE TABLE story_search (
  project_id    bigint   NOT NULL,
  story_id      bigint   NOT NULL,
  story_part    tsvector NOT NULL DEFAULT ''::tsvector, -- text (A), details (C)
  tags_part     tsvector NOT NULL DEFAULT ''::tsvector, -- tag names (B)
  tasks_part    tsvector NOT NULL DEFAULT ''::tsvector, -- task texts (C)
  comments_part tsvector NOT NULL DEFAULT ''::tsvector, -- comment texts (D)
  document      tsvector GENERATED ALWAYS AS (story_part || tags_part || tasks_part || comments_part) STORED,
  -- The project as a one-element array: GIN indexes arrays natively, so (projects, document) is one GIN index
  -- that finds a project's matches without the btree_gin extension (which a service's role cannot create).
  projects      bigint[] GENERATED ALWAYS AS (ARRAY[project_id]) STORED,
  PRIMARY KEY (project_id, story_id),
  FOREIGN KEY (project_id, story_id) REFERENCES stories (project_id, id) ON DELETE CASCADE
);
CREATE INDEX story_search_document_idx ON story_search USING gin (projects, document);

CREATE FUNCTION story_search_story_part(story_text text, details text) RETURNS tsvector
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN story_search_vector(story_text, 'A') || story_search_vector(details, 'C');

CREATE FUNCTION story_search_tags_part(project bigint, story bigint) RETURNS tsvector
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN (SELECT story_search_vector(string_agg(t.name, ' ' ORDER BY t.id), 'B')
          FROM story_tags st JOIN tags t ON t.project_id = st.project_id AND t.id = st.tag_id
          WHERE st.project_id = project AND st.story_id = story);

CREATE FUNCTION story_search_tasks_part(project bigint, story bigint) RETURNS tsvector
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN (SELECT story_search_vector(string_agg(k.text, ' ' ORDER BY k.position), 'C')
          FROM tasks k WHERE k.project_id = project AND k.story_id = story);

CREATE FUNCTION story_search_comments_part(project bigint, story bigint) RETURNS tsvector
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN (SELECT story_search_vector(string_agg(c.text, ' ' ORDER BY c.created_at, c.id), 'D')
          FROM comments c WHERE c.project_id = project AND c.story_id = story);

-- Stories: a statement-level insert (a bulk create is one statement); a row-level update that fires only when the
-- text or the details change, so moves, status and owner changes cost nothing here.
CREATE FUNCTION story_search_stories_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO story_search (project_id, story_id, story_part)
  SELECT n.project_id, n.id, story_search_story_part(n.text, n.details) FROM new_rows n;
  RETURN NULL;
END $$;

CREATE FUNCTION story_search_story_edited() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE story_search SET story_part = story_search_story_part(NEW.text, NEW.details)
  WHERE project_id = NEW.project_id AND story_id = NEW.id;
  RETURN NULL;
END $$;

-- Tags, tasks and comments: statement-level, each affected story recomputed once per statement, whatever the number
-- of rows (a story's deletion cascades to its comments in one statement). TG_ARGV[0] names the part the table feeds;
-- `changed` is the statement's new rows (insert, update) or old rows (delete). Rows of a story being deleted find
-- no story_search row left to update.
CREATE FUNCTION story_search_part_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  part text := TG_ARGV[0];
BEGIN
  UPDATE story_search ss SET
    tags_part = CASE WHEN part = 'tags' THEN story_search_tags_part(ss.project_id, ss.story_id) ELSE ss.tags_part END,
    tasks_part = CASE WHEN part = 'tasks' THEN story_search_tasks_part(ss.project_id, ss.story_id) ELSE ss.tasks_part END,
    comments_part = CASE WHEN part = 'comments' THEN story_search_comments_part(ss.project_id, ss.story_id)
                         ELSE ss.comments_part END
  FROM (SELECT DISTINCT project_id, story_id FROM changed) c
  WHERE ss.project_id = c.project_id AND ss.story_id = c.story_id;
  RETURN NULL;
END $$;

-- A tag's rename reaches every story it is on.
CREATE FUNCTION story_search_tags_renamed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE story_search ss SET tags_part = story_search_tags_part(ss.project_id, ss.story_id)
  FROM (SELECT DISTINCT st.project_id, st.story_id
        FROM changed t JOIN story_tags st ON st.project_id = t.project_id AND st.tag_id = t.id) c
  WHERE ss.project_id = c.project_id AND ss.story_id = c.story_id;
  RETURN NULL;
END $$;

-- The trigger functions resolve the tables in this migration's schema, whatever the caller's search_path. (The SQL
-- functions above need no such setting: a standard SQL body binds its names when it is created.)
ALTER FUNCTION story_search_stories_inserted() SET search_path FROM CURRENT;
ALTER FUNCTION story_search_story_edited() SET search_path FROM CURRENT;
ALTER FUNCTION story_search_part_changed() SET search_path FROM CURRENT;
ALTER FUNCTION story_search_tags_renamed() SET search_path FROM CURRENT;

CREATE TRIGGER stories_search_insert AFTER INSERT ON stories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION story_search_stories_inserted();
CREATE TRIGGER stories_search_update AFTER UPDATE OF text, details ON stories FOR EACH ROW
  WHEN (OLD.text IS DISTINCT FROM NEW.text OR OLD.details IS DISTINCT FROM NEW.details)
  EXECUTE FUNCTION story_search_story_edited();

CREATE TRIGGER tasks_search_insert AFTER INSERT ON tasks
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('tasks');
CREATE TRIGGER tasks_search_update AFTER UPDATE ON tasks
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('tasks');
CREATE TRIGGER tasks_search_delete AFTER DELETE ON tasks
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('tasks');

CREATE TRIGGER comments_search_insert AFTER INSERT ON comments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('comments');
CREATE TRIGGER comments_search_update AFTER UPDATE ON comments
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('comments');
CREATE TRIGGER comments_search_delete AFTER DELETE ON comments
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('comments');

CREATE TRIGGER story_tags_search_insert AFTER INSERT ON story_tags
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('tags');
CREATE TRIGGER story_tags_search_delete AFTER DELETE ON story_tags
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_part_changed('tags');
CREATE TRIGGER tags_search_rename AFTER UPDATE ON tags
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION story_search_tags_renamed();

-- The stories already there. One statement per part; on the 100,000-story benchmark board this takes seconds, once.
INSERT INTO story_search (project_id, story_id, story_part)
SELECT project_id, id, story_search_story_part(text, details) FROM stories;
UPDATE story_search ss SET tags_part = story_search_tags_part(ss.project_id, ss.story_id)
WHERE EXISTS (SELECT 1 FROM story_tags st WHERE st.project_id = ss.project_id AND st.story_id = ss.story_id);
UPDATE story_search ss SET tasks_part = story_search_tasks_part(ss.project_id, ss.story_id)
WHERE EXISTS (SELECT 1 FROM tasks k WHERE k.project_id = ss.project_id AND k.story_id = ss.story_id);
UPDATE story_search ss SET comments_part = story_search_comments_part(ss.project_id, ss.story_id)
WHERE EXISTS (SELECT 1 FROM comments c WHERE c.project_id = ss.project_id AND c.story_id = ss.story_id);
