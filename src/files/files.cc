// Read side of the files domain: access, listings, search, favorites,
// recent, usage. Writes live in files_write.cc.
#include "files/files.h"

#include <algorithm>

#include "files/access.h"
#include "files/names.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::files {

using meta::NodeKind;
using meta::NodeRow;

Result<Conflict> ParseConflict(std::string_view s, Conflict fallback) {
  if (s.empty()) return fallback;
  if (s == "fail") return Conflict::kFail;
  if (s == "rename") return Conflict::kRename;
  if (s == "overwrite") return Conflict::kOverwrite;
  return Status::InvalidArgument("conflict must be fail, rename or overwrite");
}

std::string HashHex(const meta::Digest& d) { return DigestHex(d); }

void AppendNodeETag(std::string& out, const NodeRow& n) {
  out += '"';
  if (!n.folder()) {
    // The first 128 bits of the content's BLAKE3 hash: as unique as the
    // whole for telling versions apart, and half the bytes in every listing
    // and If header (some WebDAV clients build If headers in 200-byte
    // buffers; litmus/neon truncates two 64-digit tags).
    static constexpr char kHex[] = "0123456789abcdef";
    for (size_t i = 0; i < 16; ++i) {
      out += kHex[n.hash[i] >> 4];
      out += kHex[n.hash[i] & 0xF];
    }
  } else {
    // The drive-wide change number of the last change below: unique per
    // change, so two states of a folder never share an ETag.
    out += 't';
    out += std::to_string(n.tree_seq);
  }
  out += '"';
}

std::string NodeETag(const NodeRow& n) {
  std::string out;
  AppendNodeETag(out, n);
  return out;
}

bool IfMatchMatches(std::string_view header, const std::string& etag) {
  std::string_view h = Trim(header);
  if (h == "*") return true;
  for (std::string_view tag : Split(h, ',')) {
    if (Trim(tag) == etag) return true;
  }
  return false;
}

Status NodeNotFound() { return Status::NotFound("no such file or folder"); }

Result<NodeRow> Access(meta::ReadTxn& txn, int64_t user, std::string_view public_id, Want want) {
  if (public_id.empty() || public_id.size() > 64) return NodeNotFound();
  NUBO_ASSIGN_OR_RETURN(auto n, txn.GetNodeByPublicId(std::string(public_id), user));
  if (!n) return NodeNotFound();
  NUBO_ASSIGN_OR_RETURN(auto d, txn.GetDrive(n->drive_id));
  if (!d || d->owner_id != user) return NodeNotFound();
  if (want == Want::kLive && !n->live()) return NodeNotFound();
  return std::move(*n);
}

Result<NodeRow> AccessFolder(meta::ReadTxn& txn, int64_t user, std::string_view public_id) {
  NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(txn, user, public_id, Want::kLive));
  if (!n.folder()) return Status::Conflict("\"" + n.name + "\" is a file, not a folder");
  return n;
}

Status Touch(meta::WriteTxn& txn, int64_t drive_id, int64_t from, int64_t size_delta) {
  NUBO_ASSIGN_OR_RETURN(int64_t seq, txn.NextChangeSeq(drive_id));
  return txn.BumpAncestors(from, seq, size_delta);
}

Status CheckQuota(meta::ReadTxn& txn, int64_t drive_id, int64_t extra) {
  if (extra <= 0) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto d, txn.GetDrive(drive_id));
  if (!d || !d->owner_id) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto u, txn.GetUser(*d->owner_id));
  if (!u || !u->quota_bytes) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(auto root, txn.GetNode(d->root_id, 0));
  const int64_t used = root ? static_cast<int64_t>(root->size) : 0;
  if (used + extra > *u->quota_bytes) {
    return Status::QuotaExceeded("storage quota exceeded: " + std::to_string(used) + " of " +
                                 std::to_string(*u->quota_bytes) + " bytes used, " +
                                 std::to_string(extra) + " more needed");
  }
  return Status::Ok();
}

namespace {

// "report.pdf" → "report (2).pdf"; folders and dot-files keep the suffix
// at the end ("photos (2)", ".bashrc (2)").
std::string Numbered(const std::string& name, bool folder, int k) {
  size_t dot = folder ? std::string::npos : name.rfind('.');
  if (dot == std::string::npos || dot == 0) return name + " (" + std::to_string(k) + ")";
  return name.substr(0, dot) + " (" + std::to_string(k) + ")" + name.substr(dot);
}

}  // namespace

