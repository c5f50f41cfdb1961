-- Sync (README "Sync: cursors and updatedSince"): which stories changed, and which were deleted, since a client's
-- last sync, exactly, under concurrent writes. Expand-only: a column, a table, indexes and triggers; older releases
-- keep working and record changes and deletions too, since the triggers live in the database.
--
-- Why transaction ids and not times: updated_at = now() is the writing transaction's START time, so a transaction
-- that commits after a client's sync, with an older updated_at, would be missed forever. Instead each story row
-- holds the id of the transaction that last changed it (changed_xid, pg_current_xact_id()), each tombstone the id
-- of the deleting one, and a client's sync token is the snapshot its read ran in (pg_current_snapshot()): the
-- next sync lists what that snapshot did not see (NOT pg_visible_in_snapshot), whenever it committed.
SET LOCAL lock_timeout = '5s';

-- NULL for the stories last changed before this migration: every token is taken after it, and saw them.
ALTER TABLE stories ADD COLUMN changed_xid xid8 NULL;

CREATE FUNCTION story_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.changed_xid := pg_current_xact_id();
  RETURN NEW;
END $$;

CREATE TRIGGER stories_sync_insert BEFORE INSERT ON stories FOR EACH ROW EXECUTE FUNCTION story_changed();
-- The columns the story's version counts (0009): a change a client can see. A reorder within a phase (board
-- position only) is not one, as it changes no ETag.
CREATE TRIGGER stories_sync_update BEFORE UPDATE ON stories FOR EACH ROW
  WHEN ((OLD.text, OLD.details, OLD.size, OLD.priority, OLD.color, OLD.status, OLD.blocked_reason,
         OLD.phase_id, OLD.owner_id, OLD.deadline)
        IS DISTINCT FROM (NEW.text, NEW.details, NEW.size, NEW.priority, NEW.color, NEW.status,
         NEW.blocked_reason, NEW.phase_id, NEW.owner_id, NEW.deadline))
  EXECUTE FUNCTION story_changed();

-- updatedSince: a project's stories changed after a snapshot's xmin (the rest of the test is per row).
CREATE INDEX stories_changed_idx ON stories (project_id, changed_xid) WHERE changed_xid IS NOT NULL;
-- Cursor paging of a phase's stories in id order (P/phases/{id}/stories?cursor=); a project's stories page on the
-- primary key, a tag's on story_tags_tag_idx.
CREATE INDEX stories_phase_id_idx ON stories (project_id, phase_id, id);

-- One row per deleted story, kept for the retention (30 days, pruned by boards). No foreign key: it outlives the
-- story, and the board (a project deletion cascades to its stories, which records their tombstones too).
CREATE TABLE story_tombstones (
  project_id  bigint      NOT NULL,
  story_id    bigint      NOT NULL,
  deleted_xid xid8        NOT NULL DEFAULT pg_current_xact_id(),
  deleted_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, story_id)
);
CREATE INDEX story_tombstones_changed_idx ON story_tombstones (project_id, deleted_xid);
CREATE INDEX story_tombstones_age_idx ON story_tombstones (deleted_at);

-- The newest deletion whose tombstone was pruned: a token that may not have seen it can no longer be served
-- (410). One row; the pruning transaction raises it along with its deletes, so a read sees both or neither.
CREATE TABLE story_sync_horizon (
  single     boolean PRIMARY KEY DEFAULT true CHECK (single),
  pruned_xid xid8    NOT NULL DEFAULT '0'
);
INSERT INTO story_sync_horizon DEFAULT VALUES;

-- Every delete path records its tombstones: a story delete, a board's deletion (ON DELETE CASCADE), any release.
CREATE FUNCTION story_tombstones_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO story_tombstones (project_id, story_id)
  SELECT project_id, id FROM old_rows
  ON CONFLICT (project_id, story_id) DO UPDATE
    SET deleted_xid = pg_current_xact_id(), deleted_at = now();
  RETURN NULL;
END $$;
ALTER FUNCTION story_tombstones_record() SET search_path FROM CURRENT;

CREATE TRIGGER stories_tombstones AFTER DELETE ON stories
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION story_tombstones_record();
