// The SQLite backend's drives and nodes: lookups, keyset listings, sync
// changes and tombstones, trash, favourites and recent items, quota
// reservations and the fsck checks of node rollups.

#include <algorithm>
#include <array>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "meta/sqlite/sqlite_history.h"
#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

constexpr const char* kDriveSelect =
    "SELECT id, public_id, kind, name, owner_id, COALESCE(root_id, 0), change_seq, created_at, "
    "props_bytes, quota_bytes, versions_bytes FROM drives ";

DriveRow DriveFrom(const Stmt& s) {
  DriveRow d;
  d.id = s.Int(0);
  d.public_id = s.Text(1);
  d.kind = s.Text(2);
  d.name = s.Text(3);
  if (!s.IsNull(4)) d.owner_id = s.Int(4);
  d.root_id = s.Int(5);
  d.change_seq = s.Int(6);
  d.created_at_ms = s.Int(7);
  d.props_bytes = s.Int(8);
  if (!s.IsNull(9)) d.quota_bytes = s.Int(9);
  d.versions_bytes = s.Int(10);
  return d;
}

// A listing's columns: not the parent and kind its statement fixes, nor the
// trash columns, empty for every live node. Each column is paid per row
// (a 10,000-file listing: 0.92× the time on PostgreSQL, 0.95× on SQLite;
// bench/results/2026-12-04-pg-listing-pages.md). The first 11 are all that
// ListColumns::kBasic reads; kAll reads the five after them too.
// The viewer's favourites are read apart (ListChildrenInto).
#define NUBO_BASIC_LISTED_COLS                                                              \
  "n.id, n.name, n.name_key, n.manifest_id, n.size, n.mime, n.mtime, n.ctime, n.tree_seq, " \
  "n.content_hash, n.sort_key"
#define NUBO_LISTED_COLS \
  NUBO_BASIC_LISTED_COLS ", n.public_id, n.drive_id, n.created_by, n.updated_by, n.child_count"

// Fills every field of `n` (a row of an earlier page, reused: assigning
// into its strings keeps their storage instead of a malloc and a free per
// string per row); those `columns` did not read are left empty.
void FillListedNode(const Stmt& s, ListColumns columns, int64_t parent_id, NodeKind kind,
                    NodeRow& n) {
  n.id = s.Int(0);
  n.parent_id = parent_id;
  n.name.assign(s.View(1));
  n.name_key.assign(s.View(2));
  n.sort_key.assign(s.BlobView(10));
  n.kind = kind;
  n.manifest_id = OptInt(s, 3);
  n.size = static_cast<uint64_t>(s.Int(4));
  n.mime.assign(s.View(5));
  n.mtime_ms = s.Int(6);
  n.ctime_ms = s.Int(7);
  n.tree_seq = s.Int(8);
  n.hash = s.IsNull(9) ? Digest{} : s.Hash(9);
  if (columns == ListColumns::kAll) {
    n.public_id.assign(s.View(11));
    n.drive_id = s.Int(12);
    n.created_by = s.Int(13);
    n.updated_by = s.Int(14);
    n.child_count = s.Int(15);
  } else {
    n.public_id.clear();
    n.drive_id = n.created_by = n.updated_by = n.child_count = 0;
  }
  n.trashed_at_ms.reset();
  n.trash_root.reset();
  n.trash_parent.reset();
  n.favorite = false;
  n.parent_public_id.clear();
}

// Parameters ?3..?18 shared by InsertNode and UpdateNode.
void BindNodeFields(Stmt& s, const NodeRow& n) {
  BindOpt(s, 3, n.parent_id);
  s.Bind(4, n.name).Bind(5, n.name_key).BindBlob(18, n.sort_key);
  BindOpt(s, 7, n.manifest_id);
  s.Bind(8, static_cast<int64_t>(n.size)).Bind(9, n.mime).Bind(10, n.mtime_ms).Bind(12, n.tree_seq);
  BindOpt(s, 13, n.trashed_at_ms);
  BindOpt(s, 14, n.trash_root);
  BindOpt(s, 15, n.trash_parent);
  s.Bind(17, n.updated_by);
}

// A listing statement. Parameters: ?1 viewer, ?2 parent, ?3 kind, ?4 limit,
// ?5 `key`'s value, ?6 sort_key, ?7 id; no `key`: by sort_key alone. The
// rows no longer depend on the viewer (favourites are read apart, in
// ListChildrenInto): `?1 = ?1` keeps its number in the statement, so the
// others keep theirs and PostgreSQL still learns its type. The kind is
// written as a literal (`?3 = ?3` keeps its number): SQLite uses a partial
// index (`WHERE kind = 1`) only for a statement whose own terms imply it,
// and a term the index implies is not tested again for each row.
std::string ListStatement(const char* cols, NodeKind kind, const char* key, bool desc, bool after) {
  const char* dir = desc ? " DESC" : "";
  // Every row's parent is the listed folder: the caller fills
  // parent_public_id once instead of a lookup per row.
  std::string q = std::string("SELECT ") + cols +
                  " FROM nodes n "
                  "WHERE n.parent_id = ?2 AND n.kind = " +
                  (kind == NodeKind::kFolder ? "0" : "1") +
                  " AND n.trash_root IS NULL AND ?1 = ?1 AND ?3 = ?3 ";
  if (after) {
    q += key ? std::string("AND (") + key + ", n.sort_key, n.id) " + (desc ? "<" : ">") +
                   " (?5, ?6, ?7) "
             : std::string("AND (n.sort_key, n.id) ") + (desc ? "<" : ">") + " (?6, ?7) ";
  }
  q += "ORDER BY ";
  if (key) q += std::string(key) + dir + ", ";
  q += std::string("n.sort_key") + dir + ", n.id" + dir + " LIMIT ?4";
  return q;
}