Result<std::string> PlaceName(meta::ReadTxn& txn, const NodeRow& parent, const std::string& name,
                              bool folder, Conflict conflict, std::optional<NodeRow>* existing,
                              int64_t ignore_id) {
  NUBO_ASSIGN_OR_RETURN(auto hit, txn.FindChild(parent.id, NameKey(name), 0));
  if (!hit || hit->id == ignore_id) return name;
  if (existing) *existing = hit;
  if (conflict == Conflict::kOverwrite) return name;
  if (conflict == Conflict::kFail) {
    return Status::AlreadyExists("\"" + name + "\" already exists in this folder");
  }
  for (int k = 1; k < 100000; ++k) {
    std::string candidate = Numbered(name, folder, k);
    if (candidate.size() > kMaxNameBytes) break;
    NUBO_ASSIGN_OR_RETURN(auto taken, txn.FindChild(parent.id, NameKey(candidate), 0));
    if (!taken) {
      if (existing) existing->reset();
      return candidate;
    }
  }
  return Status::AlreadyExists("no free name like \"" + name + "\" in this folder");
}

Files::Files(meta::MetaStore& meta, blob::ChunkStore& chunks, FilesOptions options)
    : meta_(meta), chunks_(chunks), options_(options) {}

Files::~Files() = default;

Result<meta::DriveRow> Files::PersonalDrive(int64_t user) {
  std::optional<meta::DriveRow> d;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(d, t.GetPersonalDrive(user));
    return Status::Ok();
  }));
  if (!d) return Status::NotFound("this account has no personal drive");
  return *d;
}

Result<Usage> Files::GetUsage(int64_t user) {
  Usage u;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(user));
    if (!d) return Status::NotFound("this account has no personal drive");
    NUBO_ASSIGN_OR_RETURN(auto root, t.GetNode(d->root_id, user));
    NUBO_ASSIGN_OR_RETURN(auto row, t.GetUser(user));
    u.used_bytes = root ? root->size : 0;
    if (row) u.quota_bytes = row->quota_bytes;
    return Status::Ok();
  }));
  return u;
}

Result<Resolved> Files::Resolve(int64_t user, const std::vector<std::string>& segments) {
  std::vector<std::string> names;
  Resolved r;
  r.path_key = "";
  for (const std::string& seg : segments) {
    NUBO_ASSIGN_OR_RETURN(std::string norm, NormalizeName(seg));
    r.path_key += "/" + NameKey(norm);
    names.push_back(std::move(norm));
  }
  if (r.path_key.empty()) r.path_key = "/";
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(user));
    if (!d) return Status::NotFound("this account has no personal drive");
    r.drive_id = d->id;
    NUBO_ASSIGN_OR_RETURN(auto cur, t.GetNode(d->root_id, user));
    if (!cur) return Status::Internal("drive root missing");
    for (size_t i = 0; i < names.size(); ++i) {
      if (!cur->folder()) return Status::Ok();  // a file has no members: nothing resolves below
      if (i + 1 == names.size()) r.parent = cur;
      NUBO_ASSIGN_OR_RETURN(auto next, t.FindChild(cur->id, NameKey(names[i]), user));
      if (!next) return Status::Ok();
      cur = std::move(next);
    }
    r.node = std::move(cur);
    return Status::Ok();
  }));
  if (!names.empty()) r.name = names.back();
  return r;
}

Result<NodeRow> Files::Get(int64_t user, std::string_view id) {
  NodeRow n;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(n, Access(t, user, id, Want::kLive));
    return Status::Ok();
  }));
  return n;
}

Result<std::vector<NodeRow>> Files::Path(int64_t user, const NodeRow& n) {
  std::vector<NodeRow> out;
  if (!n.parent_id) return out;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out, t.Ancestors(*n.parent_id));
    return Status::Ok();
  }));
  std::reverse(out.begin(), out.end());
  return out;
}

