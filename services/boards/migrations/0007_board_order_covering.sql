-- Deep story pages (page 900 of a 100,000-story board) skip thousands of stories of one phase with OFFSET. With
-- the board-order key alone, every skipped story was a heap fetch. With `id` in the key's index, the page first
-- picks its ids by an index-only scan and fetches only its own rows. The constraint is rebuilt instead of adding a
-- second, almost identical index that every story write would have to maintain as well.
ALTER TABLE stories
  DROP CONSTRAINT stories_board_order_key,
  ADD CONSTRAINT stories_board_order_key UNIQUE (project_id, phase_id, board_position) INCLUDE (id)
    DEFERRABLE INITIALLY IMMEDIATE;

-- An index-only scan skips the heap only for pages the visibility map marks all-visible, and every story write
-- clears a page's mark until the next vacuum. The default thresholds wait for a fifth of the table to change
-- (20,000 writes on a 100,000-story board); vacuuming after 2 % keeps deep pages cheap at a small, steady cost.
ALTER TABLE stories SET (autovacuum_vacuum_scale_factor = 0.02, autovacuum_vacuum_insert_scale_factor = 0.02);
