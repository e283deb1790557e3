-- Drives and nodes (ARCHITECTURE.md §5). Files and folders share one table
-- so a listing is one keyset query. Paths are never stored: a node has a
-- parent and a name, and paths are resolved by walking.
--
-- Rollups kept on folders, updated along the ancestor chain of each change
-- (O(depth) rows per write, never siblings):
--   size     live file bytes below (files: their own size); the root's
--            size is the drive's usage, which quotas check
--   tree_seq the drive's change counter when anything below last changed;
--            a folder's ETag derives from it.
-- Trash: trashing marks the whole subtree with trash_root = id of the node
-- the user trashed (trashed_at set on that node only), so every live-only
-- query filters on trash_root IS NULL without walking ancestors.

CREATE TABLE drives (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (kind IN ('personal', 'shared')),
  name TEXT NOT NULL,
  owner_id INTEGER REFERENCES users (id) ON DELETE CASCADE,
  root_id INTEGER,                       -- the root folder node
  change_seq INTEGER NOT NULL DEFAULT 0, -- bumped by every change in the drive
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX drives_personal ON drives (owner_id) WHERE kind = 'personal';

CREATE TABLE nodes (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  drive_id INTEGER NOT NULL REFERENCES drives (id) ON DELETE CASCADE,
  parent_id INTEGER REFERENCES nodes (id),  -- NULL: the drive root
  name TEXT NOT NULL,                       -- NFC
  name_key TEXT NOT NULL,                   -- case-folded NFC: sibling uniqueness and sorting
  kind INTEGER NOT NULL CHECK (kind IN (0, 1)),  -- PERSISTED: 0 folder, 1 file (folders sort first)
  manifest_id INTEGER REFERENCES manifests (id),
  size INTEGER NOT NULL DEFAULT 0,
  mime TEXT NOT NULL,
  mtime INTEGER NOT NULL,
  ctime INTEGER NOT NULL,
  tree_seq INTEGER NOT NULL DEFAULT 0,
  trashed_at INTEGER,                       -- set on the node the user trashed
  trash_root INTEGER,                       -- id of that node, on its whole subtree
  trash_parent INTEGER,                     -- where it was, for restore
  created_by INTEGER,
  updated_by INTEGER,
  CHECK ((kind = 1) = (manifest_id IS NOT NULL))
);
CREATE UNIQUE INDEX nodes_sibling_names ON nodes (parent_id, name_key) WHERE trash_root IS NULL;
CREATE INDEX nodes_by_parent ON nodes (parent_id, id);
CREATE INDEX nodes_list_name ON nodes (parent_id, kind, name_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_list_size ON nodes (parent_id, kind, size, name_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_list_mtime ON nodes (parent_id, kind, mtime, name_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_list_mime ON nodes (parent_id, kind, mime, name_key, id) WHERE trash_root IS NULL;
CREATE INDEX nodes_by_manifest ON nodes (manifest_id) WHERE manifest_id IS NOT NULL;
CREATE INDEX nodes_trash ON nodes (drive_id, trashed_at, id) WHERE trashed_at IS NOT NULL;
CREATE INDEX nodes_by_drive_name ON nodes (drive_id, name_key, id) WHERE trash_root IS NULL;

CREATE TABLE favorites (
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  seq INTEGER NOT NULL,                     -- insertion order for keyset paging
  PRIMARY KEY (user_id, node_id)
) WITHOUT ROWID;
CREATE INDEX favorites_by_seq ON favorites (user_id, seq);
CREATE INDEX favorites_by_node ON favorites (node_id);

CREATE TABLE recent (
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  at INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  PRIMARY KEY (user_id, node_id)
) WITHOUT ROWID;
CREATE INDEX recent_by_seq ON recent (user_id, seq);
CREATE INDEX recent_by_node ON recent (node_id);

-- Every existing account gets its personal drive (new ones get it in the
-- transaction that creates them).
INSERT INTO drives (public_id, kind, name, owner_id, created_at)
  SELECT lower(hex(randomblob(16))), 'personal', 'Personal', id, created_at FROM users;
INSERT INTO nodes (public_id, drive_id, parent_id, name, name_key, kind, mime, mtime, ctime)
  SELECT lower(hex(randomblob(16))), id, NULL, '', '', 0, 'inode/directory', created_at, created_at
  FROM drives;
UPDATE drives SET root_id = (SELECT n.id FROM nodes n WHERE n.drive_id = drives.id AND n.parent_id IS NULL);
