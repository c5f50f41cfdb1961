-- A version per phase, story, task, comment and tag, kept by the database: the ETag of conditional requests
-- (If-Match) and what their compare-and-set compares. New rows start at 1; an UPDATE that changes something
-- the API shows of the resource itself raises it by exactly 1, whichever code path or statement made the
-- change. An UPDATE that changes nothing shown (a no-op PUT, a bookkeeping column) leaves it alone, so no
-- client's If-Match fails for a change it could never have seen.
--
-- Each trigger's WHEN lists the columns of the resource's representation that a write can change (ids,
-- creators, authors and creation times never change). Left out, on purpose:
-- * updated_at everywhere: bookkeeping, never shown; writes set it even when nothing else changes.
-- * phases.story_count: a counter the 0006 triggers keep for story pages, not part of a phase; it moves with
--   every story created, moved or deleted, and would otherwise change the phase's version each time.
-- * stories.board_position: the story's place within its phase. The story does not show it, and a reorder
--   of the phase (PUT P/phases/{id}/stories) renumbers all its stories; a move to another phase changes
--   phase_id anyway.
-- * tasks.position: likewise the task's place in its story, renumbered by a task reorder.
-- Shown values that live elsewhere do not count either: a story's phase name (a phase rename), the users
-- behind creator, owner, finisher and author ids (resolved by the gateway).
--
-- Adding a column with a constant default rewrites nothing (PostgreSQL 11+): existing rows read as version 1.
-- Each ALTER still takes its table's lock for a moment; as in 0008, rather fail (the migration Job retries)
-- than queue every story query behind an ALTER waiting for a long transaction.
SET LOCAL lock_timeout = '5s';

ALTER TABLE phases ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE stories ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE tasks ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE comments ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE tags ADD COLUMN version bigint NOT NULL DEFAULT 1;

-- The one function every version trigger runs; each trigger's WHEN decides whether a shown column changed, so
-- the other updates (e.g. the story_count of every phase a statement touched) call no function at all.
CREATE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER phases_version BEFORE UPDATE ON phases FOR EACH ROW
  WHEN ((OLD.name, OLD.description, OLD.position, OLD.wip_limit)
        IS DISTINCT FROM (NEW.name, NEW.description, NEW.position, NEW.wip_limit))
  EXECUTE FUNCTION bump_version();

CREATE TRIGGER stories_version BEFORE UPDATE ON stories FOR EACH ROW
  WHEN ((OLD.text, OLD.details, OLD.size, OLD.priority, OLD.color, OLD.status, OLD.blocked_reason,
         OLD.phase_id, OLD.owner_id, OLD.deadline)
        IS DISTINCT FROM (NEW.text, NEW.details, NEW.size, NEW.priority, NEW.color, NEW.status,
         NEW.blocked_reason, NEW.phase_id, NEW.owner_id, NEW.deadline))
  EXECUTE FUNCTION bump_version();

CREATE TRIGGER tasks_version BEFORE UPDATE ON tasks FOR EACH ROW
  WHEN ((OLD.text, OLD.status, OLD.finished_at, OLD.finished_by)
        IS DISTINCT FROM (NEW.text, NEW.status, NEW.finished_at, NEW.finished_by))
  EXECUTE FUNCTION bump_version();

CREATE TRIGGER comments_version BEFORE UPDATE ON comments FOR EACH ROW
  WHEN (OLD.text IS DISTINCT FROM NEW.text)
  EXECUTE FUNCTION bump_version();

CREATE TRIGGER tags_version BEFORE UPDATE ON tags FOR EACH ROW
  WHEN (OLD.name IS DISTINCT FROM NEW.name)
  EXECUTE FUNCTION bump_version();
