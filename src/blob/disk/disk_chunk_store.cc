#include "blob/disk/disk_chunk_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

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

int HexVal(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

Status FaultStatus(FaultPlan::Fault f, const std::string& what) {
  return PosixError(what + " (injected)", f == FaultPlan::Fault::kEnospc ? ENOSPC : EIO);
}

}  // namespace

bool ParseDigestHex(std::string_view hex, Digest& out) {
  if (hex.size() != 64) return false;
  for (size_t i = 0; i < 32; ++i) {
    int hi = HexVal(hex[2 * i]), lo = HexVal(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return true;
}

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
  if (::rename(tmp.c_str(), path.c_str()) != 0) return fail(PosixError("rename to " + path, errno));
  // The chunk is now visible; its directory entry must be durable before
  // any metadata may reference it.
  if (auto f = Inject(); f != FaultPlan::Fault::kNone) return FaultStatus(f, "fsync " + dir);
  return FsyncDir(dir);
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
