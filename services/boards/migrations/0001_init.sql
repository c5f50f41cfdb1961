-- boards: phases, stories and everything hanging off a story, for the whole board contract.
-- Runs as the `boards` role with search_path = boards (pg-kit's runner), so names are unqualified.
--
-- Conventions
-- * project ids and user ids are references into membership: stored, never joined (no cross-schema FKs).
-- * Story ids are numbered per project from 1 (boards.last_story_id), never reused; every other id is global.
-- * Every child of a story carries project_id and references stories (project_id, id) ON DELETE CASCADE, so
--   deleting a story (or a board) removes its tasks, comments, tag links and history in one statement.
-- * Writes that number or order things inside a project (story ids, board positions, phase positions) take the
--   project's boards row lock first (UPDATE boards ... / SELECT ... FOR UPDATE), which serialises them per
--   project without table locks.
-- * Times are timestamptz; the API shows them as UTC YYYY-MM-DDTHH:MM:SS.

CREATE TABLE boards (
  project_id    bigint      PRIMARY KEY CHECK (project_id > 0),
  last_story_id integer     NOT NULL DEFAULT 0 CHECK (last_story_id >= 0),
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE phases (
  id          bigserial   PRIMARY KEY,
  project_id  bigint      NOT NULL REFERENCES boards (project_id) ON DELETE CASCADE,
  name        text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description text        NOT NULL DEFAULT '' CHECK (char_length(description) <= 100000),
  position    integer     NOT NULL CHECK (position >= 0),
  wip_limit   integer     NULL CHECK (wip_limit > 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  -- Board order (ListPhases, status by position). Deferrable, so a reorder can shift positions in one
  -- transaction (SET CONSTRAINTS phases_position_key DEFERRED) without a temporary gap dance.
  CONSTRAINT phases_position_key UNIQUE (project_id, position) DEFERRABLE INITIALLY IMMEDIATE,
  -- Target of composite foreign keys: a story's (or milestone's) phase must belong to the same project.
  CONSTRAINT phases_project_id_key UNIQUE (project_id, id)
);

CREATE TABLE stories (
  project_id     bigint      NOT NULL REFERENCES boards (project_id) ON DELETE CASCADE,
  id             integer     NOT NULL CHECK (id > 0),
  text           text        NOT NULL CHECK (char_length(text) BETWEEN 1 AND 2000),
  details        text        NOT NULL DEFAULT '' CHECK (char_length(details) <= 100000),
  size           text        NOT NULL DEFAULT '' CHECK (char_length(size) <= 50),
  priority       text        NOT NULL DEFAULT '' CHECK (char_length(priority) <= 50),
  color          text        NOT NULL DEFAULT 'grey'
                 CHECK (color IN ('grey', 'blue', 'red', 'green', 'orange', 'yellow', 'purple', 'teal')),
  status         text        NOT NULL CHECK (status IN ('planned', 'started', 'ready', 'blocked', 'finished')),
  blocked_reason text        NULL CHECK (char_length(blocked_reason) <= 1000),
  phase_id       bigint      NOT NULL,
  -- Order within the phase; new and moved stories go to the bottom (max + 1 under the board row lock).
  board_position bigint      NOT NULL,
  creator_id     bigint      NOT NULL,
  owner_id       bigint      NULL,
  deadline       timestamptz NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  -- RESTRICT: a phase that still holds stories cannot be deleted (the API answers 409).
  CONSTRAINT stories_phase_fkey FOREIGN KEY (project_id, phase_id) REFERENCES phases (project_id, id),
  -- Board order paging (phase by phase, then position) and bottom-of-phase lookups (max(board_position)).
  -- Deferrable so PUT P/phases/{id}/stories can renumber a whole phase in one transaction.
  CONSTRAINT stories_board_order_key UNIQUE (project_id, phase_id, board_position) DEFERRABLE INITIALLY IMMEDIATE
);
-- /me/stories: the caller's stories across projects, in project then board order.
CREATE INDEX stories_owner_idx ON stories (owner_id, project_id) WHERE owner_id IS NOT NULL;
-- where=deadline:... comparisons inside a project.
CREATE INDEX stories_deadline_idx ON stories (project_id, deadline) WHERE deadline IS NOT NULL;

-- One row per stay in a phase (milestones enrichment, metrics). The open one has end_time NULL.
CREATE TABLE story_milestones (
  id         bigserial   PRIMARY KEY,
  project_id bigint      NOT NULL,
  story_id   integer     NOT NULL,
  phase_id   bigint      NOT NULL,
  start_time timestamptz NOT NULL,
  end_time   timestamptz NULL CHECK (end_time >= start_time),
  FOREIGN KEY (project_id, story_id) REFERENCES stories (project_id, id) ON DELETE CASCADE,
  -- Deleting an (empty) phase drops the history of stays in it along with the phase's name.
  FOREIGN KEY (project_id, phase_id) REFERENCES phases (project_id, id) ON DELETE CASCADE
);
CREATE INDEX story_milestones_story_idx ON story_milestones (project_id, story_id, id);
-- Project throughput: stories that entered Archive within the window.
CREATE INDEX story_milestones_phase_time_idx ON story_milestones (project_id, phase_id, start_time);
-- At most one open milestone per story.
CREATE UNIQUE INDEX story_milestones_open_key ON story_milestones (project_id, story_id) WHERE end_time IS NULL;

-- One row per status period (steps enrichment, work/blocked time). The open one has end_time NULL.
CREATE TABLE story_steps (
  id         bigserial   PRIMARY KEY,
  project_id bigint      NOT NULL,
  story_id   integer     NOT NULL,
  type       text        NOT NULL CHECK (type IN ('backlog', 'working', 'ready', 'blocked', 'archive')),
  start_time timestamptz NOT NULL,
  end_time   timestamptz NULL CHECK (end_time >= start_time),
  FOREIGN KEY (project_id, story_id) REFERENCES stories (project_id, id) ON DELETE CASCADE
);
CREATE INDEX story_steps_story_idx ON story_steps (project_id, story_id, id);
CREATE UNIQUE INDEX story_steps_open_key ON story_steps (project_id, story_id) WHERE end_time IS NULL;

-- Tags: names unique per project ignoring case (409 on a clash); looked up by id or by name.
CREATE TABLE tags (
  id         bigserial   PRIMARY KEY,
  project_id bigint      NOT NULL REFERENCES boards (project_id) ON DELETE CASCADE,
  name       text        NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  created_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT tags_project_id_key UNIQUE (project_id, id)
);
CREATE UNIQUE INDEX tags_name_key ON tags (project_id, lower(name));

CREATE TABLE story_tags (
  project_id bigint      NOT NULL,
  story_id   integer     NOT NULL,
  tag_id     bigint      NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, story_id, tag_id),
  FOREIGN KEY (project_id, story_id) REFERENCES stories (project_id, id) ON DELETE CASCADE,
  FOREIGN KEY (project_id, tag_id) REFERENCES tags (project_id, id) ON DELETE CASCADE
);
-- where=tag:..., P/tags/{tag}/stories and the tag's stories enrichment.
CREATE INDEX story_tags_tag_idx ON story_tags (project_id, tag_id, story_id);

CREATE TABLE tasks (
  id          bigserial   PRIMARY KEY,
  project_id  bigint      NOT NULL,
  story_id    integer     NOT NULL,
  text        text        NOT NULL CHECK (char_length(text) BETWEEN 1 AND 2000),
  status      text        NOT NULL DEFAULT 'incomplete' CHECK (status IN ('incomplete', 'complete')),
  position    integer     NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz NULL,
  finished_by bigint      NULL,
  FOREIGN KEY (project_id, story_id) REFERENCES stories (project_id, id) ON DELETE CASCADE,
  CONSTRAINT tasks_position_key UNIQUE (project_id, story_id, position) DEFERRABLE INITIALLY IMMEDIATE,
  CHECK ((status = 'complete') = (finished_at IS NOT NULL))
);

CREATE TABLE comments (
  id         bigserial   PRIMARY KEY,
  project_id bigint      NOT NULL,
  story_id   integer     NOT NULL,
  author_id  bigint      NOT NULL,
  text       text        NOT NULL CHECK (char_length(text) BETWEEN 1 AND 100000),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  FOREIGN KEY (project_id, story_id) REFERENCES stories (project_id, id) ON DELETE CASCADE
);
-- Comments are listed by createTime, then id.
CREATE INDEX comments_story_idx ON comments (project_id, story_id, created_at, id);
