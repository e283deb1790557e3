-- WebDAV state (RFC 4918): dead properties per node, and locks.
--
-- Locks are on URLs, not on nodes (§6: a lock on a collection with
-- Depth infinity covers members created later, and a LOCK on an unmapped
-- URL creates the resource), so they are keyed by the drive and the
-- case-folded path ("/" + name keys). Persisted, so locks survive restarts
-- and hold across servers sharing one database.

CREATE TABLE dead_props (
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  ns TEXT NOT NULL,
  name TEXT NOT NULL,
  value TEXT NOT NULL,                -- the property's content as XML
  PRIMARY KEY (node_id, ns, name)
) WITHOUT ROWID;

CREATE TABLE dav_locks (
  token TEXT PRIMARY KEY,             -- "urn:uuid:..."
  drive_id INTEGER NOT NULL REFERENCES drives (id) ON DELETE CASCADE,
  path TEXT NOT NULL,                 -- case-folded path of the locked URL
  depth_infinity INTEGER NOT NULL,    -- 0: Depth 0; 1: Depth infinity
  exclusive INTEGER NOT NULL,         -- 0: shared
  owner_xml TEXT NOT NULL,            -- the client's <owner> content
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  timeout_s INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,        -- ms since epoch
  root_href TEXT NOT NULL             -- the URL as locked, for lockdiscovery
);
CREATE INDEX dav_locks_by_path ON dav_locks (drive_id, path);
