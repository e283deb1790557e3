// The SQLite backend's content metadata: manifests, chunks (with their
// reference counts and inline bytes) and pins.

#include <string>
#include <vector>

#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"
#include "util/time.h"

namespace nubo::meta::sqlite {

namespace {

ManifestRow ManifestFrom(const Stmt& s) {
  return ManifestRow{s.Int(0), s.Hash(1), static_cast<uint64_t>(s.Int(2)), s.Int(3)};
}

ChunkRow ChunkFrom(const Stmt& s) {
  ChunkRow r{s.Hash(0), static_cast<uint64_t>(s.Int(1)), s.Int(2), std::nullopt};
  if (!s.IsNull(3)) r.orphaned_at_ms = s.Int(3);
  r.inline_data = s.Int(4) != 0;
  return r;
}

// Rows in a few statements: `head` + kBatchRows times `values` + `tail`
// for as long as rows remain, then one a statement. A big file has
// thousands of chunks, and on PostgreSQL each statement is a round trip.
// `bind(s, i, row)`: the row's parameters as the i-th of the statement.
constexpr size_t kBatchRows = 32;

struct BatchedInsert {
  std::string many, one;
  BatchedInsert(const std::string& head, const std::string& values, const std::string& tail) {
    many = head;
    for (size_t i = 0; i < kBatchRows; ++i) many += (i ? ", " : "") + values;
    many += tail;
    one = head + values + tail;
  }
  template <class Row, class Bind>
  Status Run(sql::Conn& c, const std::vector<Row>& rows, Bind bind) const {
    size_t done = 0;
    if (rows.size() >= kBatchRows) {
      NUBO_PREPARE(s, c, many.c_str());
      for (; rows.size() - done >= kBatchRows; done += kBatchRows) {
        for (size_t i = 0; i < kBatchRows; ++i) bind(s, i, rows[done + i]);
        NUBO_RETURN_IF_ERROR(s.Exec());
        s.Reset();
      }
    }
    if (done == rows.size()) return Status::Ok();
    NUBO_PREPARE(s, c, one.c_str());
    for (; done < rows.size(); ++done) {
      bind(s, 0, rows[done]);
      NUBO_RETURN_IF_ERROR(s.Exec());
      s.Reset();
    }
    return Status::Ok();
  }
};

}  // namespace

Result<std::optional<ManifestRow>> SqliteTxn::FindManifest(const Digest& hash) {
  NUBO_PREPARE(s, c_, "SELECT id, hash, size, refs FROM manifests WHERE hash = ?");
  s.Bind(1, hash);
  return One<ManifestRow>(s, ManifestFrom);
}

Result<std::optional<ManifestRow>> SqliteTxn::GetManifest(int64_t id) {
  NUBO_PREPARE(s, c_, "SELECT id, hash, size, refs FROM manifests WHERE id = ?");
  s.Bind(1, id);
  return One<ManifestRow>(s, ManifestFrom);
}

Result<std::vector<ManifestChunk>> SqliteTxn::ManifestChunks(int64_t manifest_id) {
  // Inline chunks' bytes come along (tiny files: one read answers all).
  NUBO_PREPARE(s, c_,
               "SELECT m.seq, m.chunk_hash, m.\"offset\", m.size, c.data FROM manifest_chunks m "
               "LEFT JOIN chunks c ON c.hash = m.chunk_hash WHERE m.manifest_id = ? "
               "ORDER BY m.seq");
  s.Bind(1, manifest_id);
  std::vector<ManifestChunk> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ManifestChunk{static_cast<uint32_t>(s.Int(0)), s.Hash(1),
                                static_cast<uint64_t>(s.Int(2)), static_cast<uint32_t>(s.Int(3))});
    if (!s.IsNull(4)) out.back().data = s.Blob(4);
  }
  return out;
}

