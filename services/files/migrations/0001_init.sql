-- files: attachment metadata. The bytes live in S3 under object_key = <project_id>/<story_id>/<token>.
-- project and story ids are references into membership and boards: stored, never joined.

CREATE TABLE attachments (
  id           bigserial   PRIMARY KEY,
  project_id   bigint      NOT NULL CHECK (project_id > 0),
  story_id     bigint      NOT NULL CHECK (story_id > 0),
  file_name    text        NOT NULL CHECK (char_length(file_name) BETWEEN 1 AND 200),
  content_type text        NOT NULL CHECK (char_length(content_type) BETWEEN 3 AND 255),
  size_bytes   bigint      NOT NULL CHECK (size_bytes >= 0),
  -- Opaque storage identifier shown to clients (32 lowercase hex), never a credential.
  token        char(32)    NOT NULL UNIQUE CHECK (token ~ '^[0-9a-f]{32}$'),
  object_key   text        NOT NULL UNIQUE,
  created_by   bigint      NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
-- A story's attachments by id (list, get, delete with the story); its prefix also serves project-wide
-- deletes and storage sums.
CREATE INDEX attachments_story_idx ON attachments (project_id, story_id, id);
