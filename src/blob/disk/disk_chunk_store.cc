#include "blob/disk/disk_chunk_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <set>
#include <vector>

#include "util/fs.h"
#include "util/ids.h"
#include "util/posix_error.h"
#include "util/time.h"

namespace nubo::blob {

namespace fs = std::filesystem;

namespace {

// Temp files older than this are leftovers of a crash (no Put takes long).
constexpr int64_t kStaleTempMs = 3600 * 1000;

int64_t MtimeMs(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1'000'000;
}

Status FaultStatus(FaultPlan::Fault f, const std::string& what) {
  return PosixError(what + " (injected)", f == FaultPlan::Fault::kEnospc ? ENOSPC : EIO);
}

}  // namespace

Result<std::unique_ptr<DiskChunkStore>> DiskChunkStore::Open(std::string root, std::string tmp,
                                                             FaultPlan* faults) {
  NUBO_RETURN_IF_ERROR(MakeDirsDurable(root));
  NUBO_RETURN_IF_ERROR(MakeDirsDurable(tmp));
  // Sweep temp files a crash left behind; recent ones may belong to a live
  // writer in another process.
  std::error_code ec;
  int64_t now = UnixMillis();
  for (const auto& e : fs::directory_iterator(tmp, ec)) {
    if (e.path().filename().string().rfind("chunk-", 0) != 0) continue;
    struct stat st;
    if (::stat(e.path().c_str(), &st) == 0 && now - MtimeMs(st) > kStaleTempMs) {
      ::unlink(e.path().c_str());
    }
  }
  // Chunks a previous process renamed into place but never synced (it died
  // in between) look present; make them durable before anyone counts on it.
  int fd = ::open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    (void)::syncfs(fd);
    ::close(fd);
  }
  return std::unique_ptr<DiskChunkStore>(new DiskChunkStore(std::move(root), std::move(tmp), faults));
}

std::string DiskChunkStore::PathFor(const Digest& hash) const {
  std::string hex = DigestHex(hash);
  return root_ + "/" + hex.substr(0, 2) + "/" + hex.substr(2, 2) + "/" + hex;
}

FaultPlan::Fault DiskChunkStore::Inject() {
  return faults_ ? faults_->Next() : FaultPlan::Fault::kNone;
}

Status DiskChunkStore::Put(const Digest& hash, std::string_view data) {
  const std::string path = PathFor(hash);
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) == data.size()) {
    // Present: refresh the mtime so a GC sweep running now keeps it.
    if (::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) != 0) {
      return PosixError("touch " + path, errno);
    }
    return Status::Ok();
  }
  const std::string dir = path.substr(0, path.size() - 65);
  NUBO_RETURN_IF_ERROR(MakeDirsDurable(dir));

  const std::string tmp = tmp_ + "/chunk-" + RandomHex(8);
  int fd = -1;
  auto fail = [&](Status s) {
    if (fd >= 0) ::close(fd);
    ::unlink(tmp.c_str());
    return s;
  };
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "create " + tmp);
  fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return PosixError("create " + tmp, errno);
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) {
    if (f == FaultPlan::Fault::kShortWrite) {
      // Half the bytes reach the file, then the device fails.
      (void)WriteAll(fd, data.data(), data.size() / 2, tmp);
    }
    return fail(FaultStatus(f, "write " + tmp));
  }
  if (Status s = WriteAll(fd, data.data(), data.size(), tmp); !s.ok()) return fail(s);
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) return fail(FaultStatus(f, "fsync " + tmp));
  if (::fsync(fd) != 0) return fail(PosixError("fsync " + tmp, errno));
  ::close(fd);
  fd = -1;
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) return fail(FaultStatus(f, "rename " + tmp));
  UnsyncedWindow window(*this);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(PosixError("rename to " + path, errno));
  // The chunk is now visible; its directory entry must be durable before
  // any metadata may reference it.
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "fsync " + dir);
  syncs_.fetch_add(1);
  NUBO_RETURN_IF_ERROR(FsyncDir(dir));
  window.synced = true;
  return Status::Ok();
}

// See NewBatch in the header.
class DiskChunkBatch final : public ChunkBatch {
 public:
  explicit DiskChunkBatch(DiskChunkStore& store) : store_(store) {}
  ~DiskChunkBatch() override {
    for (const auto& s : staged_) ::unlink(s.tmp.c_str());
  }

  Status Add(const Digest& hash, std::string_view data) override {
    if (seen_.count(hash)) return Status::Ok();
    const std::string path = store_.PathFor(hash);
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && static_cast<uint64_t>(st.st_size) == data.size()) {
      if (::utimensat(AT_FDCWD, path.c_str(), nullptr, 0) != 0) return PosixError("touch " + path, errno);
      seen_.insert(hash);
      // Present is not durable: another writer may have renamed it into
      // place and not yet synced its name. Then this batch's commit must
      // sync too, or metadata could reference a name a power loss undoes.
      // (Read after the stat: a window that closed before is synced.)
      if (store_.unsynced_.load() > 0) must_sync_ = true;
      return Status::Ok();
    }
    Staged s{store_.tmp_ + "/chunk-" + RandomHex(8), path, hash};
    if (auto f = store_.Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "create " + s.tmp);
    int fd = ::open(s.tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return PosixError("create " + s.tmp, errno);
    Status w;
    if (auto f = store_.Inject(); f != FaultPlan::Fault::kNone) {
      if (f == FaultPlan::Fault::kShortWrite) (void)WriteAll(fd, data.data(), data.size() / 2, s.tmp);
      w = FaultStatus(f, "write " + s.tmp);
    } else {
      w = WriteAll(fd, data.data(), data.size(), s.tmp);
      // Start writing the bytes back now rather than at Commit, so the
      // batch's sync finds little left to wait for. (A hint only:
      // durability comes from Commit's syncfs.)
      if (w.ok()) (void)::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
    }
    ::close(fd);
    if (!w.ok()) {
      ::unlink(s.tmp.c_str());
      return w;
    }
    staged_.push_back(std::move(s));
    seen_.insert(hash);
    return Status::Ok();
  }

