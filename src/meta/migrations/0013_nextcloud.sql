-- The Nextcloud client surface (docs/nextcloud.md).

-- File ids are never reused (clients take an id they knew for the same
-- file moved elsewhere): the highest id ever deleted is remembered, and a
-- new node takes an id above it and above every live one.
CREATE TABLE node_id_floor (v INTEGER NOT NULL);
INSERT INTO node_id_floor (v) SELECT ifnull(max(id), 0) FROM nodes;
CREATE TRIGGER nodes_id_floor AFTER DELETE ON nodes
  WHEN OLD.id > (SELECT v FROM node_id_floor)
BEGIN
  UPDATE node_id_floor SET v = OLD.id;
END;

-- Login Flow v2: a client starts a flow, the user grants it in a browser,
-- the client polls once for the app password. The password is kept only
-- sealed with a key derived from the poll token, which only the client
-- knows (its hash is the lookup key), and only until that poll.
CREATE TABLE login_flows (
  id INTEGER PRIMARY KEY,
  poll_hash BLOB NOT NULL UNIQUE,
  login_token TEXT NOT NULL UNIQUE,
  client_name TEXT NOT NULL DEFAULT '',
  user_id INTEGER REFERENCES users (id) ON DELETE CASCADE,  -- set when granted
  login_name TEXT NOT NULL DEFAULT '',
  sealed BLOB,                                               -- set when granted
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX login_flows_by_expiry ON login_flows (expires_at);

-- Chunked upload v2: a client's upload folder (its own name for it) and
-- the chunks it received, each a complete upload session of its own, so
-- assembling joins their chunk lists without copying a byte.
CREATE TABLE nc_uploads (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  destination TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  UNIQUE (user_id, name)
);
CREATE INDEX nc_uploads_by_expiry ON nc_uploads (expires_at);
CREATE TABLE nc_upload_parts (
  upload_id INTEGER NOT NULL REFERENCES nc_uploads (id) ON DELETE CASCADE,
  number INTEGER NOT NULL,
  session_id TEXT NOT NULL,  -- upload_sessions.public_id
  size INTEGER NOT NULL,
  -- The part before it, when this part's hash state continued that
  -- part's (parts sent in order): the last part's state is then the
  -- whole file's hash, and assembling reads no byte.
  seed_session TEXT NOT NULL DEFAULT '',
  PRIMARY KEY (upload_id, number)
) WITHOUT ROWID;
