-- One lease per installation-wide chore (SQLite's 0030).
CREATE TABLE leases (
  name text COLLATE "C" PRIMARY KEY,
  holder text COLLATE "C",
  held_until bigint NOT NULL,
  done_at bigint NOT NULL
);
