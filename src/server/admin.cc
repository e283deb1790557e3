#include "server/admin.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "auth/accounts.h"
#include "blob/disk/disk_chunk_store.h"
#include "content/fastcdc.h"
#include "content/fsck.h"
#include "content/gc.h"
#include "content/ingest.h"
#include "content/reader.h"
#include "files/files.h"
#include "media/thumbnails.h"
#include "meta/db_copy.h"
#include "meta/sqlite/sqlite_store.h"
#include "server/storage.h"
#include "share/sharing.h"
#include "util/blake3_hash.h"
#include "util/mix.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::server {

namespace {

int Fail(const char* what, const Status& st) {
  std::fprintf(stderr, "nubo %s: %s\n", what, st.ToString().c_str());
  return 2;
}

Status Pin(meta::MetaStore& m, blob::ChunkStore& c, const content::ManifestDraft& d,
           const std::string& name) {
  // Every reference needs its referencing row: no pin, no commit.
  return content::CommitManifest(
             m, c, d,
             [&](meta::WriteTxn& txn, int64_t id) -> Status { return txn.InsertPin(name, id); })
      .status();
}

Status Unpin(meta::MetaStore& m, const std::string& name) {
  return m.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto id, txn.GetPin(name));
    if (!id) return Status::NotFound("no pin " + name);
    NUBO_RETURN_IF_ERROR(txn.DeletePin(name));
    return content::ReleaseManifest(txn, *id, UnixMillis());
  });
}

// Generated test file `i`: its size and bytes follow from (seed, i). It is
// made of 16 KiB blocks drawn from a pool of 24, so files share chunks and
// deduplication and shared references get exercised.
std::string Generate(uint64_t seed, uint64_t i, uint64_t max_size) {
  uint64_t size = SplitMix64(seed ^ (i * 7919)) % (max_size + 1);
  // One in four is tiny (up to 12 KiB): around storage.inline_max's
  // default, so kills land in both the inline and the chunk-file commit.
  if (SplitMix64(seed + i) % 4 == 0) size %= 12 << 10;
  std::string out(size, '\0');
  constexpr size_t kBlock = 16 << 10;
  for (size_t off = 0; off < size; off += kBlock) {
    uint64_t block = SplitMix64(seed + i * 1000003 + off / kBlock) % 24;
    for (size_t k = off; k < std::min<size_t>(size, off + kBlock); k += 8) {
      uint64_t w = SplitMix64(seed * 31 + block * 65536 + (k - off) / 8);
      std::memcpy(out.data() + k, &w, std::min<size_t>(8, size - k));
    }
  }
  return out;
}

Result<content::ManifestDraft> IngestBytes(blob::ChunkStore& c, std::string_view bytes,
                                           uint64_t inline_max = 0) {
  content::Ingest in(c);
  in.InlineUpTo(inline_max);
  // Feed in uneven pieces, as a network would.
  size_t pos = 0, step = 65521;
  while (pos < bytes.size()) {
    size_t n = std::min(step, bytes.size() - pos);
    NUBO_RETURN_IF_ERROR(in.Write(bytes.data() + pos, n));
    pos += n;
  }
  return in.Finish();
}

}  // namespace

