#include "content/fsck.h"

#include <map>
#include <memory>

#include "content/reader.h"
#include "util/blake3_hash.h"
#include "util/time.h"

namespace nubo::content {

namespace {

constexpr size_t kPage = 1000;

std::string Hex(const meta::Digest& d) { return DigestHex(d); }

// Counts: recompute from references and compare (fix with `repair`).
Status CheckCounts(meta::MetaStore& meta, bool repair, FsckReport& r) {
  // Found by the run that commits: a write may run more than once.
  std::vector<std::string> problems;
  uint64_t repaired = 0;
  NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& txn) -> Status {
    problems.clear();
    repaired = 0;
    NUBO_ASSIGN_OR_RETURN(auto mrefs, txn.CountManifestReferences());
    std::map<int64_t, int64_t> want_m(mrefs.begin(), mrefs.end());
    int64_t after = 0;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(auto page, txn.ListManifests(after, kPage));
      if (page.empty()) break;
      for (const auto& m : page) {
        after = m.id;
        int64_t want = want_m.count(m.id) ? want_m[m.id] : 0;
        if (m.refs != want) {
          problems.push_back("manifest " + Hex(m.hash) + " counts " + std::to_string(m.refs) +
                             " references, has " + std::to_string(want));
          if (repair) {
            NUBO_RETURN_IF_ERROR(txn.SetManifestRefs(m.id, want));
            ++repaired;
          }
        }
      }
    }
    NUBO_ASSIGN_OR_RETURN(auto crefs, txn.CountChunkReferences());
    std::map<meta::Digest, int64_t> want_c(crefs.begin(), crefs.end());
    std::optional<meta::Digest> cafter;
    for (;;) {
      NUBO_ASSIGN_OR_RETURN(auto page, txn.ListChunks(cafter, kPage));
      if (page.empty()) break;
      for (const auto& c : page) {
        cafter = c.hash;
        int64_t want = want_c.count(c.hash) ? want_c[c.hash] : 0;
        if (c.refs != want) {
          problems.push_back("chunk " + Hex(c.hash) + " counts " + std::to_string(c.refs) +
                             " manifests, is listed by " + std::to_string(want));
          if (repair) {
            NUBO_RETURN_IF_ERROR(txn.SetChunkRefs(
                c.hash, want, want == 0 ? std::optional<int64_t>(UnixMillis()) : std::nullopt));
            ++repaired;
          }
        }
      }
    }
    // A repair is committed; a report-only run changes nothing.
    return Status::Ok();
  }));
  r.problems.insert(r.problems.end(), problems.begin(), problems.end());
  r.repaired += repaired;
  return Status::Ok();
}

// Every chunk row: file present, right size, right hash.
Status CheckChunks(meta::MetaStore& meta, blob::ChunkStore& chunks, FsckReport& r,
                   std::map<meta::Digest, bool>& good) {
  std::optional<meta::Digest> after;
  std::string buf;
  for (;;) {
    std::vector<meta::ChunkRow> page;
    NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
      NUBO_ASSIGN_OR_RETURN(page, txn.ListChunks(after, kPage));
      return Status::Ok();
    }));
    if (page.empty()) return Status::Ok();
    for (const auto& c : page) {
      after = c.hash;
      ++r.chunks;
      bool ok = false;
      if (c.inline_data) {
        // Kept in its row (storage.inline_max): no file to look for.
        std::optional<std::string> data;
        NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
          NUBO_ASSIGN_OR_RETURN(data, txn.ChunkData(c.hash));
          return Status::Ok();
        }));
        if (!data || data->size() != c.size) {
          r.problems.push_back("inline chunk " + Hex(c.hash) + " has " +
                               std::to_string(data ? data->size() : 0) + " bytes, expected " +
                               std::to_string(c.size));
        } else if (Blake3::Hash(*data) != c.hash) {
          r.problems.push_back("inline chunk " + Hex(c.hash) +
                               " is corrupt: its bytes hash differently");
        } else {
          ok = true;
          r.bytes_verified += c.size;
          ++r.inline_chunks;
        }
        good[c.hash] = ok;
        continue;
      }
      auto info = chunks.Stat(c.hash);
      if (!info.ok()) {
        r.problems.push_back("chunk " + Hex(c.hash) + " is missing: " + info.status().message());
      } else if (info->size != c.size) {
        r.problems.push_back("chunk " + Hex(c.hash) + " has " + std::to_string(info->size) +
                             " bytes, expected " + std::to_string(c.size));
      } else {
        buf.resize(c.size);
        Status rs = chunks.Read(c.hash, 0, c.size, buf.data());
        if (!rs.ok()) {
          r.problems.push_back("chunk " + Hex(c.hash) + " unreadable: " + rs.message());
        } else if (Blake3::Hash(buf) != c.hash) {
          r.problems.push_back("chunk " + Hex(c.hash) + " is corrupt: its bytes hash differently");
        } else {
          ok = true;
          r.bytes_verified += c.size;
        }
      }
      good[c.hash] = ok;
    }
  }
}

