-- The per-phase story count (0006) was kept on UPDATE by a statement-level trigger with transition tables, which
-- fires, and captures every updated row, on every story UPDATE: a text edit, a status change, a tag's bookkeeping.
-- Only a move changes a count. PostgreSQL allows no column list on a trigger with transition tables, so the update
-- side becomes a row-level trigger whose WHEN (evaluated without calling any function) lets only a story whose
-- phase changed through: edits cost nothing, a move costs one UPDATE of its two phases. A statement moving many
-- stories now makes one such UPDATE a story; every story row it writes fires row triggers already (version,
-- sync), so this adds in proportion. Inserts and deletes keep their statement-level triggers (seeding, board
-- deletion).
SET LOCAL lock_timeout = '5s';

DROP TRIGGER stories_count_update ON stories;
DROP FUNCTION phase_story_count_update();

CREATE FUNCTION phase_story_count_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- One statement for both phases; the lock order is the index's, as in any other statement on phases.
  UPDATE phases SET story_count = story_count + CASE WHEN id = NEW.phase_id THEN 1 ELSE -1 END
  WHERE id IN (OLD.phase_id, NEW.phase_id);
  RETURN NULL;
END $$;
ALTER FUNCTION phase_story_count_move() SET search_path FROM CURRENT;

CREATE TRIGGER stories_count_move AFTER UPDATE OF phase_id ON stories FOR EACH ROW
  WHEN (OLD.phase_id IS DISTINCT FROM NEW.phase_id)
  EXECUTE FUNCTION phase_story_count_move();