namespace {

auth::PasswordParams PasswordParamsFrom(const Config& cfg) {
  auth::PasswordParams p;
  p.ops_limit = cfg.argon2_ops;
  p.mem_limit = cfg.argon2_mem;
  return p;
}

// One line from stdin, without its line ending.
Result<std::string> ReadPasswordLine() {
  std::string line;
  int c;
  while ((c = std::getchar()) != EOF && c != '\n') {
    line.push_back(static_cast<char>(c));
    if (line.size() > 4096) return Status::InvalidArgument("password line too long");
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

int RunUser(const Config& cfg, const UserCommand& cmd) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, /*migrate=*/true);
  if (!s.ok()) return Fail("user", s.status());
  meta::MetaStore& m = *s->meta;
  const auth::PasswordParams params = PasswordParamsFrom(cfg);
  auto need_password = [&]() -> Result<std::string> {
    if (!cmd.password_stdin)
      return Status::InvalidArgument("give the password on stdin with --password-stdin");
    return ReadPasswordLine();
  };
  Status st;
  if (cmd.action == "add") {
    auto pw = need_password();
    if (!pw.ok()) return Fail("user add", pw.status());
    auto u = auth::CreateUser(m, {cmd.name, *pw, cmd.admin, std::nullopt, ""}, params);
    if (!u.ok()) return Fail("user add", u.status());
    std::printf("created %s (%s) %s\n", u->username.c_str(), u->role.c_str(), u->public_id.c_str());
    return 0;
  }
  if (cmd.action == "passwd") {
    auto pw = need_password();
    if (!pw.ok()) return Fail("user passwd", pw.status());
    st = auth::SetPassword(m, cmd.name, *pw, params);
  } else if (cmd.action == "role") {
    if (cmd.role != "admin" && cmd.role != "user") {
      return Fail("user role", Status::InvalidArgument("role must be admin or user"));
    }
    st = auth::SetRole(m, cmd.name, cmd.role == "admin");
  } else if (cmd.action == "disable" || cmd.action == "enable") {
    st = auth::SetActive(m, cmd.name, cmd.action == "enable");
  } else if (cmd.action == "app-password") {
    auto app = auth::CreateAppPassword(m, cmd.name, cmd.label);
    if (!app.ok()) return Fail("user app-password", app.status());
    std::printf("%s\n", app->secret.c_str());
    return 0;
  } else if (cmd.action == "list") {
    std::string after;
    for (;;) {
      std::vector<meta::UserRow> page;
      st = m.Read([&](meta::ReadTxn& txn) -> Status {
        NUBO_ASSIGN_OR_RETURN(page, txn.ListUsers(after, 500));
        return Status::Ok();
      });
      if (!st.ok() || page.empty()) break;
      for (const auto& u : page) {
        std::printf("%s\t%s\t%s\n", u.username.c_str(), u.role.c_str(),
                    u.active ? "active" : "disabled");
      }
      after = page.back().username;
    }
  } else {
    st = Status::InvalidArgument("unknown action '" + cmd.action + "'");
  }
  if (!st.ok()) return Fail(("user " + cmd.action).c_str(), st);
  return 0;
}

int RunGroup(const Config& cfg, const GroupCommand& cmd) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, /*migrate=*/true);
  if (!s.ok()) return Fail("group", s.status());
  meta::MetaStore& m = *s->meta;
  share::Sharing sharing(m);
  const auth::Principal op = auth::Principal::Operator();
  const std::string what = "group " + cmd.action;
  // Group names to ids (the domain speaks ids, as REST does).
  auto id_of = [&](const std::string& name) -> Result<std::string> {
    std::optional<meta::GroupRow> g;
    NUBO_RETURN_IF_ERROR(m.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(g, t.GetGroupByName(name));
      return Status::Ok();
    }));
    if (!g) return Status::NotFound("no group named \"" + name + "\"");
    return g->public_id;
  };
  auto member = [&]() -> Result<share::MemberRef> {
    share::MemberRef ref;
    if (!cmd.group.empty()) {
      NUBO_ASSIGN_OR_RETURN(ref.group_id, id_of(cmd.group));
    }
    ref.user = cmd.user;
    return ref;
  };
  Status st;
  if (cmd.action == "list") {
    std::string after;
    for (;;) {
      auto page = sharing.ListGroups(op, after, 500);
      if (!page.ok()) return Fail(what.c_str(), page.status());
      for (const auto& g : *page) std::printf("%s\t%s\n", g.name.c_str(), g.public_id.c_str());
      if (page->size() < 500) return 0;
      after = page->back().name;
    }
  }
  if (cmd.action == "create") {
    auto g = sharing.CreateGroup(op, cmd.name);
    if (!g.ok()) return Fail(what.c_str(), g.status());
    std::printf("created %s %s\n", g->name.c_str(), g->public_id.c_str());
    return 0;
  }
  auto id = id_of(cmd.name);
  if (!id.ok()) return Fail(what.c_str(), id.status());
  if (cmd.action == "delete") {
    st = sharing.DeleteGroup(op, *id);
  } else if (cmd.action == "rename") {
    st = sharing.RenameGroup(op, *id, cmd.new_name).status();
  } else if (cmd.action == "members") {
    auto info = sharing.GetGroup(op, *id);
    if (!info.ok()) return Fail(what.c_str(), info.status());
    for (const auto& mrow : info->members) {
      std::printf("%s\t%s\n", mrow.is_group ? "group" : "user", mrow.name.c_str());
    }
    return 0;
  } else if (cmd.action == "add" || cmd.action == "remove") {
    auto ref = member();
    if (!ref.ok()) return Fail(what.c_str(), ref.status());
    st = cmd.action == "add" ? sharing.AddMember(op, *id, *ref)
                             : sharing.RemoveMember(op, *id, *ref);
  } else {
    st = Status::InvalidArgument("unknown action '" + cmd.action + "'");
  }
  if (!st.ok()) return Fail(what.c_str(), st);
  return 0;
}

