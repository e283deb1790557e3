-- Failed sign-ins per throttle key, shared by every node (SQLite's 0026).
CREATE TABLE sign_in_failures (
  key text COLLATE "C" PRIMARY KEY,
  failures bigint NOT NULL,
  locked_until bigint NOT NULL,
  updated_at bigint NOT NULL
);
CREATE INDEX sign_in_failures_by_update ON sign_in_failures (updated_at);
