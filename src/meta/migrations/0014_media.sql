-- Media and search (docs/media-and-search.md): the background work queue,
-- the full-text index, the name index and derived media (thumbnails).

-- Work to do on a file, one row per (kind, node): a node changed again
-- before its job ran keeps one row (gen counts the changes, so a job that
-- finishes on old content does not retire the newer request). Rows are
-- written by triggers in the transaction that changes the node, so no change
-- is ever missed, whatever surface made it. run_at 0: due now; a failed
-- attempt moves it later (backoff). lease_until: a worker holds the job until
-- then; a worker that died lets it lapse and another takes the job.
CREATE TABLE jobs (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,
  node_id INTEGER NOT NULL,
  gen INTEGER NOT NULL DEFAULT 1,
  run_at INTEGER NOT NULL DEFAULT 0,
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_until INTEGER NOT NULL DEFAULT 0,
  last_error TEXT NOT NULL DEFAULT '',
  UNIQUE (kind, node_id)
);
CREATE INDEX jobs_due ON jobs (run_at, id);
CREATE INDEX jobs_by_node ON jobs (node_id);

-- Totals for /metrics and the admin page, kept in the database so every
-- node of a cluster reports the same.
CREATE TABLE job_stats (kind TEXT PRIMARY KEY, done INTEGER NOT NULL, failed INTEGER NOT NULL);

-- Extracted text of files, rowid = node id. Stored (not contentless) so
-- results carry highlighted snippets.
CREATE VIRTUAL TABLE doc_text USING fts5 (body, tokenize = 'unicode61 remove_diacritics 2');

-- Names, trigram-indexed over nodes.name_key (already case-folded NFC), so a
-- substring search is an index lookup instead of a scan of every row.
CREATE VIRTUAL TABLE node_names USING fts5 (
  name_key, content = 'nodes', content_rowid = 'id', tokenize = 'trigram');
INSERT INTO node_names (node_names) VALUES ('rebuild');

CREATE TRIGGER nodes_media_insert AFTER INSERT ON nodes
BEGIN
  INSERT INTO node_names (rowid, name_key) VALUES (NEW.id, NEW.name_key);
  INSERT INTO jobs (kind, node_id) SELECT 'derive', NEW.id WHERE NEW.kind = 1
    ON CONFLICT (kind, node_id) DO UPDATE SET gen = gen + 1, run_at = 0, attempts = 0;
END;

CREATE TRIGGER nodes_media_rename AFTER UPDATE OF name_key ON nodes
  WHEN NEW.name_key IS NOT OLD.name_key
BEGIN
  INSERT INTO node_names (node_names, rowid, name_key) VALUES ('delete', OLD.id, OLD.name_key);
  INSERT INTO node_names (rowid, name_key) VALUES (NEW.id, NEW.name_key);
END;

-- New content: the old text no longer describes the file (it is dropped at
-- once, not when the job runs, so a search never finds removed words).
CREATE TRIGGER nodes_media_content AFTER UPDATE OF manifest_id ON nodes
  WHEN NEW.manifest_id IS NOT OLD.manifest_id AND NEW.kind = 1
BEGIN
  DELETE FROM doc_text WHERE rowid = NEW.id;
  INSERT INTO jobs (kind, node_id) VALUES ('derive', NEW.id)
    ON CONFLICT (kind, node_id) DO UPDATE SET gen = gen + 1, run_at = 0, attempts = 0;
END;

CREATE TRIGGER nodes_media_delete AFTER DELETE ON nodes
BEGIN
  INSERT INTO node_names (node_names, rowid, name_key) VALUES ('delete', OLD.id, OLD.name_key);
  DELETE FROM doc_text WHERE rowid = OLD.id;
  DELETE FROM jobs WHERE node_id = OLD.id;
END;

-- Existing files are indexed once after the upgrade.
INSERT INTO jobs (kind, node_id) SELECT 'derive', id FROM nodes WHERE kind = 1;

-- Derived media keyed by content hash (copies share them): a thumbnail
-- variant's file under <data>/derived/, or the fact that none can be made
-- (state 1), so a file that is not an image is not tried on every request.
-- Rows whose hash no manifest has any more are collected with their files.
CREATE TABLE derived (
  hash BLOB NOT NULL,
  variant INTEGER NOT NULL,          -- PERSISTED: 1 small, 2 large thumbnail
  state INTEGER NOT NULL,            -- PERSISTED: 0 stored, 1 none possible
  bytes INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (hash, variant)
) WITHOUT ROWID;