int RunMigrate(const Config& cfg) {
  auto applied = MigrateDatabase(cfg.data_dir, cfg.database);
  if (!applied.ok()) return Fail("migrate", applied.status());
  std::printf("applied %d migration(s) to %s\n", *applied,
              DatabaseName(cfg.data_dir, cfg.database).c_str());
  auto s = OpenStorage(cfg.data_dir, cfg.database, /*migrate=*/false);
  if (!s.ok()) return Fail("migrate", s.status());
  auto filled = files::FillSortKeys(*s->meta);
  if (!filled.ok()) return Fail("migrate", filled.status());
  if (*filled > 0) std::printf("wrote %lld listing key(s)\n", static_cast<long long>(*filled));
  return 0;
}

int RunFsck(const Config& cfg, bool repair) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, /*migrate=*/false);
  if (!s.ok()) return Fail("fsck", s.status());
  auto r = content::Fsck(*s->meta, *s->chunks, repair);
  if (!r.ok()) return Fail("fsck", r.status());
  for (const auto& p : r->problems) std::printf("PROBLEM %s\n", p.c_str());
  std::printf(
      "fsck: %llu manifests, %llu chunks (%llu inline), %s verified, %llu unreferenced files, "
      "%zu problems, %llu repaired\n",
      static_cast<unsigned long long>(r->manifests), static_cast<unsigned long long>(r->chunks),
      static_cast<unsigned long long>(r->inline_chunks), FormatBytes(r->bytes_verified).c_str(),
      static_cast<unsigned long long>(r->unreferenced_files), r->problems.size(),
      static_cast<unsigned long long>(r->repaired));
  // Derived media: every thumbnail row has its file.
  media::ThumbnailOptions topt;
  topt.derived_dir = (std::filesystem::path(cfg.data_dir) / "derived").string();
  media::Thumbnails thumbs(*s->meta, *s->chunks, topt);
  auto d = thumbs.Check(repair);
  if (!d.ok()) return Fail("fsck", d.status());
  for (const auto& p : d->problems) std::printf("PROBLEM %s\n", p.c_str());
  std::printf(
      "fsck: %lld derived rows, %lld thumbnail files, %lld without a row, %zu problems, "
      "%lld repaired\n",
      static_cast<long long>(d->rows), static_cast<long long>(d->files),
      static_cast<long long>(d->stray_files), d->problems.size(),
      static_cast<long long>(d->repaired));
  if (r->clean() && d->problems.empty()) return 0;
  // With --repair, a second pass tells whether anything is left.
  if (repair) {
    auto again = content::Fsck(*s->meta, *s->chunks, false);
    auto derived_again = thumbs.Check(false);
    if (again.ok() && again->clean() && derived_again.ok() && derived_again->problems.empty()) {
      return 0;
    }
  }
  return 1;
}

int RunDbCopy(const Config& cfg, const std::string& from, const std::string& to) {
  constexpr std::string_view kSqlite = "sqlite:";
  if (!std::string_view(from).starts_with(kSqlite) || from.size() == kSqlite.size()) {
    return Fail("db copy", Status::InvalidArgument("--from: expected sqlite:PATH, e.g. "
                                                   "sqlite:/var/lib/nubo/nubo.db"));
  }
  if (!to.starts_with("postgres://") && !to.starts_with("postgresql://")) {
    return Fail("db copy", Status::InvalidArgument("--to: expected a postgres:// URL"));
  }
  const std::string path = from.substr(kSqlite.size());
  auto r = meta::CopySqliteToPostgres(path, to);
  if (!r.ok()) return Fail("db copy", r.status());
  for (const auto& t : r->tables) {
    std::printf("copied %-24s %10lld rows\n", t.name.c_str(), static_cast<long long>(t.rows));
  }
  if (!r->left_behind.empty()) {
    std::string names;
    for (const auto& t : r->left_behind) names += (names.empty() ? "" : ", ") + t;
    std::printf(
        "left behind (SQLite's search index; PostgreSQL indexes the copied text itself): %s\n",
        names.c_str());
  }
  std::printf(
      "db copy: %zu tables, %lld rows, schema version %d; read back: counts and values equal\n",
      r->tables.size(), static_cast<long long>(r->rows), r->schema_version);
  // The metadata names chunk files of the data directory the SQLite
  // database lives in (<data>/nubo.db): check them against the copy.
  Config target = cfg;
  target.data_dir = std::filesystem::absolute(path).parent_path().string();
  target.database = to;
  std::printf("db copy: checking the copy against the chunk files in %s\n",
              target.data_dir.c_str());
  const int rc = RunFsck(target, /*repair=*/false);
  if (rc != 0) {
    std::fprintf(stderr, "nubo db copy: fsck of the copy found problems (see above)\n");
    return rc;
  }
  std::printf(
      "db copy: done. Serve it with storage.database (or NUBO_DATABASE) set to the target and "
      "the same data directory (%s); the SQLite file is no longer used.\n",
      target.data_dir.c_str());
  return 0;
}

