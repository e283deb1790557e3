// The music library and playlists of the files domain (files.h): lists over
// the rows the derive job writes (meta: tracks), merged over the caller's
// drives, and playlists that are the caller's own.
#include <algorithm>
#include <map>

#include "files/access.h"
#include "files/files.h"
#include "files/names.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::files {

namespace {

// Picture files music players take as the album's cover when they lie
// beside its tracks, in the order they are looked for.
constexpr const char* kCoverNames[] = {"cover.jpg",   "cover.jpeg", "cover.png", "folder.jpg",
                                       "folder.jpeg", "folder.png", "front.jpg", "front.png"};

constexpr size_t kMaxPlaylistItems = 10000;
constexpr size_t kMaxPlaylistName = 255;

// Cursors: hex of "<tag>\n<field>\n<field>…" (fields are keys or numbers;
// keys are hex again, so any byte may appear in them).
std::string Cursor(std::string_view tag, const std::vector<std::string>& fields) {
  std::string raw(tag);
  for (const std::string& f : fields) raw += "\n" + HexEncode(f.data(), f.size());
  return HexEncode(raw.data(), raw.size());
}

Result<std::vector<std::string>> Uncursor(std::string_view cursor, std::string_view tag,
                                          size_t fields) {
  auto raw = HexDecode(cursor);
  std::vector<std::string_view> parts = raw ? Split(*raw, '\n') : std::vector<std::string_view>{};
  if (parts.size() != fields + 1 || parts[0] != tag)
    return Status::InvalidArgument("malformed cursor");
  std::vector<std::string> out;
  for (size_t i = 1; i < parts.size(); ++i) {
    auto f = HexDecode(parts[i]);
    if (!f) return Status::InvalidArgument("malformed cursor");
    out.push_back(std::move(*f));
  }
  return out;
}

std::string TrackKey(const meta::TrackRow& t) {
  // Orders like the index: keys, then disc, track and id as sortable text.
  char nums[64];
  std::snprintf(nums, sizeof nums, "%020lld%020lld%020lld", static_cast<long long>(t.disc_no),
                static_cast<long long>(t.track_no), static_cast<long long>(t.node_id));
  return t.artist_key + '\0' + t.album_key + '\0' + nums;
}

Status ValidPlaylistName(std::string_view name) {
  if (name.empty() || name.size() > kMaxPlaylistName) {
    return Status::InvalidArgument("a playlist name has 1 to 255 bytes");
  }
  for (unsigned char c : name) {
    if (c < 0x20 || c == 0x7f)
      return Status::InvalidArgument("a playlist name has no control characters");
  }
  return Status::Ok();
}

}  // namespace

Result<Files::ArtistPage> Files::Artists(const Principal& who, std::string_view cursor,
                                         size_t limit) {
  std::optional<std::string> after;
  if (!cursor.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto f, Uncursor(cursor, "a1", 1));
    after = f[0];
  }
  std::map<std::string, meta::ArtistRow> merged;  // by key: one artist across drives
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check, false));
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.ListArtists(drive, after, limit + 1));
      for (meta::ArtistRow& r : rows) {
        auto [it, fresh] = merged.try_emplace(r.key, r);
        if (!fresh) {
          it->second.albums += r.albums;
          it->second.tracks += r.tracks;
        }
      }
    }
    return Status::Ok();
  }));
  ArtistPage page;
  for (auto& [k, r] : merged) {
    if (page.items.size() == limit) {
      page.next_cursor = Cursor("a1", {page.items.back().key});
      break;
    }
    page.items.push_back(std::move(r));
  }
  return page;
}