// Every manifest: contiguous chunk list, sizes adding up, whole-content hash.
Status CheckManifests(meta::MetaStore& meta, blob::ChunkStore& chunks, FsckReport& r,
                      const std::map<meta::Digest, bool>& good) {
  int64_t after = 0;
  std::string buf;
  for (;;) {
    std::vector<meta::ManifestRow> page;
    NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
      NUBO_ASSIGN_OR_RETURN(page, txn.ListManifests(after, kPage));
      return Status::Ok();
    }));
    if (page.empty()) return Status::Ok();
    for (const auto& m : page) {
      after = m.id;
      ++r.manifests;
      std::vector<meta::ManifestChunk> list;
      NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& txn) -> Status {
        NUBO_ASSIGN_OR_RETURN(list, txn.ManifestChunks(m.id));
        return Status::Ok();
      }));
      uint64_t expect = 0;
      bool readable = true;
      for (const auto& c : list) {
        if (c.offset != expect) {
          r.problems.push_back("manifest " + Hex(m.hash) + " has a gap or overlap at chunk " +
                               std::to_string(c.seq));
          readable = false;
          break;
        }
        expect += c.size;
        auto g = good.find(c.hash);
        if (g == good.end() || !g->second) readable = false;
      }
      if (readable && expect != m.size) {
        r.problems.push_back("manifest " + Hex(m.hash) + " lists " + std::to_string(expect) +
                             " bytes, records " + std::to_string(m.size));
        readable = false;
      }
      if (!readable) continue;  // its chunk problems are reported already
      Blake3 whole;
      for (const auto& c : list) {
        buf.resize(c.size);
        NUBO_RETURN_IF_ERROR(ReadChunk(chunks, c, 0, c.size, buf.data()));
        whole.Update(buf);
      }
      if (whole.Final() != m.hash) {
        r.problems.push_back("manifest " + Hex(m.hash) + ": its chunks do not hash to it");
      }
    }
  }
}

// Folder rollups (sizes behind usage and quotas) agree with their children;
// each file's content hash (its ETag) is its manifest's.
Status CheckTree(meta::MetaStore& meta, FsckReport& r) {
  return meta.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto bad, txn.FolderRollupMismatches(100));
    for (const auto& [id, stored, want] : bad) {
      r.problems.push_back("folder " + id + " records " + std::to_string(stored) +
                           " bytes below it, its children hold " + std::to_string(want));
    }
    // Listing headers show this count (kept by triggers, migration 0007).
    NUBO_ASSIGN_OR_RETURN(auto counts, txn.ChildCountMismatches(100));
    for (const auto& [id, stored, want] : counts) {
      r.problems.push_back("folder " + id + " records " + std::to_string(stored) +
                           " items, it holds " + std::to_string(want));
    }
    // Every row gets its listing key when written, and older rows before
    // the server serves; a row without one would list out of order.
    NUBO_ASSIGN_OR_RETURN(auto unkeyed, txn.NodesWithoutSortKey(0, 100));
    if (!unkeyed.empty()) {
      r.problems.push_back(std::to_string(unkeyed.size()) + (unkeyed.size() == 100 ? "+" : "") +
                           " node(s) have no listing key (start the server or run migrate)");
    }
    NUBO_ASSIGN_OR_RETURN(auto hashes, txn.NodeHashMismatches(100));
    for (const auto& id : hashes) {
      r.problems.push_back("node " + id + " records a content hash that is not its manifest's");
    }
    // The quota counts WebDAV property bytes through this sum.
    NUBO_ASSIGN_OR_RETURN(auto props, txn.PropsBytesMismatches(100));
    for (const auto& [id, stored, want] : props) {
      r.problems.push_back("drive " + id + " records " + std::to_string(stored) +
                           " bytes of properties, its nodes hold " + std::to_string(want));
    }
    // ... and file versions through their charges.
    NUBO_ASSIGN_OR_RETURN(auto versions, txn.VersionsBytesMismatches(100));
    for (const auto& [id, stored, want] : versions) {
      r.problems.push_back("drive " + id + " records " + std::to_string(stored) +
                           " bytes charged for versions, its versions sum to " +
                           std::to_string(want));
    }
    // Sharing: every grant and membership points at a live row (foreign
    // keys keep it so; this finds what was written around them), and no
    // group contains itself.
    NUBO_ASSIGN_OR_RETURN(auto sharing, txn.DanglingSharingRows(100));
    for (const auto& what : sharing) {
      r.problems.push_back(what + (what.find("contains itself") == std::string::npos
                                       ? " points at a node, user or group that does not exist"
                                       : ""));
    }
    return Status::Ok();
  });
}

}  // namespace

Result<FsckReport> Fsck(meta::MetaStore& meta, blob::ChunkStore& chunks, bool repair) {
  FsckReport r;
  NUBO_RETURN_IF_ERROR(CheckCounts(meta, repair, r));
  NUBO_RETURN_IF_ERROR(CheckTree(meta, r));
  std::map<meta::Digest, bool> good;
  NUBO_RETURN_IF_ERROR(CheckChunks(meta, chunks, r, good));
  NUBO_RETURN_IF_ERROR(CheckManifests(meta, chunks, r, good));
  NUBO_RETURN_IF_ERROR(chunks.ForEach([&](const meta::Digest& h, const blob::ChunkInfo&) {
    if (!good.count(h)) ++r.unreferenced_files;
    return Status::Ok();
  }));
  return r;
}

}  // namespace nubo::content
