-- Calendars and address books shared with users or groups, read-only or
-- read-write (the Nextcloud clients' oc:share / oc:invite protocol). A
-- share ends with its collection, its user or its group (cascades), and a
-- sharee who leaves it deletes its own row.
CREATE TABLE dav_shares (
  collection_id INTEGER NOT NULL REFERENCES dav_collections (id) ON DELETE CASCADE,
  grantee_user INTEGER REFERENCES users (id) ON DELETE CASCADE,
  grantee_group INTEGER REFERENCES user_groups (id) ON DELETE CASCADE,
  read_only INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  CHECK ((grantee_user IS NULL) != (grantee_group IS NULL))
);
CREATE UNIQUE INDEX dav_shares_user ON dav_shares (collection_id, grantee_user)
  WHERE grantee_user IS NOT NULL;
CREATE UNIQUE INDEX dav_shares_group ON dav_shares (collection_id, grantee_group)
  WHERE grantee_group IS NOT NULL;
CREATE INDEX dav_shares_by_user ON dav_shares (grantee_user) WHERE grantee_user IS NOT NULL;
CREATE INDEX dav_shares_by_group ON dav_shares (grantee_group) WHERE grantee_group IS NOT NULL;