Result<Files::AlbumPage> Files::Albums(const Principal& who, std::optional<std::string> artist_key,
                                       std::string_view cursor, size_t limit) {
  std::optional<std::pair<std::string, std::string>> after;
  if (!cursor.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto f, Uncursor(cursor, "b1", 2));
    after = std::make_pair(f[0], f[1]);
  }
  std::map<std::pair<std::string, std::string>, AlbumItem> merged;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check, false));
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.ListAlbums(drive, artist_key, after, limit + 1));
      for (meta::AlbumRow& r : rows) {
        auto key = std::make_pair(r.artist_key, r.key);
        auto it = merged.find(key);
        if (it != merged.end()) {
          it->second.album.tracks += r.tracks;
          it->second.album.duration_ms += r.duration_ms;
          continue;
        }
        NUBO_ASSIGN_OR_RETURN(auto first, t.GetNode(r.first_node_id, who.user_id));
        AlbumItem item{std::move(r), first.value_or(meta::NodeRow{})};
        merged.emplace(std::move(key), std::move(item));
      }
    }
    return Status::Ok();
  }));
  AlbumPage page;
  for (auto& [k, item] : merged) {
    if (page.items.size() == limit) {
      const meta::AlbumRow& last = page.items.back().album;
      page.next_cursor = Cursor("b1", {last.artist_key, last.key});
      break;
    }
    page.items.push_back(std::move(item));
  }
  // A cover picture beside the first track, if the caller may read it.
  // Albums often share a folder (singles, compilations): one look per folder.
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    std::map<int64_t, std::optional<meta::NodeRow>> by_folder;
    for (AlbumItem& item : page.items) {
      if (item.first.public_id.empty() || !item.first.parent_id) continue;
      auto [it, fresh] = by_folder.try_emplace(*item.first.parent_id);
      if (fresh) {
        for (const char* name : kCoverNames) {
          NUBO_ASSIGN_OR_RETURN(auto hit, t.FindChild(it->first, NameKey(name), who.user_id));
          if (!hit || hit->folder() || !authz::Check(t, who, *hit, Action::kRead).ok()) continue;
          it->second = std::move(*hit);
          break;
        }
      }
      item.cover = it->second;
    }
    return Status::Ok();
  }));
  return page;
}

Result<Files::TrackPage> Files::Tracks(const Principal& who, std::optional<std::string> artist_key,
                                       std::optional<std::string> album_key,
                                       std::string_view cursor, size_t limit) {
  std::optional<meta::TrackCursor> after;
  if (!cursor.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto f, Uncursor(cursor, "t1", 5));
    meta::TrackCursor c;
    c.artist_key = f[0];
    c.album_key = f[1];
    auto disc = ParseInt64(f[2]), track = ParseInt64(f[3]), id = ParseInt64(f[4]);
    if (!disc || !track || !id) return Status::InvalidArgument("malformed cursor");
    c.disc_no = *disc;
    c.track_no = *track;
    c.node_id = *id;
    after = std::move(c);
  }
  TrackPage page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    authz::Checker check(t, who);
    NUBO_ASSIGN_OR_RETURN(std::vector<int64_t> drives, SearchDrives(t, who, check, false));
    for (int64_t drive : drives) {
      NUBO_ASSIGN_OR_RETURN(
          auto rows, t.ListTracks(drive, artist_key, album_key, after, limit + 1, who.user_id));
      for (auto& [tr, n] : rows) page.items.push_back({std::move(tr), std::move(n)});
    }
    return Status::Ok();
  }));
  std::sort(page.items.begin(), page.items.end(), [](const TrackItem& a, const TrackItem& b) {
    return TrackKey(a.track) < TrackKey(b.track);
  });
  if (page.items.size() > limit) {
    page.items.resize(limit);
    const meta::TrackRow& last = page.items.back().track;
    page.next_cursor = Cursor("t1", {last.artist_key, last.album_key, std::to_string(last.disc_no),
                                     std::to_string(last.track_no), std::to_string(last.node_id)});
  }
  return page;
}

Result<std::vector<meta::PlaylistRow>> Files::Playlists(const Principal& who) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  std::vector<meta::PlaylistRow> out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out, t.ListPlaylists(who.user_id));
    return Status::Ok();
  }));
  return out;
}

Result<meta::PlaylistRow> Files::CreatePlaylist(const Principal& who, std::string_view name) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  NUBO_RETURN_IF_ERROR(ValidPlaylistName(name));
  meta::PlaylistRow row;
  row.public_id = NewUuidV7();
  row.user_id = who.user_id;
  row.name = std::string(name);
  row.created_at_ms = row.updated_at_ms = UnixMillis();
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) { return t.InsertPlaylist(row); }));
  return row;
}

namespace {

// The caller's own playlist, or NotFound like one that does not exist.
Result<meta::PlaylistRow> OwnPlaylist(meta::ReadTxn& t, const Principal& who, std::string_view id) {
  NUBO_ASSIGN_OR_RETURN(auto p, t.GetPlaylist(std::string(id)));
  if (!p || p->user_id != who.user_id) return Status::NotFound("no such playlist");
  return *p;
}

}  // namespace

Result<Files::Playlist> Files::GetPlaylist(const Principal& who, std::string_view id) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  Playlist out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out.row, OwnPlaylist(t, who, id));
    NUBO_ASSIGN_OR_RETURN(auto items, t.PlaylistItems(out.row.id, who.user_id));
    authz::Checker check(t, who);
    std::vector<const meta::NodeRow*> live;
    for (const auto& [n, track] : items) {
      if (n.live()) live.push_back(&n);
    }
    NUBO_RETURN_IF_ERROR(check.Prime(live));
    for (auto& [n, track] : items) {
      if (!n.live()) continue;
      auto p = check.On(n);
      if (!p.ok() && p.status().code() != Code::kNotFound) return p.status();
      if (!p.ok() || !p->Has(Action::kRead)) continue;  // no longer the caller's to read
      out.items.push_back({track.value_or(meta::TrackRow{}), std::move(n)});
    }
    return Status::Ok();
  }));
  return out;
}

