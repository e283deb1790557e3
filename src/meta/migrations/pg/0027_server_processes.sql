-- Serving processes with their heartbeat and oldest in-flight pin
-- (SQLite's 0027).
CREATE TABLE server_processes (
  id text COLLATE "C" PRIMARY KEY,
  host text COLLATE "C" NOT NULL,
  pid bigint NOT NULL,
  started_at bigint NOT NULL,
  heartbeat_at bigint NOT NULL,
  oldest_pin_at bigint
);
