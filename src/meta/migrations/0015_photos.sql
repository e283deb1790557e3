-- Photos (docs/media-and-search.md): what the derive job read from an
-- image's EXIF, one row per image file, kept in the drive's order of time
-- so the timeline is one index range per drive.
CREATE TABLE photos (
  node_id INTEGER PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
  drive_id INTEGER NOT NULL,
  taken_at INTEGER NOT NULL,       -- ms; the camera's wall clock read as UTC (see the design note)
  taken_exact INTEGER NOT NULL,    -- 1: from EXIF; 0: the file's modification time
  width INTEGER NOT NULL DEFAULT 0,
  height INTEGER NOT NULL DEFAULT 0,
  orientation INTEGER NOT NULL DEFAULT 1,
  camera TEXT NOT NULL DEFAULT '',
  lat REAL,
  lon REAL
);
CREATE INDEX photos_timeline ON photos (drive_id, taken_at, node_id);
CREATE INDEX photos_places ON photos (drive_id, lat, lon) WHERE lat IS NOT NULL;

-- A node that moves to another drive takes its row along; new content
-- drops the row until its job reads the new image.
CREATE TRIGGER nodes_photos_drive AFTER UPDATE OF drive_id ON nodes
  WHEN NEW.drive_id IS NOT OLD.drive_id
BEGIN
  UPDATE photos SET drive_id = NEW.drive_id WHERE node_id = NEW.id;
END;
CREATE TRIGGER nodes_photos_content AFTER UPDATE OF manifest_id ON nodes
  WHEN NEW.manifest_id IS NOT OLD.manifest_id
BEGIN
  DELETE FROM photos WHERE node_id = NEW.id;
END;

-- Images already stored are read once more.
INSERT INTO jobs (kind, node_id) SELECT 'derive', id FROM nodes WHERE kind = 1 AND mime LIKE 'image/%'
  ON CONFLICT (kind, node_id) DO UPDATE SET gen = gen + 1, run_at = 0, attempts = 0;
