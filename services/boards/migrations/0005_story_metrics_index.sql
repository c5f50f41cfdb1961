-- Project metrics (BatchGetProjectMetrics): the stories now in Archive that entered it within the window are
-- the open `archive` steps by start time. Partial, so it holds one row per archived story and nothing else.
CREATE INDEX story_steps_finished_idx ON story_steps (project_id, start_time)
  WHERE end_time IS NULL AND type = 'archive';
