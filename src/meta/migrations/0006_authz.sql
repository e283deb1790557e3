-- Principals and permissions (ARCHITECTURE.md §4.7-4.8).
--
-- App passwords carry a scope: a bit set of auth::Scope (PERSISTED:
-- 1 files, 2 groupware, 4 account, 8 admin). An app password never holds
-- account or admin; existing ones get files + groupware, what they could
-- reach before (files and WebDAV sync).
ALTER TABLE app_passwords ADD COLUMN scopes INTEGER NOT NULL DEFAULT 3;

-- A refresh token rotated moments ago may come back once more from a
-- second tab that refreshed at the same time: rotated_at (set only by a
-- rotation, not by logout) lets that reuse through within a grace window
-- instead of revoking the whole sign-in.
ALTER TABLE sessions ADD COLUMN rotated_at INTEGER;

-- Quotas bound the disk: an upload in progress holds a reservation for
-- the bytes it declared (or has received so far, growing), so concurrent
-- uploads cannot together store more than the quota before any of them
-- commits. A reservation that is not refreshed expires (its process died).
CREATE TABLE quota_reservations (
  id INTEGER PRIMARY KEY,
  drive_id INTEGER NOT NULL REFERENCES drives (id) ON DELETE CASCADE,
  bytes INTEGER NOT NULL,
  expires_at INTEGER NOT NULL          -- ms since epoch
);
CREATE INDEX quota_reservations_by_drive ON quota_reservations (drive_id, expires_at);

-- WebDAV dead property bytes count against the drive owner's quota: the
-- drive keeps their sum, changed in the statements that change the
-- properties (fsck recomputes it).
ALTER TABLE drives ADD COLUMN props_bytes INTEGER NOT NULL DEFAULT 0;
UPDATE drives SET props_bytes = (
  SELECT coalesce(sum(length(CAST(p.ns AS BLOB)) + length(CAST(p.name AS BLOB)) + length(CAST(p.value AS BLOB))), 0)
  FROM dead_props p JOIN nodes n ON n.id = p.node_id WHERE n.drive_id = drives.id);

-- Names are stored as the client sent them (invariant 12); the comment on
-- nodes.name in 0003 ("NFC") described the old rule. Lookups and sibling
-- uniqueness keep using name_key (NFC + case fold).
