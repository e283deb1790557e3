-- Failed sign-ins per throttle key ("ip:ADDR", "user:NAME@ADDR"), shared
-- by every process that serves this store (auth/lockout_sync.h): a lockout
-- earned on one node holds on the others, and survives a restart. Only
-- keys with recent failures have a row; a success deletes the row unless
-- it is locked.
CREATE TABLE sign_in_failures (
  key TEXT PRIMARY KEY,
  failures INTEGER NOT NULL,
  locked_until INTEGER NOT NULL,  -- ms since the epoch; 0: not locked
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sign_in_failures_by_update ON sign_in_failures (updated_at);