int RunGc(const Config& cfg, uint64_t grace_ms) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, false);
  if (!s.ok()) return Fail("gc", s.status());
  auto r =
      content::CollectGarbage(*s->meta, *s->chunks, static_cast<int64_t>(grace_ms), UnixMillis());
  if (!r.ok()) return Fail("gc", r.status());
  std::printf("gc: %llu chunks deleted, %llu stray files swept, %s freed, %llu kept (recent)\n",
              static_cast<unsigned long long>(r->chunks_deleted),
              static_cast<unsigned long long>(r->files_swept), FormatBytes(r->bytes_freed).c_str(),
              static_cast<unsigned long long>(r->skipped_recent));
  return 0;
}

int RunChunk(const std::string& file) {
  FILE* f = file == "-" ? stdin : std::fopen(file.c_str(), "rb");
  if (!f) return Fail("chunk", Status::NotFound("cannot open " + file));
  content::FastCdc cdc;
  Blake3 whole;
  uint64_t size = 0;
  std::string out = "{\"chunks\":[";
  bool first = true;
  auto emit = [&](std::string_view c) -> Status {
    out += first ? "\"" : ",\"";
    first = false;
    out += DigestHex(Blake3::Hash(c)) + ":" + std::to_string(c.size()) + "\"";
    return Status::Ok();
  };
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    whole.Update(buf.data(), n);
    size += n;
    if (Status st = cdc.Update(buf.data(), n, emit); !st.ok()) return Fail("chunk", st);
  }
  const bool failed = std::ferror(f) != 0;
  if (f != stdin) std::fclose(f);
  if (failed) return Fail("chunk", Status::IoError("cannot read " + file));
  (void)cdc.Finish(emit);
  out += "],\"size\":" + std::to_string(size) + ",\"hash\":\"" + DigestHex(whole.Final()) + "\"}\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
  return 0;
}

int RunDebugPut(const Config& cfg, const std::string& file, const std::string& pin,
                bool per_chunk_sync) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, true);
  if (!s.ok()) return Fail("debug put", s.status());
  FILE* f = file == "-" ? stdin : std::fopen(file.c_str(), "rb");
  if (!f) return Fail("debug put", Status::NotFound("cannot open " + file));
  content::Ingest in(
      *s->chunks, {},
      per_chunk_sync ? content::Ingest::Sync::kPerChunk : content::Ingest::Sync::kBatched);
  std::vector<char> buf(1 << 20);
  size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), f)) > 0) {
    if (Status st = in.Write(buf.data(), n); !st.ok()) return Fail("debug put", st);
  }
  if (f != stdin) std::fclose(f);
  auto d = in.Finish();
  if (!d.ok()) return Fail("debug put", d.status());
  // Without --pin the content is pinned under its own hash (once).
  std::string name = pin.empty() ? DigestHex(d->hash) : pin;
  Status st = Pin(*s->meta, *s->chunks, *d, name);
  if (!st.ok() && !(pin.empty() && st.code() == Code::kAlreadyExists)) return Fail("debug put", st);
  std::printf("%s %llu %zu\n", DigestHex(d->hash).c_str(), static_cast<unsigned long long>(d->size),
              d->chunks.size());
  return 0;
}

int RunDebugCat(const Config& cfg, const std::string& hash_hex) {
  meta::Digest h;
  if (!ParseDigestHex(hash_hex, h)) {
    return Fail("debug cat", Status::InvalidArgument("expected 64 hex characters"));
  }
  auto s = OpenStorage(cfg.data_dir, cfg.database, false);
  if (!s.ok()) return Fail("debug cat", s.status());
  auto r = content::ManifestReader::OpenByHash(*s->meta, *s->chunks, h);
  if (!r.ok()) return Fail("debug cat", r.status());
  std::vector<char> buf(1 << 20);
  for (;;) {
    auto n = r->Read(buf.data(), buf.size());
    if (!n.ok()) return Fail("debug cat", n.status());
    if (*n == 0) break;
    if (std::fwrite(buf.data(), 1, *n, stdout) != *n)
      return Fail("debug cat", Status::IoError("stdout"));
  }
  return std::fflush(stdout) == 0 ? 0 : 2;
}

