// The SQLite backend's music library and playlists (migration 0016): the
// statements behind the MetaStore's methods of that section. Internal to
// meta/sqlite. Lists that return nodes live in sqlite_store.cc beside the
// node columns.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

inline constexpr const char* kTrackCols =
    "t.node_id, t.drive_id, t.title, t.artist, t.album_artist, t.album, t.artist_key, "
    "t.album_key, t.track_no, t.disc_no, t.year, t.genre, t.duration_ms";
TrackRow TrackFrom(const Stmt& s, int col);

Result<std::vector<ArtistRow>> ListArtists(sql::Conn& c, int64_t drive_id,
                                           const std::optional<std::string>& after_key,
                                           size_t limit);
Result<std::vector<AlbumRow>> ListAlbums(
    sql::Conn& c, int64_t drive_id, const std::optional<std::string>& artist_key,
    const std::optional<std::pair<std::string, std::string>>& after, size_t limit);
Result<std::optional<PlaylistRow>> GetPlaylist(sql::Conn& c, const std::string& public_id);
Result<std::vector<PlaylistRow>> ListPlaylists(sql::Conn& c, int64_t user_id);
Status PutTrack(sql::Conn& c, const TrackRow& row);
Status InsertPlaylist(sql::Conn& c, PlaylistRow& row);
Status UpdatePlaylist(sql::Conn& c, const PlaylistRow& row);
Status DeletePlaylist(sql::Conn& c, int64_t id);
Status SetPlaylistItems(sql::Conn& c, int64_t playlist_id, const std::vector<int64_t>& node_ids);

}  // namespace nubo::meta::sqlite
