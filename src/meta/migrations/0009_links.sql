-- Public links (docs/sharing.md): a bearer token that opens one node and
-- what lies below it to anyone who holds it.
--
-- Only the token's BLAKE3 hash is stored (the token is shown once, when
-- the link is made), so a copy of the database opens nothing; the lookup
-- by hash compares no token bytes. role is PERSISTED: 1 view (read, list,
-- download, ZIP), 2 edit (+ create, change, delete inside), 4 drop
-- (upload only: no listing, names never overwrite). downloads counts
-- content and ZIP downloads; max_downloads bounds them.
CREATE TABLE links (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  token_hash BLOB NOT NULL UNIQUE,
  token_hint TEXT NOT NULL,            -- the token's last 4 characters, to tell links apart
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  role INTEGER NOT NULL CHECK (role IN (1, 2, 4)),
  password_hash TEXT,                  -- Argon2id; NULL: no password
  expires_at INTEGER,
  max_downloads INTEGER,
  downloads INTEGER NOT NULL DEFAULT 0,
  label TEXT NOT NULL DEFAULT '',
  created_by INTEGER REFERENCES users (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
);
CREATE INDEX links_by_node ON links (node_id);
CREATE INDEX links_by_creator ON links (created_by);
