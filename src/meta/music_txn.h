// The music library: tracks, artists, albums and playlists.
//
// One capability of the MetaStore (meta_store.h): MusicReads are part of every
// transaction, MusicWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "meta/digest.h"
#include "meta/nodes_txn.h"
#include "util/status.h"

namespace nubo::meta {

// What an audio file's tags say (migration 0016).
struct TrackRow {
  int64_t node_id = 0;
  int64_t drive_id = 0;
  std::string title, artist, album_artist, album;
  std::string artist_key, album_key;  // case-folded: what groups
  int64_t track_no = 0, disc_no = 0, year = 0;
  std::string genre;
  int64_t duration_ms = 0;
};

struct ArtistRow {
  std::string key, name;
  int64_t albums = 0, tracks = 0;
};

struct AlbumRow {
  std::string artist_key, artist, key, name;
  int64_t year = 0, tracks = 0, duration_ms = 0;
  int64_t first_node_id = 0;  // the album's first track
};

// The position after which a list of tracks goes on.
struct TrackCursor {
  std::string artist_key, album_key;
  int64_t disc_no = 0, track_no = 0, node_id = 0;
};

struct PlaylistRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  std::string name;
  int64_t created_at_ms = 0, updated_at_ms = 0;
  int64_t items = 0;  // read-only
};

class MusicReads {
 public:
  virtual ~MusicReads() = default;

  // Music of a drive (live files only): artists after `after_key`, albums
  // (of one artist when `artist_key` is set) after (artist_key, album_key),
  // tracks (of one artist and/or album) after `after`, each in key order.
  virtual Result<std::vector<ArtistRow>> ListArtists(int64_t drive_id,
                                                     const std::optional<std::string>& after_key,
                                                     size_t limit) = 0;
  virtual Result<std::vector<AlbumRow>> ListAlbums(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::pair<std::string, std::string>>& after, size_t limit) = 0;
  virtual Result<std::vector<std::pair<TrackRow, NodeRow>>> ListTracks(
      int64_t drive_id, const std::optional<std::string>& artist_key,
      const std::optional<std::string>& album_key, const std::optional<TrackCursor>& after,
      size_t limit, int64_t viewer) = 0;
  virtual Result<std::optional<PlaylistRow>> GetPlaylist(const std::string& public_id) = 0;
  virtual Result<std::vector<PlaylistRow>> ListPlaylists(int64_t user_id) = 0;
  // The items in order: their nodes (live or trashed; the caller filters),
  // each with its track's facts once the job queue has read them.
  virtual Result<std::vector<std::pair<NodeRow, std::optional<TrackRow>>>> PlaylistItems(
      int64_t playlist_id, int64_t viewer) = 0;
};

class MusicWrites {
 public:
  virtual ~MusicWrites() = default;

  virtual Status PutTrack(const TrackRow& row) = 0;
  virtual Status InsertPlaylist(PlaylistRow& row) = 0;        // sets id
  virtual Status UpdatePlaylist(const PlaylistRow& row) = 0;  // name, updated_at
  virtual Status DeletePlaylist(int64_t id) = 0;
  // Replaces the items, in this order.
  virtual Status SetPlaylistItems(int64_t playlist_id, const std::vector<int64_t>& node_ids) = 0;
};

}  // namespace nubo::meta