Result<meta::PlaylistRow> Files::RenamePlaylist(const Principal& who, std::string_view id,
                                                std::string_view name) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  NUBO_RETURN_IF_ERROR(ValidPlaylistName(name));
  meta::PlaylistRow row;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, OwnPlaylist(t, who, id));
    row.name = std::string(name);
    row.updated_at_ms = UnixMillis();
    return t.UpdatePlaylist(row);
  }));
  return row;
}

Status Files::DeletePlaylist(const Principal& who, std::string_view id) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto row, OwnPlaylist(t, who, id));
    return t.DeletePlaylist(row.id);
  });
}

Result<Files::Playlist> Files::SetPlaylistItems(const Principal& who, std::string_view id,
                                                const std::vector<std::string>& node_ids) {
  NUBO_RETURN_IF_ERROR(authz::CheckScope(who, auth::kScopeFiles));
  if (node_ids.size() > kMaxPlaylistItems) {
    return Status::InvalidArgument("a playlist holds at most 10000 items");
  }
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto row, OwnPlaylist(t, who, id));
    authz::Checker check(t, who);
    std::vector<int64_t> ids;
    for (const std::string& nid : node_ids) {
      NUBO_ASSIGN_OR_RETURN(auto n, t.GetNodeByPublicId(nid, who.user_id));
      // What the caller may not read answers like what does not exist.
      if (!n || !n->live()) return Status::NotFound("no such file or folder");
      auto p = check.On(*n);
      if (!p.ok() || !p->Has(Action::kRead)) return Status::NotFound("no such file or folder");
      if (n->folder()) return Status::InvalidArgument("\"" + n->name + "\" is a folder");
      ids.push_back(n->id);
    }
    row.updated_at_ms = UnixMillis();
    NUBO_RETURN_IF_ERROR(t.UpdatePlaylist(row));
    return t.SetPlaylistItems(row.id, ids);
  }));
  return GetPlaylist(who, id);
}

Result<std::string> Files::ExportPlaylist(const Principal& who, std::string_view id) {
  NUBO_ASSIGN_OR_RETURN(Playlist pl, GetPlaylist(who, id));
  std::string out = "#EXTM3U\n";
  for (const TrackItem& it : pl.items) {
    // Paths below the caller's own root; items of other drives have none
    // there and are left out (a comment names them).
    auto path = Path(who, it.node);
    std::string rel;
    bool own = path.ok();
    if (own) {
      NUBO_ASSIGN_OR_RETURN(DriveInfo mine, PersonalDrive(who));
      own = it.node.drive_id == mine.drive.id;
      for (size_t i = 1; own && i < path->size(); ++i) rel += (*path)[i].name + "/";
      rel += it.node.name;
    }
    const std::string title =
        it.track.title.empty()
            ? it.node.name
            : (it.track.artist.empty() ? "" : it.track.artist + " - ") + it.track.title;
    if (!own) {
      out += "# not in your files: " + it.node.name + "\n";
      continue;
    }
    out +=
        "#EXTINF:" + std::to_string(it.track.duration_ms / 1000) + "," + title + "\n" + rel + "\n";
  }
  return out;
}

Result<Files::Imported> Files::ImportPlaylist(const Principal& who, std::string_view name,
                                              std::string_view m3u8) {
  if (m3u8.size() > (4 << 20)) return Status::TooLarge("a playlist file has at most 4 MiB");
  std::vector<std::string> ids;
  int64_t missing = 0;
  for (std::string_view line : Split(m3u8, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    if (ids.size() + missing >= kMaxPlaylistItems) break;
    std::vector<std::string> segments;
    for (std::string_view s : Split(line, '/')) {
      if (!s.empty() && s != ".") segments.emplace_back(s);
    }
    auto r =
        segments.empty() ? Result<Resolved>(Status::NotFound("empty")) : Resolve(who, segments);
    if (r.ok() && r->node && !r->node->folder()) {
      ids.push_back(r->node->public_id);
    } else {
      ++missing;  // not there, not a file, or not the caller's to read
    }
  }
  NUBO_ASSIGN_OR_RETURN(meta::PlaylistRow row, CreatePlaylist(who, name));
  NUBO_ASSIGN_OR_RETURN(Playlist pl, SetPlaylistItems(who, row.public_id, ids));
  return Imported{std::move(pl), missing};
}

}  // namespace nubo::files
