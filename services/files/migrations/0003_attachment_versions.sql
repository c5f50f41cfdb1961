-- A version per attachment (its metadata), kept by the database: the ETag of conditional requests (If-Match)
-- and what the compare-and-set of RenameAttachment and DeleteAttachment compares. New rows start at 1; an
-- UPDATE that changes something the API shows of the attachment raises it by exactly 1; renaming it to the
-- name it has leaves it alone.
--
-- Watched: file_name, content_type, size_bytes and token, the attachment's shown columns (only file_name is
-- ever rewritten today; ids never change). Left out, on purpose:
-- * account_id: quota bookkeeping (whose storage the bytes count against). Moving a project's files to the
--   account of a new owner would rewrite it on every row without changing anything an attachment shows.
-- * object_key, created_by, created_at: never shown, never changed.
--
-- Adding a column with a constant default rewrites nothing (PostgreSQL 11+): existing rows read as version 1.
-- Each ALTER still takes its table's lock for a moment: rather fail (the migration Job retries) than queue
-- every query of the table behind an ALTER waiting for a long transaction.
SET LOCAL lock_timeout = '5s';

ALTER TABLE attachments ADD COLUMN version bigint NOT NULL DEFAULT 1;

CREATE FUNCTION bump_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.version := OLD.version + 1;
  RETURN NEW;
END $$;

CREATE TRIGGER attachments_version BEFORE UPDATE ON attachments FOR EACH ROW
  WHEN ((OLD.file_name, OLD.content_type, OLD.size_bytes, OLD.token)
        IS DISTINCT FROM (NEW.file_name, NEW.content_type, NEW.size_bytes, NEW.token))
  EXECUTE FUNCTION bump_version();
