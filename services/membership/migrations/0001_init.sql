-- Users, API keys, projects, members, roles and invites. Runs with search_path = the service's schema.
-- Every query path has an index; each index says which query it serves.

CREATE TABLE users (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  user_name  text NOT NULL CHECK (user_name ~ '^[A-Za-z0-9._-]{1,200}$'),
  email      text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  bio        text NOT NULL DEFAULT '',
  enabled    boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Unique ignoring case (sign-up, PUT /me, user references by name); the names are mapped to fields in code.
CREATE UNIQUE INDEX users_user_name_lower_key ON users (lower(user_name));
CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email));

-- Only sha256(key) is stored: keys are 128 random bits, so a fast hash is enough and lookups stay one probe.
CREATE TABLE api_keys (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  key_hash   text NOT NULL CHECK (key_hash ~ '^[0-9a-f]{64}$'),
  hint       text NOT NULL,
  enabled    boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);
-- AuthenticateApiKey: every API request without a cached key.
CREATE UNIQUE INDEX api_keys_key_hash_key ON api_keys (key_hash);
-- A user's keys (/me/apikeys) and the cascade from users.
CREATE INDEX api_keys_user_idx ON api_keys (user_id);

CREATE TABLE projects (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  description text NOT NULL DEFAULT '',
  details     text NOT NULL DEFAULT '',
  owner_id    bigint NOT NULL REFERENCES users (id),
  created_at  timestamptz NOT NULL DEFAULT now()
);
-- Projects a user owns (project lists, collaborator counts).
CREATE INDEX projects_owner_idx ON projects (owner_id);

-- Direct members. The owner is one too, and joining a role adds the user here as well. At first, leaving or
-- deleting the role kept them a member; now losing the last role of the project removes the row
-- (docs/compat.md §5.7, removeRolelessMembers). The access check still accepts any of the three.
CREATE TABLE project_members (
  project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, user_id)
);
-- A user's projects (GET /projects, /me/stories).
CREATE INDEX project_members_user_idx ON project_members (user_id, project_id);

CREATE TABLE roles (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 200),
  access     text NOT NULL DEFAULT 'none' CHECK (access IN ('none', 'read', 'readwrite', 'admin')),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- A project's roles, in id order (GET P/roles, GetProject).
CREATE INDEX roles_project_idx ON roles (project_id, id);

CREATE TABLE role_members (
  role_id    bigint NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role_id, user_id)
);
-- GetProjectAccess: the caller's roles (then filtered by project through roles' primary key).
CREATE INDEX role_members_user_idx ON role_members (user_id, role_id);

CREATE TABLE invites (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  project_id bigint NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  role_id    bigint NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  email      text NOT NULL CHECK (char_length(email) BETWEEN 3 AND 254),
  token      text NOT NULL CHECK (token ~ '^[0-9a-f]{32}$'),
  sender_id  bigint NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  CHECK (expires_at > created_at)
);
-- Accepting an invite by its token.
CREATE UNIQUE INDEX invites_token_key ON invites (token);
-- Pending invites of an address in a project (duplicate check); the prefix also serves a project's invite list.
-- "Pending" means not expired; it cannot be a partial index because now() is not immutable.
CREATE INDEX invites_project_email_idx ON invites (project_id, lower(email), expires_at);
-- The cascade from roles.
CREATE INDEX invites_role_idx ON invites (role_id);