// The listing statements, one per (columns, kind, sort, direction, first
// page or not), and for folders by size four more; built once so each
// keeps a stable address for the statement cache.
//
// Files by size walk nodes_list_size, whose key is list_size (a file's
// size, 0 for a folder) rather than size: a folder's size changes with
// every upload below it, and on PostgreSQL a changed indexed column makes
// the update write a new entry into every index of nodes (no HOT update).
// Folders by size are sorted instead — there are few beside the files.
//
// On SQLite, files by name with the basic columns read nothing but
// nodes_list_files, which holds those columns (migration 0033).
const std::string& ListSql(NodeKind kind, NodeSort sort, bool desc, bool after,
                           ListColumns columns) {
  static constexpr const char* kKeys[] = {nullptr, "n.list_size", "n.mtime", "n.mime", "n.size"};
  static const std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const char* cols : {NUBO_LISTED_COLS, NUBO_BASIC_LISTED_COLS}) {
      for (NodeKind k : {NodeKind::kFolder, NodeKind::kFile}) {
        for (const char* key : kKeys) {
          for (bool d : {false, true}) {
            for (bool a : {false, true}) v.push_back(ListStatement(cols, k, key, d, a));
          }
        }
      }
    }
    return v;
  }();
  const size_t set = kind == NodeKind::kFolder && sort == NodeSort::kSize
                         ? 4  // "n.size"
                         : static_cast<size_t>(sort);
  constexpr size_t kPerKind = std::size(kKeys) * 4;
  const size_t at = (columns == ListColumns::kBasic ? 2 : 0) + (kind == NodeKind::kFile ? 1 : 0);
  return all[at * kPerKind + set * 4 + (desc ? 2 : 0) + (after ? 1 : 0)];
}

}  // namespace

const std::string& ListChildrenSql(NodeKind kind, NodeSort sort, bool descending, bool after,
                                   ListColumns columns) {
  return ListSql(kind, sort, descending, after, columns);
}

Result<std::optional<DriveRow>> SqliteTxn::GetDrive(int64_t id) {
  static const std::string sql = std::string(kDriveSelect) + "WHERE id = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, id);
  return One<DriveRow>(s, DriveFrom);
}

Result<std::optional<DriveRow>> SqliteTxn::GetPersonalDrive(int64_t owner_id) {
  static const std::string sql =
      std::string(kDriveSelect) + "WHERE owner_id = ? AND kind = 'personal'";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, owner_id);
  return One<DriveRow>(s, DriveFrom);
}

Result<std::optional<NodeRow>> SqliteTxn::GetNode(int64_t id, int64_t viewer) {
  static const std::string sql = std::string(kNodeSelect) + "WHERE n.id = ?2";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, id);
  return One<NodeRow>(s, NodeFrom);
}

Result<std::vector<NodeRow>> SqliteTxn::GetNodes(const std::vector<int64_t>& ids, int64_t viewer) {
  if (ids.empty()) return std::vector<NodeRow>();
  if (!pg()) {
    // In process, a lookup by key per id costs less than reading the ids
    // out of JSON into a temporary index first (bench/places_ab.py: 0.96).
    // Each id once, as the statement's IN gives them.
    std::vector<int64_t> once(ids);
    std::sort(once.begin(), once.end());
    once.erase(std::unique(once.begin(), once.end()), once.end());
    std::vector<NodeRow> out;
    out.reserve(once.size());
    for (int64_t id : once) {
      NUBO_ASSIGN_OR_RETURN(auto n, GetNode(id, viewer));
      if (n) out.push_back(std::move(*n));
    }
    return out;
  }
  // On PostgreSQL the ids go in an array, looked up by key (a semi join
  // with json_each's rows may be planned as a scan of nodes).
  static const std::string sql =
      std::string(kNodeSelect) + "WHERE n.id = ANY (ARRAY(SELECT value FROM json_each(?2)))";
  const std::string list = JsonIds(ids);
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, list);
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::optional<NodeRow>> SqliteTxn::GetNodeByPublicId(const std::string& public_id,
                                                            int64_t viewer) {
  static const std::string sql = std::string(kNodeSelect) + "WHERE n.public_id = ?2";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, public_id);
  return One<NodeRow>(s, NodeFrom);
}

Result<std::optional<NodeRow>> SqliteTxn::FindChild(int64_t parent_id, const std::string& name_key,
                                                    int64_t viewer) {
  static const std::string sql =
      std::string(kNodeSelect) +
      "WHERE n.parent_id = ?2 AND n.name_key = ?3 AND n.trash_root IS NULL";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, parent_id).Bind(3, name_key);
  return One<NodeRow>(s, NodeFrom);
}

