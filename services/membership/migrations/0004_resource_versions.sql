-- A version per project and role, kept by the database: the ETag of conditional requests (If-Match) and what
-- their compare-and-set compares. New rows start at 1; an UPDATE that changes something the API shows of the
-- resource itself raises it by exactly 1. An UPDATE that changes nothing shown (a PUT that repeats the
-- current values: the UPDATEs here COALESCE absent fields to the current ones) leaves it alone.
--
-- Watched: projects' name, description, details and owner_id; roles' name and access. Neither table has a
-- bookkeeping column to leave out (ids and created_at never change). What the API shows with them but keeps
-- elsewhere does not count: a role's members (role_members, written through P/roles/{id}/members, invites and
-- P/members), and the user records behind a project's owner and a role's members (PUT /me).
--
-- Adding a column with a constant default rewrites nothing (PostgreSQL 11+): existing rows read as version 1.
-- Each ALTER still takes its table's lock for a moment: rather fail (the migration Job retries) than queue
-- every query of the table behind an ALTER waiting for a long transaction.
SET LOCAL lock_timeout = '5s';

ALTER TABLE projects ADD COLUMN version bigint NOT NULL DEFAULT 1;
ALTER TABLE roles ADD COLUMN version bigint NOT NULL DEFAULT 1;

-- The one function both version triggers run; each trigger's WHEN decides whether a shown column changed.
CREATE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER projects_version BEFORE UPDATE ON projects FOR EACH ROW
  WHEN ((OLD.name, OLD.description, OLD.details, OLD.owner_id)
        IS DISTINCT FROM (NEW.name, NEW.description, NEW.details, NEW.owner_id))
  EXECUTE FUNCTION bump_version();

CREATE TRIGGER roles_version BEFORE UPDATE ON roles FOR EACH ROW
  WHEN ((OLD.name, OLD.access) IS DISTINCT FROM (NEW.name, NEW.access))
  EXECUTE FUNCTION bump_version();
