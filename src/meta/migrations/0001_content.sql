-- Content-addressed storage (ARCHITECTURE.md §4-§5).
-- Reference counts: chunks.refs = distinct manifests listing the chunk;
-- manifests.refs = referencing rows (pins now; nodes, versions and upload
-- sessions later). Both change only in the transaction that changes the
-- referencing rows (content/refs.cc).

CREATE TABLE chunks (
  hash BLOB PRIMARY KEY,          -- BLAKE3, 32 bytes
  size INTEGER NOT NULL,
  refs INTEGER NOT NULL CHECK (refs >= 0),
  orphaned_at INTEGER,            -- ms since epoch when refs reached 0
  backend INTEGER NOT NULL DEFAULT 0,  -- which ChunkStore holds it (0: local disk; S3 later)
  key_id INTEGER                  -- encryption-at-rest key, NULL: plaintext
) WITHOUT ROWID;
CREATE INDEX chunks_orphans ON chunks (orphaned_at) WHERE refs = 0;

CREATE TABLE manifests (
  id INTEGER PRIMARY KEY,
  hash BLOB NOT NULL UNIQUE,      -- BLAKE3 of the whole content
  size INTEGER NOT NULL,
  refs INTEGER NOT NULL CHECK (refs >= 0),
  created_at INTEGER NOT NULL
);

CREATE TABLE manifest_chunks (
  manifest_id INTEGER NOT NULL REFERENCES manifests (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  chunk_hash BLOB NOT NULL REFERENCES chunks (hash),
  offset INTEGER NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (manifest_id, seq)
) WITHOUT ROWID;
CREATE INDEX manifest_chunks_by_chunk ON manifest_chunks (chunk_hash);

CREATE TABLE pins (
  name TEXT PRIMARY KEY,
  manifest_id INTEGER NOT NULL REFERENCES manifests (id),
  created_at INTEGER NOT NULL
);
CREATE INDEX pins_by_manifest ON pins (manifest_id);
