#include "meta/sqlite/sqlite_music.h"

#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

constexpr const char* kPlaylistSelect =
    "SELECT p.id, p.public_id, p.user_id, p.name, p.created_at, p.updated_at, "
    "(SELECT count(*) FROM playlist_items i WHERE i.playlist_id = p.id) FROM playlists p ";

PlaylistRow PlaylistFrom(const Stmt& s) {
  PlaylistRow p;
  p.id = s.Int(0);
  p.public_id = s.Text(1);
  p.user_id = s.Int(2);
  p.name = s.Text(3);
  p.created_at_ms = s.Int(4);
  p.updated_at_ms = s.Int(5);
  p.items = s.Int(6);
  return p;
}

}  // namespace

TrackRow TrackFrom(const Stmt& s, int col) {
  TrackRow t;
  t.node_id = s.Int(col);
  t.drive_id = s.Int(col + 1);
  t.title = s.Text(col + 2);
  t.artist = s.Text(col + 3);
  t.album_artist = s.Text(col + 4);
  t.album = s.Text(col + 5);
  t.artist_key = s.Text(col + 6);
  t.album_key = s.Text(col + 7);
  t.track_no = s.Int(col + 8);
  t.disc_no = s.Int(col + 9);
  t.year = s.Int(col + 10);
  t.genre = s.Text(col + 11);
  t.duration_ms = s.Int(col + 12);
  return t;
}

Result<std::vector<ArtistRow>> ListArtists(sql::Conn& c, int64_t drive_id,
                                           const std::optional<std::string>& after_key,
                                           size_t limit) {
  // One range of tracks_library: its groups in key order.
  NUBO_PREPARE(s, c,
               "SELECT t.artist_key, max(t.album_artist), count(DISTINCT t.album_key), count(*) "
               "FROM tracks t JOIN nodes n ON n.id = t.node_id "
               "WHERE t.drive_id = ?1 AND (?4 = 0 OR t.artist_key > ?2) AND n.trash_root IS NULL "
               "GROUP BY t.artist_key ORDER BY t.artist_key LIMIT ?3");
  std::string after = after_key.value_or("");
  s.Bind(1, drive_id).Bind(2, after).Bind(3, static_cast<int64_t>(limit));
  s.Bind(4, int64_t{after_key ? 1 : 0});
  std::vector<ArtistRow> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.push_back({s.Text(0), s.Text(1), s.Int(2), s.Int(3)});
  }
}

Result<std::vector<AlbumRow>> ListAlbums(
    sql::Conn& c, int64_t drive_id, const std::optional<std::string>& artist_key,
    const std::optional<std::pair<std::string, std::string>>& after, size_t limit) {
  NUBO_PREPARE(
      s, c,
      "SELECT t.artist_key, max(t.album_artist), t.album_key, max(t.album), max(t.year), "
      "count(*), sum(t.duration_ms), "
      "(SELECT t2.node_id FROM tracks t2 JOIN nodes n2 ON n2.id = t2.node_id "
      " WHERE t2.drive_id = ?1 AND t2.artist_key = t.artist_key AND t2.album_key = "
      " t.album_key AND n2.trash_root IS NULL ORDER BY t2.disc_no, t2.track_no, t2.node_id "
      " LIMIT 1) "
      "FROM tracks t JOIN nodes n ON n.id = t.node_id "
      "WHERE t.drive_id = ?1 AND (?2 = 0 OR t.artist_key = ?3) "
      "AND (?7 = 0 OR (t.artist_key, t.album_key) > (?4, ?5)) AND n.trash_root IS NULL "
      "GROUP BY t.artist_key, t.album_key ORDER BY t.artist_key, t.album_key LIMIT ?6");
  s.Bind(1, drive_id).Bind(2, int64_t{artist_key ? 1 : 0});
  std::string a = artist_key.value_or(""), k1 = after ? after->first : "",
              k2 = after ? after->second : "";
  s.Bind(3, a).Bind(4, k1).Bind(5, k2).Bind(6, static_cast<int64_t>(limit));
  s.Bind(7, int64_t{after ? 1 : 0});
  std::vector<AlbumRow> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    AlbumRow r;
    r.artist_key = s.Text(0);
    r.artist = s.Text(1);
    r.key = s.Text(2);
    r.name = s.Text(3);
    r.year = s.Int(4);
    r.tracks = s.Int(5);
    r.duration_ms = s.Int(6);
    r.first_node_id = s.Int(7);
    out.push_back(std::move(r));
  }
}