namespace {

// Cursors are opaque to clients: hex of "v1\n<sort><dir>\n<kind>\n<int>\n
// <str>\n<name_key>\n<id>". Names cannot contain "\n" (control characters
// are refused), so the fields split unambiguously.
std::string EncodeCursor(char tag, const meta::NodeCursor& c) {
  std::string raw = std::string("v1\n") + tag + "\n" + std::to_string(static_cast<int>(c.kind)) +
                    "\n" + std::to_string(c.int_key) + "\n" + c.str_key + "\n" + c.name_key + "\n" +
                    std::to_string(c.id);
  return HexEncode(raw.data(), raw.size());
}

std::optional<std::string> HexDecode(std::string_view hex) {
  if (hex.size() % 2 != 0 || hex.size() > 8192) return std::nullopt;
  std::string out;
  out.reserve(hex.size() / 2);
  auto val = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = val(hex[i]), lo = val(hex[i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  bool neg = !s.empty() && s[0] == '-';
  auto v = ParseUint64(neg ? s.substr(1) : s);
  if (!v || *v > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return neg ? -static_cast<int64_t>(*v) : static_cast<int64_t>(*v);
}

Result<std::optional<meta::NodeCursor>> DecodeCursor(std::string_view cursor, char tag) {
  if (cursor.empty()) return std::optional<meta::NodeCursor>();
  auto bad = [] { return Status::InvalidArgument("malformed cursor"); };
  auto raw = HexDecode(cursor);
  if (!raw) return bad();
  auto parts = Split(*raw, '\n');
  if (parts.size() != 7 || parts[0] != "v1") return bad();
  if (parts[1].size() != 1 || parts[1][0] != tag) {
    return Status::InvalidArgument("cursor belongs to another sort order");
  }
  meta::NodeCursor c;
  if (parts[2] == "0") {
    c.kind = NodeKind::kFolder;
  } else if (parts[2] == "1") {
    c.kind = NodeKind::kFile;
  } else {
    return bad();
  }
  auto ik = ParseInt64(parts[3]);
  auto id = ParseInt64(parts[6]);
  if (!ik || !id) return bad();
  c.int_key = *ik;
  c.str_key = std::string(parts[4]);
  c.name_key = std::string(parts[5]);
  c.id = *id;
  return std::optional<meta::NodeCursor>(std::move(c));
}

meta::NodeCursor CursorOf(const NodeRow& n, meta::NodeSort sort) {
  meta::NodeCursor c;
  c.kind = n.kind;
  if (sort == meta::NodeSort::kSize) c.int_key = static_cast<int64_t>(n.size);
  if (sort == meta::NodeSort::kModified) c.int_key = n.mtime_ms;
  if (sort == meta::NodeSort::kType) c.str_key = n.mime;
  c.name_key = n.name_key;
  c.id = n.id;
  return c;
}

}  // namespace

Result<Page> Files::List(int64_t user, std::string_view folder_id, meta::NodeSort sort,
                         bool descending, std::string_view cursor, size_t limit, bool bare) {
  const char tag = static_cast<char>('a' + static_cast<int>(sort) * 2 + (descending ? 1 : 0));
  NUBO_ASSIGN_OR_RETURN(auto after, DecodeCursor(cursor, tag));
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow folder, Access(t, user, folder_id, Want::kLive));
    if (!folder.folder()) return NodeNotFound();  // a file has no children to list
    page.folder = folder;
    // Folders first whatever the direction: page through folders, then
    // continue with files from their start. Fetch one extra row to know
    // whether another page exists.
    const size_t want = limit + 1;
    if (!after || after->kind == NodeKind::kFolder) {
      NUBO_ASSIGN_OR_RETURN(page.items, t.ListChildren(folder.id, NodeKind::kFolder, sort,
                                                       descending, after, want, bare ? 0 : user));
    }
    if (page.items.size() < want) {
      std::optional<meta::NodeCursor> file_after;
      if (after && after->kind == NodeKind::kFile) file_after = after;
      NUBO_ASSIGN_OR_RETURN(auto files,
                            t.ListChildren(folder.id, NodeKind::kFile, sort, descending, file_after,
                                           want - page.items.size(), bare ? 0 : user));
      if (page.items.empty()) {
        page.items = std::move(files);
      } else {
        page.items.reserve(page.items.size() + files.size());
        for (auto& f : files) page.items.push_back(std::move(f));
      }
    }
    return Status::Ok();
  }));
  if (page.items.size() > limit) {
    page.items.resize(limit);
    page.next_cursor = EncodeCursor(tag, CursorOf(page.items.back(), sort));
  }
  if (!bare) {
    for (NodeRow& n : page.items) n.parent_public_id = std::string(folder_id);
  }
  return page;
}