  Status Commit() override {
    if (staged_.empty()) {
      if (!must_sync_) return Status::Ok();
      must_sync_ = false;
      return SyncFs();
    }
    // 1. Every staged byte and inode durable (one syncfs for the batch).
    NUBO_RETURN_IF_ERROR(SyncFs());
    // 2. Expose each chunk under its name. From the first rename to the
    // closing sync, names are visible but not durable (UnsyncedWindow).
    DiskChunkStore::UnsyncedWindow window(store_);
    for (const auto& s : staged_) {
      const std::string dir = s.path.substr(0, s.path.size() - 65);
      NUBO_RETURN_IF_ERROR(EnsureDir(dir));
      if (auto f = store_.Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "rename " + s.tmp);
      if (::rename(s.tmp.c_str(), s.path.c_str()) != 0) return PosixError("rename to " + s.path, errno);
      published_.push_back(s.hash);
    }
    staged_.clear();
    must_sync_ = false;
    // 3. The new names durable before any manifest may reference them.
    NUBO_RETURN_IF_ERROR(SyncFs());
    window.synced = true;
    return Status::Ok();
  }
  std::vector<Digest> Published() const override { return published_; }

 private:
  struct Staged {
    std::string tmp, path;
    Digest hash;
  };

  Status SyncFs() {
    if (auto f = store_.Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "syncfs");
    store_.syncs_.fetch_add(1);
    int fd = ::open(store_.root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return PosixError("open " + store_.root_, errno);
    int rc = ::syncfs(fd);
    int err = errno;
    ::close(fd);
    if (rc != 0) return PosixError("syncfs " + store_.root_, err);
    return Status::Ok();
  }
  // mkdir -p without per-level fsync: the closing syncfs covers them.
  Status EnsureDir(const std::string& dir) {
    if (dirs_.count(dir)) return Status::Ok();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return PosixError("mkdir " + dir, ec.value());
    dirs_.insert(dir);
    return Status::Ok();
  }

  DiskChunkStore& store_;
  std::vector<Staged> staged_;
  std::vector<Digest> published_;
  std::set<Digest> seen_;
  std::set<std::string> dirs_;
  bool must_sync_ = false;
};

std::unique_ptr<ChunkBatch> DiskChunkStore::NewBatch() { return std::make_unique<DiskChunkBatch>(*this); }

namespace {
class FdReader final : public ChunkReader {
 public:
  FdReader(int fd, uint64_t size, std::string path) : fd_(fd), size_(size), path_(std::move(path)) {}
  ~FdReader() override { ::close(fd_); }
  uint64_t size() const override { return size_; }
  Status ReadAt(uint64_t offset, size_t len, char* out) override {
    return PreadAll(fd_, out, len, offset, path_);
  }
  int fd() const override { return fd_; }

 private:
  int fd_;
  uint64_t size_;
  std::string path_;
};
}  // namespace

Result<std::unique_ptr<ChunkReader>> DiskChunkStore::Open(const Digest& hash) {
  std::string path = PathFor(hash);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("open chunk " + path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return PosixError("stat chunk " + path, err);
  }
  return std::unique_ptr<ChunkReader>(new FdReader(fd, static_cast<uint64_t>(st.st_size), std::move(path)));
}

Status DiskChunkStore::Read(const Digest& hash, uint64_t offset, size_t len, char* out) {
  const std::string path = PathFor(hash);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError("open chunk " + path, errno);
  Status s = PreadAll(fd, out, len, offset, path);
  ::close(fd);
  return s;
}

Result<ChunkInfo> DiskChunkStore::Stat(const Digest& hash) {
  const std::string path = PathFor(hash);
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return PosixError("stat chunk " + path, errno);
  return ChunkInfo{static_cast<uint64_t>(st.st_size), MtimeMs(st)};
}

Status DiskChunkStore::Delete(const Digest& hash) {
  const std::string path = PathFor(hash);
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "unlink " + path);
  if (::unlink(path.c_str()) != 0) return PosixError("unlink chunk " + path, errno);
  return FsyncDir(path.substr(0, path.size() - 65));
}

std::optional<uint64_t> DiskChunkStore::FreeBytes() {
  struct statvfs v;
  if (::statvfs(root_.c_str(), &v) != 0) return std::nullopt;
  return static_cast<uint64_t>(v.f_bavail) * v.f_frsize;
}

Status DiskChunkStore::ForEach(const std::function<Status(const Digest&, const ChunkInfo&)>& fn) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root_, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    Digest d;
    if (!ParseDigestHex(it->path().filename().string(), d)) continue;
    struct stat st;
    if (::stat(it->path().c_str(), &st) != 0) continue;  // deleted meanwhile
    NUBO_RETURN_IF_ERROR(fn(d, ChunkInfo{static_cast<uint64_t>(st.st_size), MtimeMs(st)}));
  }
  if (ec) return PosixError("list " + root_, ec.value());
  return Status::Ok();
}

}  // namespace nubo::blob
