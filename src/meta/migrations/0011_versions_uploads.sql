-- Content over time (docs/versions-and-uploads.md).
--
-- File versions: an overwrite keeps the previous manifest as a version
-- (one more reference on it, counted by content/refs.cc like a file's).
-- A version is charged against the quota for the bytes of its chunks that
-- the content which replaced it does not share; the drive keeps the sum.
CREATE TABLE file_versions (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  manifest_id INTEGER NOT NULL REFERENCES manifests (id),
  size INTEGER NOT NULL,
  charged INTEGER NOT NULL CHECK (charged >= 0),
  mtime INTEGER NOT NULL,          -- the content's modification time, ms
  created_at INTEGER NOT NULL,     -- when it was replaced, ms
  author INTEGER REFERENCES users (id)
);
CREATE INDEX file_versions_by_node ON file_versions (node_id, created_at);
CREATE INDEX file_versions_by_manifest ON file_versions (manifest_id);
ALTER TABLE drives ADD COLUMN versions_bytes INTEGER NOT NULL DEFAULT 0;

-- Upload sessions (resumable uploads: tus, delta, chunked clients). The
-- bytes received so far are chunks the session references: every row of
-- upload_session_chunks and the tail counts one in chunks.refs, so GC
-- never sweeps them however long the upload pauses. No ON DELETE CASCADE
-- from users or drives: a session must be cancelled (its references
-- released) before its drive can go.
CREATE TABLE upload_sessions (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users (id),
  drive_id INTEGER NOT NULL REFERENCES drives (id),
  parent_public_id TEXT NOT NULL,
  name TEXT NOT NULL,
  conflict INTEGER NOT NULL,
  if_match TEXT,
  length INTEGER,                  -- declared; NULL: deferred
  offset INTEGER NOT NULL DEFAULT 0,
  mtime INTEGER,
  metadata TEXT NOT NULL DEFAULT '',
  kind INTEGER NOT NULL,           -- 0 file, 1 tus partial, 2 delta
  hasher BLOB NOT NULL,            -- BLAKE3 state of the bytes received
  tail_hash BLOB REFERENCES chunks (hash),
  tail_size INTEGER NOT NULL DEFAULT 0,
  reservation_id INTEGER NOT NULL DEFAULT 0,
  checksum TEXT NOT NULL DEFAULT '',
  plan BLOB,                       -- delta: the declared chunks, 36 bytes each (hash, size LE)
  received_bytes INTEGER NOT NULL DEFAULT 0,  -- body bytes that arrived over the wire
  result_node TEXT,                -- completed: the file it made (kept until expiry, so a
                                   -- client whose last response was lost learns the outcome)
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX upload_sessions_by_expiry ON upload_sessions (expires_at);
CREATE INDEX upload_sessions_by_drive ON upload_sessions (drive_id);

CREATE TABLE upload_session_chunks (
  session_id INTEGER NOT NULL REFERENCES upload_sessions (id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  chunk_hash BLOB NOT NULL REFERENCES chunks (hash),
  offset INTEGER NOT NULL,
  size INTEGER NOT NULL,
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;
CREATE INDEX upload_session_chunks_by_chunk ON upload_session_chunks (chunk_hash);