Result<std::string> SqliteTxn::ManifestChecksums(int64_t manifest_id) {
  NUBO_PREPARE(s, c_, "SELECT checksums FROM manifests WHERE id = ? AND checksums IS NOT NULL");
  s.Bind(1, manifest_id);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Text(0) : std::string();
}

Result<std::vector<std::pair<int64_t, std::string>>> SqliteTxn::ListManifestChecksums(
    const std::vector<int64_t>& manifest_ids) {
  const std::string ids = JsonIds(manifest_ids);
  NUBO_PREPARE(s, c_,
               "SELECT id, checksums FROM manifests WHERE id IN (SELECT value FROM json_each(?)) "
               "AND checksums IS NOT NULL");
  s.Bind(1, ids);
  return Rows<std::pair<int64_t, std::string>>(
      s, [](const Stmt& r) { return std::make_pair(r.Int(0), r.Text(1)); });
}

Result<std::optional<ChunkRow>> SqliteTxn::GetChunk(const Digest& hash) {
  NUBO_PREPARE(s, c_,
               "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks WHERE hash = ?");
  s.Bind(1, hash);
  return One<ChunkRow>(s, ChunkFrom);
}

Result<std::optional<std::string>> SqliteTxn::ChunkData(const Digest& hash) {
  NUBO_PREPARE(s, c_, "SELECT data FROM chunks WHERE hash = ? AND data IS NOT NULL");
  s.Bind(1, hash);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(s.Blob(0));
}

Result<std::vector<ManifestRow>> SqliteTxn::ListManifests(int64_t after_id, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT id, hash, size, refs FROM manifests WHERE id > ? ORDER BY id LIMIT ?");
  s.Bind(1, after_id).Bind(2, static_cast<int64_t>(limit));
  return Rows<ManifestRow>(s, ManifestFrom);
}

Result<std::vector<ChunkRow>> SqliteTxn::ListChunks(const std::optional<Digest>& after,
                                                    size_t limit) {
  std::vector<ChunkRow> out;
  auto collect = [&](Stmt& s) -> Status {
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
      if (!row) return Status::Ok();
      out.push_back(ChunkFrom(s));
    }
  };
  if (after) {
    NUBO_PREPARE(s, c_,
                 "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks WHERE hash "
                 "> ? ORDER BY hash LIMIT ?");
    s.Bind(1, *after).Bind(2, static_cast<int64_t>(limit));
    NUBO_RETURN_IF_ERROR(collect(s));
  } else {
    NUBO_PREPARE(s, c_,
                 "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks ORDER BY "
                 "hash LIMIT ?");
    s.Bind(1, static_cast<int64_t>(limit));
    NUBO_RETURN_IF_ERROR(collect(s));
  }
  return out;
}

Result<std::vector<ChunkRow>> SqliteTxn::ListOrphanChunks(int64_t before_ms, size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT hash, size, refs, orphaned_at, data IS NOT NULL FROM chunks WHERE refs = "
               "0 AND orphaned_at <= ? "
               "ORDER BY orphaned_at LIMIT ?");
  s.Bind(1, before_ms).Bind(2, static_cast<int64_t>(limit));
  return Rows<ChunkRow>(s, ChunkFrom);
}

Result<std::optional<int64_t>> SqliteTxn::GetPin(const std::string& name) {
  NUBO_PREPARE(s, c_, "SELECT manifest_id FROM pins WHERE name = ?");
  s.Bind(1, name);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

Result<std::vector<std::pair<std::string, int64_t>>> SqliteTxn::ListPins(const std::string& after,
                                                                         size_t limit) {
  NUBO_PREPARE(s, c_, "SELECT name, manifest_id FROM pins WHERE name > ? ORDER BY name LIMIT ?");
  s.Bind(1, after).Bind(2, static_cast<int64_t>(limit));
  std::vector<std::pair<std::string, int64_t>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.emplace_back(s.Text(0), s.Int(1));
  }
  return out;
}

