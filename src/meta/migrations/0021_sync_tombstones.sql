-- RFC 6578 sync-collection on the files trees. A node's tree_seq is the
-- drive change number of its last change (files too, from here on: a write
-- stamps the file it changes), so "what changed in folder F since token T"
-- is "F's live children with tree_seq > T". What left F — trashed, deleted,
-- renamed or moved away — leaves a tombstone: the name it had there, at a
-- change number of its own. Tombstones older than the retention are pruned
-- and the drive's sync_floor remembers the newest pruned one, so a token
-- from before it is refused (valid-sync-token) instead of missing removals.
CREATE TABLE node_tombstones (
  parent_id INTEGER NOT NULL,  -- the folder the name left (no reference: it may go later)
  seq INTEGER NOT NULL,        -- the drive's change number of the removal
  name TEXT NOT NULL,
  folder INTEGER NOT NULL,     -- 1: the name was a folder's (its href ends in "/")
  drive_id INTEGER NOT NULL REFERENCES drives (id) ON DELETE CASCADE,
  at INTEGER NOT NULL,         -- unix ms, for pruning
  PRIMARY KEY (parent_id, seq)
) WITHOUT ROWID;
CREATE INDEX node_tombstones_by_age ON node_tombstones (at);
ALTER TABLE drives ADD COLUMN sync_floor INTEGER NOT NULL DEFAULT 0;
