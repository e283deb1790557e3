-- Music (docs/media-and-search.md): the tags the derive job read from an
-- audio file, one row per file, grouped by folded artist and album keys so
-- the library's lists are index ranges per drive; and playlists.
CREATE TABLE tracks (
  node_id INTEGER PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
  drive_id INTEGER NOT NULL,
  title TEXT NOT NULL DEFAULT '',
  artist TEXT NOT NULL DEFAULT '',
  album_artist TEXT NOT NULL DEFAULT '',  -- the album's artist, else the track's
  album TEXT NOT NULL DEFAULT '',
  artist_key TEXT NOT NULL DEFAULT '',    -- album_artist case-folded: what groups
  album_key TEXT NOT NULL DEFAULT '',
  track_no INTEGER NOT NULL DEFAULT 0,
  disc_no INTEGER NOT NULL DEFAULT 0,
  year INTEGER NOT NULL DEFAULT 0,
  genre TEXT NOT NULL DEFAULT '',
  duration_ms INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX tracks_library ON tracks (drive_id, artist_key, album_key, disc_no, track_no, node_id);
CREATE INDEX tracks_albums ON tracks (drive_id, album_key, artist_key);

CREATE TRIGGER nodes_tracks_drive AFTER UPDATE OF drive_id ON nodes
  WHEN NEW.drive_id IS NOT OLD.drive_id
BEGIN
  UPDATE tracks SET drive_id = NEW.drive_id WHERE node_id = NEW.id;
END;
CREATE TRIGGER nodes_tracks_content AFTER UPDATE OF manifest_id ON nodes
  WHEN NEW.manifest_id IS NOT OLD.manifest_id
BEGIN
  DELETE FROM tracks WHERE node_id = NEW.id;
END;

-- A user's playlists: an ordered list of files (pos 0, 1, …), each item
-- still checked against the owner's rights when the list is read.
CREATE TABLE playlists (
  id INTEGER PRIMARY KEY,
  public_id TEXT NOT NULL UNIQUE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX playlists_by_user ON playlists (user_id, id);
CREATE TABLE playlist_items (
  playlist_id INTEGER NOT NULL REFERENCES playlists (id) ON DELETE CASCADE,
  pos INTEGER NOT NULL,
  node_id INTEGER NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
  PRIMARY KEY (playlist_id, pos)
) WITHOUT ROWID;
CREATE INDEX playlist_items_by_node ON playlist_items (node_id);

INSERT INTO jobs (kind, node_id) SELECT 'derive', id FROM nodes WHERE kind = 1 AND mime LIKE 'audio/%'
  ON CONFLICT (kind, node_id) DO UPDATE SET gen = gen + 1, run_at = 0, attempts = 0;