Result<Page> Files::ListTrash(int64_t user, std::string_view cursor, size_t limit) {
  std::optional<std::pair<int64_t, int64_t>> before;
  if (!cursor.empty()) {
    auto raw = HexDecode(cursor);
    auto parts = raw ? Split(*raw, '\n') : std::vector<std::string_view>{};
    std::optional<int64_t> at, id;
    if (parts.size() == 3 && parts[0] == "t1") {
      at = ParseInt64(parts[1]);
      id = ParseInt64(parts[2]);
    }
    if (!at || !id) return Status::InvalidArgument("malformed cursor");
    before = std::make_pair(*at, *id);
  }
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(user));
    if (!d) return Status::NotFound("this account has no personal drive");
    NUBO_ASSIGN_OR_RETURN(page.items, t.ListTrash(d->id, before, limit + 1, user));
    return Status::Ok();
  }));
  if (page.items.size() > limit) {
    page.items.resize(limit);
    const NodeRow& last = page.items.back();
    std::string raw =
        "t1\n" + std::to_string(last.trashed_at_ms.value_or(0)) + "\n" + std::to_string(last.id);
    page.next_cursor = HexEncode(raw.data(), raw.size());
  }
  return page;
}

Status Files::SetFavorite(int64_t user, std::string_view id, bool favorite) {
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(NodeRow n, Access(t, user, id, Want::kLive));
    return favorite ? t.AddFavorite(user, n.id, UnixMillis()) : t.RemoveFavorite(user, n.id);
  });
}

Result<Page> Files::ListFavorites(int64_t user, std::string_view cursor, size_t limit) {
  std::optional<int64_t> before;
  if (!cursor.empty()) {
    before = ParseInt64(cursor);
    if (!before) return Status::InvalidArgument("malformed cursor");
  }
  Page page;
  std::vector<std::pair<int64_t, NodeRow>> rows;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(rows, t.ListFavorites(user, before, limit + 1));
    return Status::Ok();
  }));
  for (size_t i = 0; i < rows.size() && i < limit; ++i)
    page.items.push_back(std::move(rows[i].second));
  if (rows.size() > limit) page.next_cursor = std::to_string(rows[limit - 1].first);
  return page;
}

void Files::NoteRecent(int64_t user, int64_t node_id) {
  std::lock_guard lock(recent_mu_);
  // Bounded: under a flood of downloads the oldest notes are the least
  // useful; recent is a convenience list, never a record.
  if (recent_.size() >= 10000) recent_.erase(recent_.begin());
  recent_.emplace_back(user, node_id);
}

Status Files::FlushRecent() {
  std::vector<std::pair<int64_t, int64_t>> batch;
  {
    std::lock_guard lock(recent_mu_);
    batch.swap(recent_);
  }
  if (batch.empty()) return Status::Ok();
  const int64_t now = UnixMillis();
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    for (const auto& [user, node] : batch) {
      NUBO_ASSIGN_OR_RETURN(auto n, t.GetNode(node, user));
      if (!n) continue;  // deleted meanwhile
      NUBO_RETURN_IF_ERROR(t.TouchRecent(user, node, now, options_.recent_keep));
    }
    return Status::Ok();
  });
}

Result<Page> Files::ListRecent(int64_t user, size_t limit) {
  NUBO_RETURN_IF_ERROR(FlushRecent());
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(page.items, t.ListRecent(user, std::min(limit, options_.recent_keep)));
    return Status::Ok();
  }));
  return page;
}

Result<Page> Files::Search(int64_t user, meta::SearchFilter filter, std::string_view query,
                           std::string_view cursor, size_t limit) {
  if (query.empty()) return Status::InvalidArgument("q must not be empty");
  if (query == "." || query == "..") {
    filter.needle = std::string(query);
  } else {
    auto norm = NormalizeName(query);
    if (!norm.ok()) return Status::InvalidArgument("q: " + norm.status().message());
    filter.needle = NameKey(*norm);
  }
  std::optional<std::pair<std::string, int64_t>> after;
  if (!cursor.empty()) {
    auto raw = HexDecode(cursor);
    auto parts = raw ? Split(*raw, '\n') : std::vector<std::string_view>{};
    std::optional<int64_t> id;
    if (parts.size() == 3 && parts[0] == "s1") id = ParseInt64(parts[2]);
    if (!id) return Status::InvalidArgument("malformed cursor");
    after = std::make_pair(std::string(parts[1]), *id);
  }
  Page page;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto d, t.GetPersonalDrive(user));
    if (!d) return Status::NotFound("this account has no personal drive");
    NUBO_ASSIGN_OR_RETURN(page.items, t.SearchNodes(d->id, filter, after, limit + 1, user));
    return Status::Ok();
  }));
  if (page.items.size() > limit) {
    page.items.resize(limit);
    std::string raw =
        "s1\n" + page.items.back().name_key + "\n" + std::to_string(page.items.back().id);
    page.next_cursor = HexEncode(raw.data(), raw.size());
  }
  return page;
}

}  // namespace nubo::files
