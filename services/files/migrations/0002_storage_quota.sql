-- files: storage quota per account, upload reservations, and tombstones for deleted projects and stories.

-- The account (the project owner's, from membership) whose quota an attachment counts against. Rows stored
-- before quotas existed have none and count against nothing.
ALTER TABLE attachments ADD COLUMN account_id bigint CHECK (account_id > 0);

-- One row per account that ever uploaded. used = committed attachments; reserved = uploads in flight. The
-- limit is enforced by a conditional UPDATE on this row (used + reserved + n <= limit): concurrent uploads
-- serialise on the row lock, so the sum can never pass the limit.
CREATE TABLE account_storage (
  account_id     bigint PRIMARY KEY CHECK (account_id > 0),
  used_bytes     bigint NOT NULL DEFAULT 0 CHECK (used_bytes >= 0),
  reserved_bytes bigint NOT NULL DEFAULT 0 CHECK (reserved_bytes >= 0)
);

-- An upload in flight holds one reservation, renewed while it streams. One the upload's process no longer
-- renews (it crashed) expires and the sweeper gives its bytes back.
CREATE TABLE upload_reservations (
  id         bigserial   PRIMARY KEY,
  account_id bigint      NOT NULL REFERENCES account_storage (account_id),
  bytes      bigint      NOT NULL CHECK (bytes >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX upload_reservations_expiry_idx ON upload_reservations (expires_at);

-- Deleted projects and stories (from membership's and boards' events): an upload still in flight when its
-- project or story goes away must not commit a row afterwards.
CREATE TABLE deleted_projects (
  project_id bigint      PRIMARY KEY,
  deleted_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE deleted_stories (
  project_id bigint      NOT NULL,
  story_id   bigint      NOT NULL,
  deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, story_id)
);