Status SqliteTxn::ListChildrenInto(int64_t parent_id, NodeKind kind, NodeSort sort, bool descending,
                                   const std::optional<NodeCursor>& after, size_t limit,
                                   int64_t viewer, std::vector<NodeRow>& out, size_t at,
                                   ListColumns columns) {
  const std::string& sql = ListSql(kind, sort, descending, after.has_value(), columns);
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, parent_id).Bind(3, static_cast<int64_t>(kind));
  s.Bind(4, static_cast<int64_t>(limit));
  if (after) {
    switch (sort) {
      case NodeSort::kName:
        break;
      case NodeSort::kSize:
      case NodeSort::kModified:
        s.Bind(5, after->int_key);
        break;
      case NodeSort::kType:
        s.Bind(5, after->str_key);
        break;
    }
    s.BindBlob(6, after->sort_key).Bind(7, after->id);
  }
  out.reserve(at + std::min<size_t>(limit, 1024));
  size_t i = at;
  for (;; ++i) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    if (i == out.size()) {
      // Room for a typical row up front: rows of later pages differ in
      // length, and a string that has to grow reallocates anyway.
      NodeRow& n = out.emplace_back();
      n.name.reserve(64);
      n.name_key.reserve(64);
      n.sort_key.reserve(96);
      n.mime.reserve(32);
    }
    FillListedNode(s, columns, parent_id, kind, out[i]);
  }
  out.resize(i);
  if (viewer == 0 || i == at) return Status::Ok();
  // The viewer's favourites in this folder, in one statement rather than a
  // probe per row (on PostgreSQL a subplan run for every row listed): a
  // person has few, so they are walked and each one's parent checked.
  // CROSS JOIN keeps that order on SQLite, whose planner otherwise walked
  // every member of the folder for each page (a 10,000-file listing: 50
  // pages of 10,000 probes).
  NUBO_PREPARE(f, c_,
               "SELECT f.node_id FROM favorites f CROSS JOIN nodes n "
               "WHERE n.id = f.node_id AND f.user_id = ? AND n.parent_id = ?");
  f.Bind(1, viewer).Bind(2, parent_id);
  std::vector<int64_t> favorites;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, f.Step());
    if (!row) break;
    favorites.push_back(f.Int(0));
  }
  if (favorites.empty()) return Status::Ok();
  std::sort(favorites.begin(), favorites.end());
  for (size_t k = at; k < out.size(); ++k) {
    out[k].favorite = std::binary_search(favorites.begin(), favorites.end(), out[k].id);
  }
  return Status::Ok();
}

Result<std::vector<NodeRow>> SqliteTxn::ChangedChildren(int64_t parent_id, int64_t since_seq,
                                                        int64_t since_id, int64_t through,
                                                        size_t limit, int64_t viewer) {
  // The parent's children through nodes_by_parent, sorted by change: a
  // folder's members, no index of their own on tree_seq to keep writes
  // cheap.
  static const std::string sql =
      std::string(kNodeSelect) +
      "WHERE n.parent_id = ?2 AND n.trash_root IS NULL AND (n.tree_seq, n.id) > (?3, ?4) "
      "AND n.tree_seq <= ?5 AND ?1 = ?1 ORDER BY n.tree_seq, n.id LIMIT ?6";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, parent_id).Bind(3, since_seq).Bind(4, since_id).Bind(5, through);
  s.Bind(6, static_cast<int64_t>(limit));
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<TombstoneRow>> SqliteTxn::Tombstones(int64_t parent_id, int64_t since,
                                                        int64_t through, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT seq, name, folder FROM node_tombstones WHERE parent_id = ? AND seq > ? "
               "AND seq <= ? ORDER BY seq LIMIT ?");
  s.Bind(1, parent_id).Bind(2, since).Bind(3, through).Bind(4, static_cast<int64_t>(limit));
  return Rows<TombstoneRow>(s, [](const Stmt& r) {
    return TombstoneRow{r.Int(0), r.Text(1), r.Int(2) != 0};
  });
}