int RunDebugUnpin(const Config& cfg, const std::string& name) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, false);
  if (!s.ok()) return Fail("debug unpin", s.status());
  if (Status st = Unpin(*s->meta, name); !st.ok()) return Fail("debug unpin", st);
  return 0;
}

int RunDebugChurn(const Config& cfg, uint64_t seed, uint64_t max_size, int keep) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, true);
  if (!s.ok()) return Fail("debug churn", s.status());
  // Continue after the highest file a previous run pinned.
  uint64_t next = 0;
  std::vector<std::pair<std::string, int64_t>> pins;
  Status st = s->meta->Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(pins, txn.ListPins("", 1'000'000));
    return Status::Ok();
  });
  if (!st.ok()) return Fail("debug churn", st);
  std::vector<uint64_t> live;
  for (const auto& [name, id] : pins) {
    if (name.size() > 1 && name[0] == 'f') {
      uint64_t i = std::stoull(name.substr(1));
      live.push_back(i);
      next = std::max(next, i + 1);
    }
  }
  std::sort(live.begin(), live.end());
  for (uint64_t i = next;; ++i) {
    std::string bytes = Generate(seed, i, max_size);
    auto d = IngestBytes(*s->chunks, bytes, cfg.inline_max);
    if (!d.ok()) return Fail("debug churn", d.status());
    if (Status p = Pin(*s->meta, *s->chunks, *d, "f" + std::to_string(i)); !p.ok()) {
      return Fail("debug churn", p);
    }
    std::printf("committed %llu\n", static_cast<unsigned long long>(i));
    std::fflush(stdout);
    live.push_back(i);
    while (static_cast<int>(live.size()) > keep) {
      uint64_t old = live.front();
      live.erase(live.begin());
      // Announced first: a kill between the two lines leaves it either way.
      std::printf("releasing %llu\n", static_cast<unsigned long long>(old));
      std::fflush(stdout);
      if (Status u = Unpin(*s->meta, "f" + std::to_string(old)); !u.ok())
        return Fail("debug churn", u);
      std::printf("released %llu\n", static_cast<unsigned long long>(old));
      std::fflush(stdout);
    }
  }
}

int RunDebugVerify(const Config& cfg, uint64_t seed, uint64_t max_size) {
  auto s = OpenStorage(cfg.data_dir, cfg.database, false);
  if (!s.ok()) return Fail("debug verify", s.status());
  std::vector<std::pair<std::string, int64_t>> pins;
  Status st = s->meta->Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(pins, txn.ListPins("", 1'000'000));
    return Status::Ok();
  });
  if (!st.ok()) return Fail("debug verify", st);
  int bad = 0;
  for (const auto& [name, id] : pins) {
    if (name.size() < 2 || name[0] != 'f') continue;
    uint64_t i = std::stoull(name.substr(1));
    std::string want = Generate(seed, i, max_size);
    // Read through the pin's own manifest, not by the expected hash: a pin
    // pointing at the wrong content must fail.
    std::optional<meta::ManifestRow> m;
    Status ms = s->meta->Read([&](meta::ReadTxn& txn) -> Status {
      NUBO_ASSIGN_OR_RETURN(m, txn.GetManifest(id));
      return Status::Ok();
    });
    if (!ms.ok() || !m) {
      std::printf("MISSING %s\n", name.c_str());
      ++bad;
      continue;
    }
    auto r = content::ManifestReader::OpenByHash(*s->meta, *s->chunks, m->hash);
    std::string got;
    if (r.ok()) {
      std::vector<char> buf(1 << 16);
      for (;;) {
        auto n = r->Read(buf.data(), buf.size());
        if (!n.ok() || *n == 0) break;
        got.append(buf.data(), *n);
      }
    }
    if (got != want) {
      std::printf("MISMATCH %s\n", name.c_str());
      ++bad;
    } else {
      std::printf("ok %s\n", name.c_str());
    }
  }
  std::printf("verified %zu pins, %d mismatched\n", pins.size(), bad);
  return bad == 0 ? 0 : 1;
}

}  // namespace nubo::server