Result<std::optional<PlaylistRow>> GetPlaylist(sql::Conn& c, const std::string& public_id) {
  static const std::string sql = std::string(kPlaylistSelect) + "WHERE p.public_id = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, public_id);
  return One<PlaylistRow>(s, PlaylistFrom);
}

Result<std::vector<PlaylistRow>> ListPlaylists(sql::Conn& c, int64_t user_id) {
  static const std::string sql =
      std::string(kPlaylistSelect) + "WHERE p.user_id = ? ORDER BY p.name, p.id LIMIT 10000";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, user_id);
  return Rows<PlaylistRow>(s, PlaylistFrom);
}

Status PutTrack(sql::Conn& c, const TrackRow& t) {
  NUBO_PREPARE(s, c,
               "INSERT INTO tracks (node_id, drive_id, title, artist, album_artist, album, "
               "artist_key, album_key, track_no, disc_no, year, genre, duration_ms) "
               "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (node_id) DO UPDATE SET "
               "drive_id = excluded.drive_id, title = excluded.title, artist = excluded.artist, "
               "album_artist = excluded.album_artist, album = excluded.album, "
               "artist_key = excluded.artist_key, album_key = excluded.album_key, "
               "track_no = excluded.track_no, disc_no = excluded.disc_no, year = excluded.year, "
               "genre = excluded.genre, duration_ms = excluded.duration_ms");
  s.Bind(1, t.node_id).Bind(2, t.drive_id).Bind(3, t.title).Bind(4, t.artist);
  s.Bind(5, t.album_artist).Bind(6, t.album).Bind(7, t.artist_key).Bind(8, t.album_key);
  s.Bind(9, t.track_no)
      .Bind(10, t.disc_no)
      .Bind(11, t.year)
      .Bind(12, t.genre)
      .Bind(13, t.duration_ms);
  return s.Exec();
}