Result<int64_t> SqliteTxn::SyncFloor(int64_t drive_id) {
  NUBO_PREPARE(s, c_, "SELECT sync_floor FROM drives WHERE id = ?");
  s.Bind(1, drive_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::NotFound("no such drive");
  return s.Int(0);
}

Result<std::vector<NodeRow>> SqliteTxn::ListChildrenById(int64_t parent_id, int64_t after_id,
                                                         size_t limit, bool include_trashed) {
  static const std::string live = std::string(kNodeSelect) +
                                  "WHERE n.parent_id = ?2 AND n.id > ?3 AND n.trash_root IS NULL "
                                  "AND ?1 = ?1 ORDER BY n.id LIMIT ?4";
  static const std::string all =
      std::string(kNodeSelect) +
      "WHERE n.parent_id = ?2 AND n.id > ?3 AND ?1 = ?1 ORDER BY n.id LIMIT ?4";
  NUBO_PREPARE(s, c_, include_trashed ? all.c_str() : live.c_str());
  s.Bind(1, int64_t{0}).Bind(2, parent_id).Bind(3, after_id).Bind(4, static_cast<int64_t>(limit));
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<NodeRow>> SqliteTxn::Ancestors(int64_t id) {
  // On PostgreSQL the chain's ids as an array, each looked up by key (a
  // join with the chain was a hash join over a scan of every node), in
  // the chain's order.
  static const std::string anc =
      "WITH RECURSIVE anc(id, depth) AS (SELECT CAST(?2 AS BIGINT), 0 UNION ALL "
      "SELECT p.parent_id, anc.depth + 1 FROM nodes p JOIN anc ON p.id = anc.id "
      "WHERE p.parent_id IS NOT NULL) " +
      std::string(kNodeSelect);
  static const std::string sql[2] = {
      anc + "JOIN anc ON anc.id = n.id WHERE ?1 = ?1 ORDER BY anc.depth",
      anc +
          "WHERE n.id = ANY (ARRAY(SELECT id FROM anc)) AND ?1 = ?1 "
          "ORDER BY array_position(ARRAY(SELECT id FROM anc ORDER BY depth), n.id)"};
  NUBO_PREPARE(s, c_, sql[pg()].c_str());
  s.Bind(1, int64_t{0}).Bind(2, id);
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<int64_t>> SqliteTxn::SubtreeManifests(int64_t id) {
  auto text = [](bool pg) {
    return SubtreeSql(pg, "",
                      "SELECT n.manifest_id FROM nodes n WHERE n.manifest_id IS NOT NULL AND n.id ",
                      std::string(" UNION ALL SELECT v.manifest_id FROM file_versions v WHERE "
                                  "v.node_id ") +
                          (pg ? "= ANY (ARRAY(SELECT id FROM sub))" : "IN (SELECT id FROM sub)"));
  };
  static const std::string sql[2] = {text(false), text(true)};
  NUBO_PREPARE(s, c_, sql[pg()].c_str());
  s.Bind(1, id);
  return Rows<int64_t>(s, FirstInt);
}

Result<std::vector<int64_t>> SqliteTxn::InnerTrashRoots(int64_t id) {
  // Walk down without entering a trashed-on-its-own node; report those.
  NUBO_PREPARE(
      s, c_,
      "WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT n.id FROM nodes n "
      "JOIN sub "
      "ON n.parent_id = sub.id WHERE n.trashed_at IS NULL) "
      "SELECT c.id FROM nodes c JOIN sub ON c.parent_id = sub.id WHERE c.trashed_at IS NOT NULL "
      "ORDER BY c.id");
  s.Bind(1, id);
  return Rows<int64_t>(s, FirstInt);
}

Result<std::vector<NodeRow>> SqliteTxn::ListTrash(int64_t drive_id,
                                                  std::optional<std::pair<int64_t, int64_t>> before,
                                                  size_t limit, int64_t viewer) {
  static const std::string sql =
      std::string(kNodeSelect) +
      "WHERE n.drive_id = ?2 AND n.trashed_at IS NOT NULL AND (n.trashed_at, n.id) < (?3, ?4) "
      "ORDER BY n.trashed_at DESC, n.id DESC LIMIT ?5";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, viewer).Bind(2, drive_id);
  s.Bind(3, before ? before->first : INT64_MAX).Bind(4, before ? before->second : INT64_MAX);
  s.Bind(5, static_cast<int64_t>(limit));
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<NodeRow>> SqliteTxn::ListOldestTrash(int64_t drive_id, size_t limit) {
  static const std::string sql = std::string(kNodeSelect) +
                                 "WHERE n.drive_id = ?2 AND n.trashed_at IS NOT NULL AND ?1 = ?1 "
                                 "ORDER BY n.trashed_at, n.id LIMIT ?3";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, int64_t{0}).Bind(2, drive_id).Bind(3, static_cast<int64_t>(limit));
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<int64_t>> SqliteTxn::ListExpiredTrash(int64_t before_ms, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT id FROM nodes WHERE trashed_at IS NOT NULL AND trashed_at <= ? "
               "ORDER BY trashed_at LIMIT ?");
  s.Bind(1, before_ms).Bind(2, static_cast<int64_t>(limit));
  return Rows<int64_t>(s, FirstInt);
}

Result<std::optional<int64_t>> SqliteTxn::FindDriveManifest(int64_t drive_id, const Digest& hash) {
  NUBO_PREPARE(s, c_,
               "SELECT m.id FROM manifests m JOIN nodes n ON n.manifest_id = m.id "
               "WHERE m.hash = ? AND n.drive_id = ? LIMIT 1");
  s.Bind(1, hash).Bind(2, drive_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

Result<std::vector<std::pair<int64_t, NodeRow>>> SqliteTxn::ListFavorites(
    int64_t user_id, std::optional<int64_t> before_seq, size_t limit) {
  static const std::string sql = "SELECT " + std::string(kNodeCols) +
                                 ", fav.seq FROM favorites fav JOIN nodes n ON n.id = fav.node_id "
                                 "WHERE fav.user_id = ?1 AND fav.seq < ?2 AND n.trash_root IS NULL "
                                 "ORDER BY fav.seq DESC LIMIT ?3";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, user_id).Bind(2, before_seq.value_or(INT64_MAX)).Bind(3, static_cast<int64_t>(limit));
  std::vector<std::pair<int64_t, NodeRow>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.emplace_back(s.Int(kNodeColCount), NodeFrom(s));
  }
}

Result<std::vector<NodeRow>> SqliteTxn::ListRecent(int64_t user_id, size_t limit) {
  static const std::string sql = "SELECT " + std::string(kNodeCols) +
                                 " FROM recent r JOIN nodes n ON n.id = r.node_id "
                                 "WHERE r.user_id = ?1 AND n.trash_root IS NULL "
                                 "ORDER BY r.seq DESC LIMIT ?2";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, user_id).Bind(2, static_cast<int64_t>(limit));
  return Rows<NodeRow>(s, NodeFrom);
}

Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> SqliteTxn::FolderRollupMismatches(
    size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT public_id, size, want FROM (SELECT f.public_id, f.size, "
               "(SELECT COALESCE(SUM(c.size), 0) FROM nodes c WHERE c.parent_id = f.id "
               "AND c.trash_root IS NOT DISTINCT FROM f.trash_root) AS want FROM nodes f WHERE "
               "f.kind = 0) sums "
               "WHERE size != want LIMIT ?");
  s.Bind(1, static_cast<int64_t>(limit));
  using Row = std::tuple<std::string, int64_t, int64_t>;
  return Rows<Row>(s, [](const Stmt& r) { return Row{r.Text(0), r.Int(1), r.Int(2)}; });
}

Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> SqliteTxn::ChildCountMismatches(
    size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT public_id, child_count, want FROM (SELECT f.public_id, f.child_count, "
               "(SELECT COUNT(*) FROM nodes c WHERE c.parent_id = f.id "
               "AND c.trash_root IS NULL) AS want FROM nodes f WHERE f.kind = 0) sums "
               "WHERE child_count != want LIMIT ?");
  s.Bind(1, static_cast<int64_t>(limit));
  using Row = std::tuple<std::string, int64_t, int64_t>;
  return Rows<Row>(s, [](const Stmt& r) { return Row{r.Text(0), r.Int(1), r.Int(2)}; });
}

Result<std::vector<std::string>> SqliteTxn::ChildKeysWithPrefix(int64_t parent_id,
                                                                const std::string& prefix,
                                                                size_t limit) {
  // A prefix is a key range ["prefix", "prefix\xff"): keys are UTF-8,
  // which never holds 0xFF, and compare bytewise; the sibling index
  // serves it. PostgreSQL takes only valid UTF-8 as text: there the
  // bound is the last code point, U+10FFFF (a noncharacter no name is
  // expected to hold right after the prefix).
  NUBO_PREPARE(s, c_,
               "SELECT name_key FROM nodes WHERE parent_id = ?1 AND trash_root IS NULL "
               "AND name_key >= ?2 AND name_key < ?4 ORDER BY name_key LIMIT ?3");
  const std::string hi = prefix + (pg() ? "\xf4\x8f\xbf\xbf" : "\xff");
  s.Bind(1, parent_id).Bind(2, prefix).Bind(3, static_cast<int64_t>(limit)).Bind(4, hi);
  return Rows<std::string>(s, [](const Stmt& r) { return r.Text(0); });
}

Result<std::vector<std::string>> SqliteTxn::TakenChildKeys(
    int64_t parent_id, const std::vector<std::string>& name_keys) {
  if (name_keys.empty()) return std::vector<std::string>();
  // Each key is a probe of the sibling index; PostgreSQL reads the array
  // with its own JSON function (the schema's json_each lists ids).
  static const char* const sql[2] = {
      "SELECT name_key FROM nodes WHERE parent_id = ?1 AND trash_root IS NULL "
      "AND name_key IN (SELECT value FROM json_each(?2))",
      "SELECT name_key FROM nodes WHERE parent_id = ?1 AND trash_root IS NULL "
      "AND name_key = ANY (ARRAY(SELECT json_array_elements_text(?2::json)))"};
  const std::string list = JsonStrings(name_keys);
  NUBO_PREPARE(s, c_, sql[pg()]);
  s.Bind(1, parent_id).Bind(2, list);
  return Rows<std::string>(s, [](const Stmt& r) { return r.Text(0); });
}

Result<std::vector<std::string>> SqliteTxn::NodeHashMismatches(size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT n.public_id FROM nodes n LEFT JOIN manifests m ON m.id = n.manifest_id "
               "WHERE n.content_hash IS DISTINCT FROM m.hash LIMIT ?");
  s.Bind(1, static_cast<int64_t>(limit));
  return Rows<std::string>(s, [](const Stmt& r) { return r.Text(0); });
}

