-- Scoped, expiring API keys (README "Scoped API keys"). Every column has a default that means "as before": a key
-- made before this migration stays read-write on every project and group, never expires, and has no name, so old
-- clients and the previous release (which knows none of these columns) are untouched. Expand-only, so rolling
-- membership back leaves a schema the previous release runs on.
--
-- A key with limits (read-only, projects, groups or an expiry) must not work at all under a previous release, which
-- would let it do all its user can: such a key is stored with `enabled` false, which is all that release reads, and
-- its own state in `enabled_with_limits`. Rolled back, membership refuses these keys (401) rather than widen them.
SET LOCAL lock_timeout = '5s';

ALTER TABLE api_keys
  ADD COLUMN name         text NOT NULL DEFAULT '' CHECK (char_length(name) <= 100),
  ADD COLUMN expires_at   timestamptz,
  ADD COLUMN read_only    boolean NOT NULL DEFAULT false,
  -- NULL = every project the user reaches; else exactly these (never empty: that key could do nothing).
  ADD COLUMN project_ids  bigint[] CHECK (project_ids IS NULL OR cardinality(project_ids) BETWEEN 1 AND 100),
  -- NULL = every group of operations; else these (the gateway's authz/scopes.ts names them).
  ADD COLUMN scope_groups text[] CHECK (scope_groups IS NULL OR cardinality(scope_groups) BETWEEN 1 AND 10),
  ADD COLUMN last_used_at timestamptz,
  -- NULL for a key without limits (`enabled` is its state); else its state, `enabled` being false.
  ADD COLUMN enabled_with_limits boolean;
