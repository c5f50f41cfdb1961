-- Story pages need the number of stories per phase (totalItems, and where each phase starts in board order).
-- Counting a 100,000-story board on every unfiltered page cost more than the page itself, so each phase keeps
-- its count, maintained by statement-level triggers (one UPDATE per statement and phase, whatever the number of
-- rows: bulk updates and seeding stay cheap). Story writes that change phases already hold the board row lock,
-- so the phase row updates add no new waits. Filtered lists still count their matches.
ALTER TABLE phases ADD COLUMN story_count integer NOT NULL DEFAULT 0 CHECK (story_count >= 0);

UPDATE phases p SET story_count = c.n
FROM (SELECT phase_id, count(*) AS n FROM stories GROUP BY phase_id) c
WHERE p.id = c.phase_id;

CREATE FUNCTION phase_story_count_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE phases p SET story_count = p.story_count + d.n
  FROM (SELECT phase_id, count(*) AS n FROM new_rows GROUP BY phase_id) d
  WHERE p.id = d.phase_id;
  RETURN NULL;
END $$;

CREATE FUNCTION phase_story_count_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- When a whole board goes (ON DELETE CASCADE from boards), its phases may be gone already: nothing to update.
  UPDATE phases p SET story_count = p.story_count - d.n
  FROM (SELECT phase_id, count(*) AS n FROM old_rows GROUP BY phase_id) d
  WHERE p.id = d.phase_id;
  RETURN NULL;
END $$;

CREATE FUNCTION phase_story_count_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE phases p SET story_count = p.story_count + d.n
  FROM (
    SELECT phase_id, sum(delta) AS n FROM (
      SELECT n.phase_id, 1 AS delta FROM new_rows n JOIN old_rows o USING (project_id, id)
      WHERE n.phase_id <> o.phase_id
      UNION ALL
      SELECT o.phase_id, -1 FROM new_rows n JOIN old_rows o USING (project_id, id)
      WHERE n.phase_id <> o.phase_id
    ) moves GROUP BY phase_id
  ) d
  WHERE p.id = d.phase_id AND d.n <> 0;
  RETURN NULL;
END $$;

-- The functions resolve `phases` in this migration's schema, whatever the caller's search_path.
ALTER FUNCTION phase_story_count_insert() SET search_path FROM CURRENT;
ALTER FUNCTION phase_story_count_delete() SET search_path FROM CURRENT;
ALTER FUNCTION phase_story_count_update() SET search_path FROM CURRENT;

CREATE TRIGGER stories_count_insert AFTER INSERT ON stories
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION phase_story_count_insert();
CREATE TRIGGER stories_count_delete AFTER DELETE ON stories
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION phase_story_count_delete();
CREATE TRIGGER stories_count_update AFTER UPDATE ON stories
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT
  EXECUTE FUNCTION phase_story_count_update();
