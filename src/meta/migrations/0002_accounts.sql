-- Accounts (ARCHITECTURE.md §5). Usernames compare case-insensitively
-- through name_key (the lower-cased name), which carries the uniqueness.

CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,        -- opaque UUIDv7 for APIs
  username TEXT NOT NULL,
  name_key TEXT NOT NULL UNIQUE,         -- lower(username)
  email TEXT UNIQUE,                     -- lower-cased; NULL: none
  display_name TEXT NOT NULL,
  password_hash TEXT NOT NULL,           -- Argon2id encoded string ("" : no password login)
  role TEXT NOT NULL CHECK (role IN ('admin', 'user')),
  active INTEGER NOT NULL DEFAULT 1,
  quota_bytes INTEGER,                   -- NULL: unlimited
  credentials_version INTEGER NOT NULL DEFAULT 0,  -- bumped to invalidate cached credentials
  created_at INTEGER NOT NULL,
  last_login_at INTEGER
);

-- App passwords are high-entropy random secrets: stored as BLAKE3 of the
-- secret (a slow hash adds nothing against guessing 160 random bits), so a
-- Basic-auth request finds its row by hash in one index lookup.
CREATE TABLE app_passwords (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  label TEXT NOT NULL,
  secret_hash BLOB NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  last_used_at INTEGER
);
CREATE INDEX app_passwords_by_user ON app_passwords (user_id);

-- Browser/API sessions (refresh-token families); used by the session API.
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  family_id TEXT NOT NULL,
  refresh_hash BLOB NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  revoked_at INTEGER,
  user_agent TEXT,
  ip TEXT
);
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_family ON sessions (family_id);

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