Result<std::vector<std::pair<int64_t, int64_t>>> SqliteTxn::CountManifestReferences() {
  // Every referencing table: pins and file nodes (live or trashed).
  NUBO_PREPARE(s, c_,
               "SELECT manifest_id, COUNT(*) FROM (SELECT manifest_id FROM pins UNION ALL "
               "SELECT manifest_id FROM nodes WHERE manifest_id IS NOT NULL UNION ALL "
               "SELECT manifest_id FROM file_versions) refs "
               "GROUP BY manifest_id ORDER BY manifest_id");
  std::vector<std::pair<int64_t, int64_t>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.emplace_back(s.Int(0), s.Int(1));
  }
  return out;
}

Result<std::vector<std::pair<Digest, int64_t>>> SqliteTxn::CountChunkReferences() {
  NUBO_PREPARE(s, c_,
               "SELECT h, SUM(n) FROM (SELECT chunk_hash AS h, COUNT(DISTINCT manifest_id) AS n "
               "FROM manifest_chunks GROUP BY chunk_hash UNION ALL "
               "SELECT chunk_hash, COUNT(*) FROM upload_session_chunks GROUP BY chunk_hash "
               "UNION ALL SELECT tail_hash, COUNT(*) FROM upload_sessions "
               "WHERE tail_hash IS NOT NULL GROUP BY tail_hash) refs GROUP BY h ORDER BY h");
  std::vector<std::pair<Digest, int64_t>> out;
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.emplace_back(s.Hash(0), s.Int(1));
  }
  return out;
}

Result<int64_t> SqliteTxn::InsertManifest(const Digest& hash, uint64_t size,
                                          const std::vector<ManifestChunk>& chunks, int64_t refs) {
  int64_t id = 0;
  {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO manifests (hash, size, refs, created_at) VALUES (?, ?, ?, ?) ON "
                 "CONFLICT DO NOTHING RETURNING id");
    s.Bind(1, hash).Bind(2, static_cast<int64_t>(size)).Bind(3, refs).Bind(4, UnixMillis());
    NUBO_ASSIGN_OR_RETURN(id, InsertedId(s));
  }
  static const BatchedInsert insert(
      "INSERT INTO manifest_chunks (manifest_id, seq, chunk_hash, \"offset\", size) VALUES ",
      "(?, ?, ?, ?, ?)", "");
  NUBO_RETURN_IF_ERROR(insert.Run(c_, chunks, [id](Stmt& s, size_t row, const ManifestChunk& ch) {
    const int p = static_cast<int>(row * 5);
    s.Bind(p + 1, id)
        .Bind(p + 2, ch.seq)
        .Bind(p + 3, ch.hash)
        .Bind(p + 4, static_cast<int64_t>(ch.offset))
        .Bind(p + 5, ch.size);
  }));
  return id;
}

Status SqliteTxn::SetManifestRefs(int64_t id, int64_t refs) {
  NUBO_PREPARE(s, c_, "UPDATE manifests SET refs = ? WHERE id = ?");
  s.Bind(1, refs).Bind(2, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no manifest " + std::to_string(id));
  return Status::Ok();
}

Status SqliteTxn::SetManifestChecksums(int64_t id, const std::string& checksums) {
  NUBO_PREPARE(s, c_, "UPDATE manifests SET checksums = ? WHERE id = ?");
  if (checksums.empty()) {
    s.BindNull(1);
  } else {
    s.Bind(1, checksums);
  }
  s.Bind(2, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no manifest " + std::to_string(id));
  return Status::Ok();
}

Status SqliteTxn::DeleteManifest(int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM manifests WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no manifest " + std::to_string(id));
  return Status::Ok();
}

Status SqliteTxn::InsertChunk(const ChunkRow& row) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO chunks (hash, size, refs, orphaned_at) VALUES (?, ?, ?, ?) ON "
               "CONFLICT DO NOTHING");
  s.Bind(1, row.hash).Bind(2, static_cast<int64_t>(row.size)).Bind(3, row.refs);
  if (row.orphaned_at_ms) {
    s.Bind(4, *row.orphaned_at_ms);
  } else {
    s.BindNull(4);
  }
  return Inserted(s);
}