Result<std::vector<std::pair<int64_t, std::string>>> SqliteTxn::NodesWithoutSortKey(
    int64_t after_id, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT id, name FROM nodes WHERE sort_key IS NULL AND id > ? ORDER BY id LIMIT ?");
  s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
  std::vector<std::pair<int64_t, std::string>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return out;
    out.emplace_back(s.Int(0), s.Text(1));
  }
}

Result<int64_t> SqliteTxn::ReservedBytes(int64_t drive_id, int64_t now_ms, int64_t except_id) {
  NUBO_PREPARE(s, c_,
               "SELECT COALESCE(SUM(bytes), 0) FROM quota_reservations "
               "WHERE drive_id = ? AND expires_at > ? AND id != ?");
  s.Bind(1, drive_id).Bind(2, now_ms).Bind(3, except_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : int64_t{0};
}

Result<int64_t> SqliteTxn::TrashBytes(int64_t drive_id) {
  NUBO_PREPARE(s, c_,
               "SELECT COALESCE(SUM(size), 0) FROM nodes "
               "WHERE drive_id = ? AND trashed_at IS NOT NULL");
  s.Bind(1, drive_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : int64_t{0};
}

Result<std::vector<int64_t>> SqliteTxn::ListQuotaDrives(int64_t after_id, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT d.id FROM drives d LEFT JOIN users u ON u.id = d.owner_id "
               "WHERE d.id > ? AND (u.quota_bytes IS NOT NULL OR d.quota_bytes IS NOT NULL) "
               "ORDER BY d.id LIMIT ?");
  s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
  return Rows<int64_t>(s, FirstInt);
}

Result<int64_t> SqliteTxn::InsertReservation(int64_t drive_id, int64_t bytes,
                                             int64_t expires_at_ms) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO quota_reservations (drive_id, bytes, expires_at) VALUES (?, ?, ?) "
               "RETURNING id");
  s.Bind(1, drive_id).Bind(2, bytes).Bind(3, expires_at_ms);
  return InsertedId(s);
}

