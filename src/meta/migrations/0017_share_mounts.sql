-- Where a received share appears in its recipient's own WebDAV tree
-- (docs/sharing.md, "Received shares in your own tree"). Without a row a
-- share appears in the share folder under the shared node's name; the
-- recipient renaming or moving it writes a row here and never touches the
-- owner's tree. parent_id is a folder of the recipient's personal drive;
-- NULL (or a folder that is no longer live there): the share folder.
CREATE TABLE share_mounts (
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES nodes (id) ON DELETE SET NULL,
  name TEXT NOT NULL,
  PRIMARY KEY (user_id, node_id)
) WITHOUT ROWID;
CREATE INDEX share_mounts_by_parent ON share_mounts (parent_id);