Status SqliteTxn::InsertInlineChunk(const ChunkRow& row, const std::string& data) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO chunks (hash, size, refs, orphaned_at, data) VALUES (?, ?, ?, ?, ?) ON "
               "CONFLICT DO NOTHING");
  s.Bind(1, row.hash).Bind(2, static_cast<int64_t>(row.size)).Bind(3, row.refs);
  BindOpt(s, 4, row.orphaned_at_ms);
  s.BindBlob(5, data);
  return Inserted(s);
}

Status SqliteTxn::SetChunkRefs(const Digest& hash, int64_t refs,
                               std::optional<int64_t> orphaned_at_ms) {
  NUBO_PREPARE(s, c_, "UPDATE chunks SET refs = ?, orphaned_at = ? WHERE hash = ?");
  s.Bind(1, refs).Bind(3, hash);
  if (orphaned_at_ms) {
    s.Bind(2, *orphaned_at_ms);
  } else {
    s.BindNull(2);
  }
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no chunk " + DigestHex(hash));
  return Status::Ok();
}

Status SqliteTxn::AddChunkRefs(const std::vector<ChunkRow>& rows) {
  // A hash may appear once per statement: the caller's rows are distinct.
  static const BatchedInsert upsert(
      "INSERT INTO chunks (hash, size, refs) VALUES ", "(?, ?, ?)",
      " ON CONFLICT (hash) DO UPDATE SET refs = chunks.refs + excluded.refs, orphaned_at = NULL");
  return upsert.Run(c_, rows, [](Stmt& s, size_t i, const ChunkRow& r) {
    const int p = static_cast<int>(i * 3);
    s.Bind(p + 1, r.hash).Bind(p + 2, static_cast<int64_t>(r.size)).Bind(p + 3, r.refs);
  });
}

Status SqliteTxn::DropChunkRefs(const Digest& hash, int64_t n, int64_t now_ms) {
  // The SET expressions see the row as it was: `refs = ?1` is "reaches 0".
  NUBO_PREPARE(s, c_,
               "UPDATE chunks SET refs = refs - ?1, orphaned_at = CASE WHEN refs = ?1 THEN CAST(?2 "
               "AS BIGINT) "
               "ELSE NULL END WHERE hash = ?3 AND refs >= ?1");
  s.Bind(1, n).Bind(2, now_ms).Bind(3, hash);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) {
    return Status::Internal("chunk " + DigestHex(hash) + " has fewer than " + std::to_string(n) +
                            " references to drop");
  }
  return Status::Ok();
}

Status SqliteTxn::DeleteChunk(const Digest& hash) {
  NUBO_PREPARE(s, c_, "DELETE FROM chunks WHERE hash = ?");
  s.Bind(1, hash);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no chunk " + DigestHex(hash));
  return Status::Ok();
}

Status SqliteTxn::SetChunkData(const Digest& hash, const std::string& data) {
  NUBO_PREPARE(s, c_, "UPDATE chunks SET data = ? WHERE hash = ?");
  s.BindBlob(1, data).Bind(2, hash);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no chunk " + DigestHex(hash));
  return Status::Ok();
}

Status SqliteTxn::InsertPin(const std::string& name, int64_t manifest_id) {
  NUBO_PREPARE(
      s, c_,
      "INSERT INTO pins (name, manifest_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING");
  s.Bind(1, name).Bind(2, manifest_id).Bind(3, UnixMillis());
  return Inserted(s);
}

Status SqliteTxn::DeletePin(const std::string& name) {
  NUBO_PREPARE(s, c_, "DELETE FROM pins WHERE name = ?");
  s.Bind(1, name);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no pin " + name);
  return Status::Ok();
}

}  // namespace nubo::meta::sqlite