Status SqliteTxn::UpdateReservation(int64_t id, int64_t bytes, int64_t expires_at_ms) {
  NUBO_PREPARE(s, c_, "UPDATE quota_reservations SET bytes = ?, expires_at = ? WHERE id = ?");
  s.Bind(1, bytes).Bind(2, expires_at_ms).Bind(3, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("quota reservation expired");
  return Status::Ok();
}

Status SqliteTxn::DeleteReservation(int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM quota_reservations WHERE id = ?");
  s.Bind(1, id);
  return s.Exec();
}

Result<int64_t> SqliteTxn::DeleteExpiredReservations(int64_t now_ms) {
  NUBO_PREPARE(s, c_, "DELETE FROM quota_reservations WHERE expires_at <= ?");
  s.Bind(1, now_ms);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return static_cast<int64_t>(s.changes());
}

Status SqliteTxn::InsertDrive(DriveRow& d) {
  NUBO_PREPARE(
      s, c_,
      "INSERT INTO drives (public_id, kind, name, owner_id, root_id, change_seq, created_at, "
      "quota_bytes) VALUES (?, ?, ?, ?, NULL, 0, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
  s.Bind(1, d.public_id).Bind(2, d.kind).Bind(3, d.name).Bind(5, d.created_at_ms);
  BindOpt(s, 4, d.owner_id);
  BindOpt(s, 6, d.quota_bytes);
  NUBO_ASSIGN_OR_RETURN(d.id, InsertedId(s));
  return Status::Ok();
}

Status SqliteTxn::SetDriveRoot(int64_t drive_id, int64_t root_id) {
  NUBO_PREPARE(s, c_, "UPDATE drives SET root_id = ? WHERE id = ?");
  s.Bind(1, root_id).Bind(2, drive_id);
  return s.Exec();
}

Result<int64_t> SqliteTxn::NextChangeSeq(int64_t drive_id) {
  NUBO_PREPARE(s, c_,
               "UPDATE drives SET change_seq = change_seq + 1 WHERE id = ? RETURNING change_seq");
  s.Bind(1, drive_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::NotFound("no such drive");
  int64_t seq = s.Int(0);
  NUBO_RETURN_IF_ERROR(s.Exec());  // finish the statement
  return seq;
}

Status SqliteTxn::AddTombstone(int64_t drive_id, int64_t parent_id, const std::string& name,
                               bool folder, int64_t seq, int64_t at_ms) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO node_tombstones (parent_id, seq, name, folder, drive_id, at) "
               "VALUES (?, ?, ?, ?, ?, ?)");
  s.Bind(1, parent_id).Bind(2, seq).Bind(3, name).Bind(4, int64_t{folder ? 1 : 0});
  s.Bind(5, drive_id).Bind(6, at_ms);
  return s.Exec();
}

Result<int64_t> SqliteTxn::PruneTombstones(int64_t before_ms) {
  {
    NUBO_PREPARE(
        s, c_,
        "UPDATE drives SET sync_floor = (SELECT CASE WHEN max(seq) > sync_floor THEN max(seq) "
        "ELSE sync_floor END FROM node_tombstones t WHERE t.drive_id = drives.id AND "
        "t.at < ?1) WHERE id IN "
        "(SELECT DISTINCT drive_id FROM node_tombstones WHERE at < ?1)");
    s.Bind(1, before_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  NUBO_PREPARE(s, c_, "DELETE FROM node_tombstones WHERE at < ?");
  s.Bind(1, before_ms);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return static_cast<int64_t>(s.changes());
}

Status SqliteTxn::InsertNode(NodeRow& n) {
#define NUBO_INSERT_NODE                                                                       \
  "INSERT INTO nodes (id, public_id, drive_id, parent_id, name, name_key, kind, manifest_id, " \
  "size, mime, mtime, ctime, tree_seq, trashed_at, trash_root, trash_parent, created_by, "     \
  "updated_by, content_hash, sort_key) VALUES ("
#define NUBO_INSERT_NODE_VALUES                                                            \
  ", ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "         \
  "(SELECT hash FROM manifests WHERE id = ?7), ?18) ON CONFLICT DO NOTHING RETURNING id, " \
  "content_hash"
  // Above every id given before, deleted ones included: Nextcloud clients
  // take a known file id for the same file. SQLite counts past its
  // node_id_floor; PostgreSQL's sequence never goes back (nor collides
  // between concurrent writers).
  NUBO_PREPARE(s, c_,
               c_.dialect() == sql::Dialect::kSqlite ? NUBO_INSERT_NODE
                   "(SELECT max(COALESCE((SELECT max(id) FROM nodes), 0), v) + 1 "
                   "FROM node_id_floor)" NUBO_INSERT_NODE_VALUES
                                                     : NUBO_INSERT_NODE
                   "nextval('node_ids')" NUBO_INSERT_NODE_VALUES);
#undef NUBO_INSERT_NODE
#undef NUBO_INSERT_NODE_VALUES
  s.Bind(1, n.public_id).Bind(2, n.drive_id);
  BindNodeFields(s, n);
  s.Bind(6, static_cast<int64_t>(n.kind)).Bind(11, n.ctime_ms).Bind(16, n.created_by);
  NUBO_ASSIGN_OR_RETURN(n.id, InsertedId(s));
  n.hash = s.IsNull(1) ? Digest{} : s.Hash(1);
  return Status::Ok();
}

Status SqliteTxn::UpdateNode(const NodeRow& n) {
  NUBO_PREPARE(
      s, c_,
      "UPDATE nodes SET parent_id = ?3, name = ?4, name_key = ?5, manifest_id = ?7, size = ?8, "
      "mime = ?9, mtime = ?10, tree_seq = ?12, trashed_at = ?13, trash_root = ?14, "
      "trash_parent = ?15, updated_by = ?17, sort_key = ?18, "
      "content_hash = (SELECT hash FROM manifests WHERE id = ?7) WHERE id = ?1");
  s.Bind(1, n.id);
  BindNodeFields(s, n);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() != 1) return Status::NotFound("no such node");
  return Status::Ok();
}

Status SqliteTxn::SetSortKey(int64_t id, const std::string& sort_key) {
  NUBO_PREPARE(s, c_, "UPDATE nodes SET sort_key = ? WHERE id = ?");
  s.BindBlob(1, sort_key).Bind(2, id);
  return s.Exec();
}

Status SqliteTxn::ClearSortKeys() {
  NUBO_PREPARE(s, c_, "UPDATE nodes SET sort_key = NULL WHERE sort_key IS NOT NULL");
  return s.Exec();
}

// The folder and its ancestors, then each of them updated by id. On
// PostgreSQL `id IN (SELECT id FROM anc)` was planned as a hash join over
// a scan of every row of nodes, once per upload (the planner guesses 101
// ancestors, which makes that the cheaper plan for a table of thousands
// of rows); the ids as an array are each looked up in the primary key,
// whatever the table's size.
const char* BumpAncestorsSql(bool pg) {
#define NUBO_ANCESTORS                                                                      \
  "WITH RECURSIVE anc(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL SELECT p.parent_id FROM " \
  "nodes p JOIN anc ON p.id = anc.id WHERE p.parent_id IS NOT NULL) "                       \
  "UPDATE nodes SET tree_seq = ?2, size = size + ?3 "
  return pg ? NUBO_ANCESTORS "WHERE id = ANY (ARRAY(SELECT id FROM anc))"
            : NUBO_ANCESTORS "WHERE id IN (SELECT id FROM anc)";
#undef NUBO_ANCESTORS
}

std::string SubtreeSql(bool pg, std::string_view filter, std::string_view head,
                       std::string_view tail) {
  std::string q;
  if (pg) {
    // Only folders are looked into: a file (most of what is trashed or
    // deleted) ends the walk before any member is looked for. A folder's
    // members are looked up by parent in a LATERAL subquery, a loop over
    // the folders found (OFFSET 0 keeps the planner from merging it into
    // a join, which on a table of thousands of rows was a hash join over a
    // scan of every node, level by level). The ids in the end as an
    // array, looked up by key.
    q = "WITH RECURSIVE sub(id, kind) AS (SELECT id, kind FROM nodes WHERE id = ?1 UNION ALL "
        "SELECT c.id, c.kind FROM sub CROSS JOIN LATERAL (SELECT n.id, n.kind FROM nodes n "
        "WHERE n.parent_id = sub.id";
    if (!filter.empty()) q.append(" AND ").append(filter);
    q += " OFFSET 0) c WHERE sub.kind = 0) ";
    q.append(head).append("= ANY (ARRAY(SELECT id FROM sub))");
  } else {
    q = "WITH RECURSIVE sub(id) AS (SELECT CAST(?1 AS BIGINT) UNION ALL "
        "SELECT n.id FROM nodes n JOIN sub ON n.parent_id = sub.id";
    if (!filter.empty()) q.append(" WHERE ").append(filter);
    q += ") ";
    q.append(head).append("IN (SELECT id FROM sub)");
  }
  q.append(tail);
  return q;
}

std::array<std::string, 2> SubtreeSqls(std::string_view filter, std::string_view head,
                                       std::string_view tail) {
  return {SubtreeSql(false, filter, head, tail), SubtreeSql(true, filter, head, tail)};
}

Status SqliteTxn::BumpAncestors(int64_t id, int64_t seq, int64_t size_delta) {
  NUBO_PREPARE(s, c_, BumpAncestorsSql(pg()));
  s.Bind(1, id).Bind(2, seq).Bind(3, size_delta);
  return s.Exec();
}

Status SqliteTxn::MarkSubtreeTrashed(int64_t root_id) {
  static const auto sql = SubtreeSqls(
      "n.trash_root IS NULL", "UPDATE nodes SET trash_root = ?1 WHERE trash_root IS NULL AND id ");
  NUBO_PREPARE(s, c_, sql[pg()].c_str());
  s.Bind(1, root_id);
  return s.Exec();
}

Status SqliteTxn::UnmarkSubtreeTrashed(int64_t root_id) {
  static const auto sql = SubtreeSqls(
      "n.trash_root = ?1", "UPDATE nodes SET trash_root = NULL WHERE trash_root = ?1 AND id ");
  NUBO_PREPARE(s, c_, sql[pg()].c_str());
  s.Bind(1, root_id);
  return s.Exec();
}

Result<int64_t> SqliteTxn::DeleteSubtree(int64_t id) {
  {
    // The subtree's dead properties go with it (ON DELETE CASCADE): take
    // their bytes off the drive first.
    auto text = [](bool pg) {
      return SubtreeSql(pg, "",
                        std::string("UPDATE drives SET props_bytes = props_bytes - (SELECT "
                                    "COALESCE(SUM(") +
                            kPropBytes[pg] + "), 0) FROM dead_props WHERE node_id ",
                        ") WHERE id = (SELECT drive_id FROM nodes WHERE id = ?1)");
    };
    static const std::string sql[2] = {text(false), text(true)};
    NUBO_PREPARE(s, c_, sql[pg()].c_str());
    s.Bind(1, id);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  // So do the versions of its files, and their charges.
  NUBO_RETURN_IF_ERROR(sqlite::DropSubtreeVersions(c_, id));
  static const auto sql = SubtreeSqls("", "DELETE FROM nodes WHERE id ");
  NUBO_PREPARE(s, c_, sql[pg()].c_str());
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return static_cast<int64_t>(s.changes());
}

Result<std::optional<DriveRow>> SqliteTxn::GetDriveByPublicId(const std::string& public_id) {
  static const std::string sql = std::string(kDriveSelect) + "WHERE public_id = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, public_id);
  return One<DriveRow>(s, DriveFrom);
}

Result<std::vector<std::pair<DriveRow, int>>> SqliteTxn::ListMemberDrives(
    int64_t user_id, const std::vector<int64_t>& groups) {
  static const std::string sql =
      "SELECT d.id, d.public_id, d.kind, d.name, d.owner_id, COALESCE(d.root_id, 0), "
      "d.change_seq, d.created_at, d.props_bytes, d.quota_bytes, d.versions_bytes, MAX(m.role) "
      "FROM drives d "
      "JOIN drive_members m ON m.drive_id = d.id WHERE m.member_user = ?1 OR m.member_group IN "
      "(SELECT value FROM json_each(?2)) GROUP BY d.id ORDER BY lower(d.name), d.id";
  NUBO_PREPARE(s, c_, sql.c_str());
  std::string list = JsonIds(groups);
  s.Bind(1, user_id).Bind(2, list);
  using Row = std::pair<DriveRow, int>;
  return Rows<Row>(s, [](const Stmt& r) { return Row{DriveFrom(r), static_cast<int>(r.Int(11))}; });
}

Result<int> SqliteTxn::DriveRoleOf(int64_t drive_id, int64_t user_id,
                                   const std::vector<int64_t>& groups) {
  NUBO_PREPARE(s, c_,
               "SELECT COALESCE(MAX(role), 0) FROM drive_members WHERE drive_id = ?1 AND "
               "(member_user = ?2 OR member_group IN (SELECT value FROM json_each(?3)))");
  std::string list = JsonIds(groups);
  s.Bind(1, drive_id).Bind(2, user_id).Bind(3, list);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? static_cast<int>(s.Int(0)) : 0;
}

Result<std::vector<DriveMemberRow>> SqliteTxn::ListDriveMembers(int64_t drive_id) {
  NUBO_PREPARE(s, c_,
               "SELECT 1, g.id, g.public_id, g.name, m.role, g.name_key AS k FROM drive_members m "
               "JOIN user_groups g ON g.id = m.member_group WHERE m.drive_id = ?1 "
               "UNION ALL SELECT 0, u.id, u.public_id, u.username, m.role, u.name_key AS k "
               "FROM drive_members m JOIN users u ON u.id = m.member_user WHERE m.drive_id = ?1 "
               "ORDER BY 1 DESC, 6");
  s.Bind(1, drive_id);
  return Rows<DriveMemberRow>(s, [](const Stmt& r) {
    return DriveMemberRow{r.Int(0) != 0, r.Int(1), r.Text(2), r.Text(3),
                          static_cast<int>(r.Int(4))};
  });
}

Status SqliteTxn::UpdateDrive(const DriveRow& d) {
  NUBO_PREPARE(s, c_, "UPDATE drives SET name = ?, quota_bytes = ? WHERE id = ?");
  s.Bind(1, d.name);
  BindOpt(s, 2, d.quota_bytes);
  s.Bind(3, d.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such drive");
}

Status SqliteTxn::DeleteDrive(int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM drives WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("no such drive");
}

Status SqliteTxn::SetDriveMember(int64_t drive_id, bool is_group, int64_t member_id, int role) {
  {
    NUBO_PREPARE(s, c_,
                 is_group ? "UPDATE drive_members SET role = ?3 WHERE drive_id = ?1 AND "
                            "member_group = ?2"
                          : "UPDATE drive_members SET role = ?3 WHERE drive_id = ?1 AND "
                            "member_user = ?2");
    s.Bind(1, drive_id).Bind(2, member_id).Bind(3, static_cast<int64_t>(role));
    NUBO_RETURN_IF_ERROR(s.Exec());
    if (s.changes()) return Status::Ok();
  }
  NUBO_PREPARE(s, c_,
               is_group ? "INSERT INTO drive_members (drive_id, member_group, role) VALUES (?, "
                          "?, ?) ON CONFLICT DO NOTHING"
                        : "INSERT INTO drive_members (drive_id, member_user, role) VALUES (?, ?, "
                          "?) ON CONFLICT DO NOTHING");
  s.Bind(1, drive_id).Bind(2, member_id).Bind(3, static_cast<int64_t>(role));
  return Inserted(s);
}

Status SqliteTxn::RemoveDriveMember(int64_t drive_id, bool is_group, int64_t member_id) {
  NUBO_PREPARE(s, c_,
               is_group ? "DELETE FROM drive_members WHERE drive_id = ? AND member_group = ?"
                        : "DELETE FROM drive_members WHERE drive_id = ? AND member_user = ?");
  s.Bind(1, drive_id).Bind(2, member_id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() ? Status::Ok() : Status::NotFound("not a member of this drive");
}

Status SqliteTxn::AddFavorite(int64_t user_id, int64_t node_id, int64_t now_ms) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO favorites (user_id, node_id, created_at, seq) VALUES (?1, ?2, ?3, "
               "(SELECT COALESCE(MAX(seq), 0) + 1 FROM favorites WHERE user_id = ?1)) "
               "ON CONFLICT DO NOTHING");
  s.Bind(1, user_id).Bind(2, node_id).Bind(3, now_ms);
  return s.Exec();
}

Status SqliteTxn::RemoveFavorite(int64_t user_id, int64_t node_id) {
  NUBO_PREPARE(s, c_, "DELETE FROM favorites WHERE user_id = ? AND node_id = ?");
  s.Bind(1, user_id).Bind(2, node_id);
  return s.Exec();
}

Status SqliteTxn::TouchRecent(int64_t user_id, int64_t node_id, int64_t now_ms) {
  // (The WHERE also tells SQLite's parser that ON CONFLICT belongs to the
  // INSERT, not to the SELECT.)
  NUBO_PREPARE(s, c_,
               "INSERT INTO recent (user_id, node_id, at, seq) SELECT ?1, ?2, ?3, "
               "(SELECT COALESCE(MAX(seq), 0) + 1 FROM recent WHERE user_id = ?1) "
               "WHERE EXISTS (SELECT 1 FROM nodes WHERE id = ?2) "
               "AND EXISTS (SELECT 1 FROM users WHERE id = ?1) "
               "ON CONFLICT (user_id, node_id) DO UPDATE SET at = excluded.at, seq = excluded.seq");
  s.Bind(1, user_id).Bind(2, node_id).Bind(3, now_ms);
  return s.Exec();
}

Status SqliteTxn::TrimRecent(int64_t user_id, size_t keep) {
  NUBO_PREPARE(s, c_,
               "DELETE FROM recent WHERE user_id = ?1 AND seq <= (SELECT seq FROM recent WHERE "
               "user_id = ?1 ORDER BY seq DESC LIMIT 1 OFFSET ?2)");
  s.Bind(1, user_id).Bind(2, static_cast<int64_t>(keep));
  return s.Exec();
}

}  // namespace nubo::meta::sqlite