Status InsertPlaylist(sql::Conn& c, PlaylistRow& row) {
  NUBO_PREPARE(s, c,
               "INSERT INTO playlists (public_id, user_id, name, created_at, updated_at) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
  s.Bind(1, row.public_id).Bind(2, row.user_id).Bind(3, row.name);
  s.Bind(4, row.created_at_ms).Bind(5, row.updated_at_ms);
  NUBO_ASSIGN_OR_RETURN(row.id, InsertedId(s));
  return Status::Ok();
}

Status UpdatePlaylist(sql::Conn& c, const PlaylistRow& row) {
  NUBO_PREPARE(s, c, "UPDATE playlists SET name = ?, updated_at = ? WHERE id = ?");
  s.Bind(1, row.name).Bind(2, row.updated_at_ms).Bind(3, row.id);
  return s.Exec();
}

Status DeletePlaylist(sql::Conn& c, int64_t id) {
  NUBO_PREPARE(s, c, "DELETE FROM playlists WHERE id = ?");
  s.Bind(1, id);
  return s.Exec();
}

Status SetPlaylistItems(sql::Conn& c, int64_t playlist_id, const std::vector<int64_t>& node_ids) {
  {
    NUBO_PREPARE(d, c, "DELETE FROM playlist_items WHERE playlist_id = ?");
    d.Bind(1, playlist_id);
    NUBO_RETURN_IF_ERROR(d.Exec());
  }
  NUBO_PREPARE(s, c, "INSERT INTO playlist_items (playlist_id, pos, node_id) VALUES (?, ?, ?)");
  for (size_t i = 0; i < node_ids.size(); ++i) {
    s.Bind(1, playlist_id).Bind(2, static_cast<int64_t>(i)).Bind(3, node_ids[i]);
    NUBO_RETURN_IF_ERROR(s.Exec());
    s.Reset();
  }
  return Status::Ok();
}

// ---- The transaction's methods of this capability (sqlite_txn.h) ----

Status SqliteTxn::PutTrack(const TrackRow& row) { return sqlite::PutTrack(c_, row); }

Status SqliteTxn::InsertPlaylist(PlaylistRow& row) { return sqlite::InsertPlaylist(c_, row); }

Status SqliteTxn::UpdatePlaylist(const PlaylistRow& row) { return sqlite::UpdatePlaylist(c_, row); }

Status SqliteTxn::DeletePlaylist(int64_t id) { return sqlite::DeletePlaylist(c_, id); }

Status SqliteTxn::SetPlaylistItems(int64_t playlist_id, const std::vector<int64_t>& node_ids) {
  return sqlite::SetPlaylistItems(c_, playlist_id, node_ids);
}

Result<std::vector<ArtistRow>> SqliteTxn::ListArtists(int64_t drive_id,
                                                      const std::optional<std::string>& after_key,
                                                      size_t limit) {
  return sqlite::ListArtists(c_, drive_id, after_key, limit);
}

Result<std::vector<AlbumRow>> SqliteTxn::ListAlbums(
    int64_t drive_id, const std::optional<std::string>& artist_key,
    const std::optional<std::pair<std::string, std::string>>& after, size_t limit) {
  return sqlite::ListAlbums(c_, drive_id, artist_key, after, limit);
}

Result<std::vector<std::pair<TrackRow, NodeRow>>> SqliteTxn::ListTracks(
    int64_t drive_id, const std::optional<std::string>& artist_key,
    const std::optional<std::string>& album_key, const std::optional<TrackCursor>& after,
    size_t limit, int64_t viewer) {
  // One range of tracks_library, in album order.
  static const std::string sql =
      "SELECT " + std::string(kNodeCols) + ", " + sqlite::kTrackCols +
      " FROM tracks t JOIN nodes n ON n.id = t.node_id WHERE t.drive_id = ?2 "
      "AND n.trash_root IS NULL AND (?3 = 0 OR t.artist_key = ?4) AND (?5 = 0 OR t.album_key = "
      "?6) "
      "AND (t.artist_key, t.album_key, t.disc_no, t.track_no, t.node_id) > (?7, ?8, ?9, ?10, "
      "?11) "
      "ORDER BY t.artist_key, t.album_key, t.disc_no, t.track_no, t.node_id LIMIT ?12";
  NUBO_PREPARE(s, c_, sql.c_str());
  std::string ak = artist_key.value_or(""), bk = album_key.value_or("");
  std::string a1 = after ? after->artist_key : "", a2 = after ? after->album_key : "";
  s.Bind(1, viewer).Bind(2, drive_id).Bind(3, int64_t{artist_key ? 1 : 0}).Bind(4, ak);
  s.Bind(5, int64_t{album_key ? 1 : 0}).Bind(6, bk).Bind(7, a1).Bind(8, a2);
  s.Bind(9, after ? after->disc_no : INT64_MIN).Bind(10, after ? after->track_no : INT64_MIN);
  s.Bind(11, after ? after->node_id : INT64_MIN).Bind(12, static_cast<int64_t>(limit));
  std::vector<std::pair<TrackRow, NodeRow>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.emplace_back(sqlite::TrackFrom(s, kNodeColCount), NodeFrom(s));
  }
}

Result<std::optional<PlaylistRow>> SqliteTxn::GetPlaylist(const std::string& public_id) {
  return sqlite::GetPlaylist(c_, public_id);
}

Result<std::vector<PlaylistRow>> SqliteTxn::ListPlaylists(int64_t user_id) {
  return sqlite::ListPlaylists(c_, user_id);
}

Result<std::vector<std::pair<NodeRow, std::optional<TrackRow>>>> SqliteTxn::PlaylistItems(
    int64_t playlist_id, int64_t viewer) {
  // The tracks in the same statement: a playlist of thousands of items was
  // a lookup per item.
  static const std::string sql = "SELECT " + std::string(kNodeCols) + ", " + sqlite::kTrackCols +
                                 " FROM playlist_items i JOIN nodes n ON n.id = i.node_id "
                                 "LEFT JOIN tracks t ON t.node_id = n.id "
                                 "WHERE i.playlist_id = ?2 ORDER BY i.pos";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, playlist_id);
  std::vector<std::pair<NodeRow, std::optional<TrackRow>>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    std::optional<TrackRow> track;
    if (!s.IsNull(kNodeColCount)) track = sqlite::TrackFrom(s, kNodeColCount);
    out.emplace_back(NodeFrom(s), std::move(track));
  }
}

}  // namespace nubo::meta::sqlite
