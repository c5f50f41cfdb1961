-- Accounts: one per user, holding the projects the user owns (a project's account is its owner's). Limits are
-- overrides set by an operator; NULL means "the configured default" (DEFAULT_COLLABORATOR_LIMIT,
-- DEFAULT_STORAGE_LIMIT_BYTES), so changing a default reaches every account without an override.
CREATE TABLE accounts (
  user_id             bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  collaborator_limit  bigint CHECK (collaborator_limit >= 0),
  storage_limit_bytes bigint CHECK (storage_limit_bytes >= 0),
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);

-- Existing users get their account now; new ones at sign-up (and lazily, should one ever be missing).
INSERT INTO accounts (user_id) SELECT id FROM users ON CONFLICT DO NOTHING;
