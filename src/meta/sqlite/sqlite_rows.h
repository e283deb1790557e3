// Row readers and SQL fragments that several of the SQLite backend's
// capability files share (node rows above all). Internal to meta/sqlite.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "meta/meta_store.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

inline std::string Lower(const std::string& v) {
  std::string out = v;
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// Node queries bind the viewer as ?1 (for the favorite flag).
#define NUBO_NODE_COLS                                                                         \
  "n.id, n.public_id, n.drive_id, n.parent_id, n.name, n.name_key, n.kind, n.manifest_id, "    \
  "n.size, n.mime, n.mtime, n.ctime, n.tree_seq, n.trashed_at, n.trash_root, n.trash_parent, " \
  "n.created_by, n.updated_by, n.content_hash, "                                               \
  "?1 != 0 AND EXISTS (SELECT 1 FROM favorites f WHERE f.user_id = ?1 AND f.node_id = n.id), " \
  "(SELECT p.public_id FROM nodes p WHERE p.id = n.parent_id), n.sort_key, n.child_count"

inline constexpr const char* kNodeCols = NUBO_NODE_COLS;

inline constexpr int kNodeColCount = 23;

inline constexpr const char* kNodeSelect = "SELECT " NUBO_NODE_COLS " FROM nodes n ";

inline std::optional<int64_t> OptInt(const Stmt& s, int col) {
  return s.IsNull(col) ? std::nullopt : std::optional<int64_t>(s.Int(col));
}

inline NodeRow NodeFrom(const Stmt& s) {
  NodeRow n;
  n.id = s.Int(0);
  n.public_id = s.Text(1);
  n.drive_id = s.Int(2);
  n.parent_id = OptInt(s, 3);
  n.name = s.Text(4);
  n.name_key = s.Text(5);
  n.kind = s.Int(6) == 1 ? NodeKind::kFile : NodeKind::kFolder;
  n.manifest_id = OptInt(s, 7);
  n.size = static_cast<uint64_t>(s.Int(8));
  n.mime = s.Text(9);
  n.mtime_ms = s.Int(10);
  n.ctime_ms = s.Int(11);
  n.tree_seq = s.Int(12);
  n.trashed_at_ms = OptInt(s, 13);
  n.trash_root = OptInt(s, 14);
  n.trash_parent = OptInt(s, 15);
  n.created_by = s.Int(16);
  n.updated_by = s.Int(17);
  if (!s.IsNull(18)) n.hash = s.Hash(18);
  n.favorite = s.Int(19) != 0;
  n.parent_public_id = s.Text(20);
  n.sort_key = s.Blob(21);
  n.child_count = s.Int(22);
  return n;
}

// Bytes a dead property costs the drive: its namespace, name and value
// (SQLite's length() counts characters unless given a blob), by dialect.
inline constexpr const char* kPropBytes[2] = {
    "length(CAST(ns AS BLOB)) + length(CAST(name AS BLOB)) + length(CAST(value AS BLOB))",
    "octet_length(ns) + octet_length(name) + octet_length(value)"};

}  // namespace nubo::meta::sqlite
