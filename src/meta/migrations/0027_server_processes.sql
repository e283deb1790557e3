-- Every `nubo serve` process on this store, with a heartbeat and the time
-- its oldest in-flight upload pinned its first chunk against GC
-- (content/gc.h). GC in any process (or `nubo gc`) leaves alone chunk files
-- newer than the oldest pin of a live process, so an upload that takes
-- longer than the grace period is safe from the other nodes' GC as well as
-- from its own.
CREATE TABLE server_processes (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  pid INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  oldest_pin_at INTEGER  -- NULL: nothing in flight
) WITHOUT ROWID;
