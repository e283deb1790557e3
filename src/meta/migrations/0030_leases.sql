-- Installation-wide chores (the maintenance sweep: trash purge, expired
-- uploads and login flows, version thinning, search index merging, GC)
-- run in one serving process at a time and once per interval, whichever
-- process that is: a lease per chore. A process takes a free lease when
-- the chore was last done an interval ago (its own setting), renews it
-- while it works (a process that dies loses it when held_until passes)
-- and gives it back with the time it was done.
CREATE TABLE leases (
  name TEXT PRIMARY KEY,
  holder TEXT,                     -- a server_processes id; NULL: free
  held_until INTEGER NOT NULL,
  done_at INTEGER NOT NULL
) WITHOUT ROWID;
