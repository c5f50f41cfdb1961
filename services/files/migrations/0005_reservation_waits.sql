-- files: an upload waiting for room that other uploads in flight hold (docs/design.md, "Attachments": storage
-- quota). It records what it asked for, so that the account's uploads can tell when every one of them waits
-- (then the newest holder gives its room back) and serve the oldest first. NULL while it streams.
ALTER TABLE upload_reservations ADD COLUMN waiting_bytes bigint CHECK (waiting_bytes > 0);
