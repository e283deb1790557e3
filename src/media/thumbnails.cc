#include "media/thumbnails.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <optional>

#include "content/reader.h"
#include "media/music.h"
#include "util/fs.h"
#include "util/posix_error.h"
#include "util/time.h"

namespace nubo::media {

namespace fs = std::filesystem;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  return out;
}

// Exit statuses of nubo-derive (src/derive/main.cc).
constexpr int kUndecodable = 3, kTooLarge = 4;

bool IsVideo(std::string_view mime) { return mime.rfind("video/", 0) == 0; }

// Unlinks a temp file when it goes out of scope.
struct TempFile {
  std::string path;
  ~TempFile() {
    if (!path.empty()) unlink(path.c_str());
  }
};

}  // namespace

int BoxOf(Variant v) { return v == Variant::kSmall ? kSmallBox : kLargeBox; }

bool Previewable(std::string_view name, std::string_view mime) {
  std::string m = Lower(mime.substr(0, mime.find(';')));
  static constexpr std::array<std::string_view, 10> kImages = {
      "image/jpeg", "image/png",  "image/webp", "image/gif",     "image/tiff",
      "image/heic", "image/heif", "image/avif", "image/svg+xml", "image/jxl"};
  if (std::find(kImages.begin(), kImages.end(), m) != kImages.end()) return true;
  if (m == "application/pdf" || IsVideo(m)) return true;
  // Audio: the picture embedded in its tags (an album cover), when it has one.
  if (IsAudio(name, m)) return true;
  std::string n = Lower(name);
  size_t dot = n.rfind('.');
  std::string ext = dot == std::string::npos ? "" : n.substr(dot + 1);
  static constexpr std::array<std::string_view, 12> kExt = {
      "jpg", "jpeg", "png", "webp", "gif", "tif", "tiff", "heic", "avif", "svg", "pdf", "jxl"};
  return std::find(kExt.begin(), kExt.end(), ext) != kExt.end();
}

std::string DefaultHelperPath() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "nubo-derive";
  return (self.parent_path() / "nubo-derive").string();
}

Thumbnails::Thumbnails(meta::MetaStore& meta, blob::ChunkStore& chunks, ThumbnailOptions options)
    : meta_(meta),
      chunks_(chunks),
      options_(std::move(options)),
      helpers_({.argv = {options_.helper, "serve", std::to_string(options_.limits.cpu_seconds)},
                .limits = options_.limits,
                .max_processes = std::max<size_t>(1, options_.helper_processes)}) {}

std::string Thumbnails::PathFor(const meta::Digest& hash, Variant v) const {
  std::string hex = DigestHex(hash);
  return options_.derived_dir + "/" + hex.substr(0, 2) + "/" + hex + "-" +
         std::to_string(static_cast<int>(v)) + ".webp";
}

Result<std::string> Thumbnails::Materialize(const std::vector<meta::ManifestChunk>& chunks,
                                            const std::string& suffix) {
  std::string tmpl = options_.tmp_dir + "/derive-XXXXXX" + suffix;
  int fd = mkostemps(tmpl.data(), static_cast<int>(suffix.size()), O_CLOEXEC);
  if (fd < 0) return PosixError("temp file in " + options_.tmp_dir, errno);
  std::string path = tmpl;
  std::vector<char> buf;
  Status st;
  for (const meta::ManifestChunk& c : chunks) {
    buf.resize(c.size);
    st = content::ReadChunk(chunks_, c, 0, c.size, buf.data());
    if (st.ok()) st = WriteAll(fd, buf.data(), c.size, path);
    if (!st.ok()) break;
  }
  close(fd);
  if (!st.ok()) {
    unlink(path.c_str());
    return st;
  }
  copies_.fetch_add(1);
  return path;
}

ContentCopy::ContentCopy(Thumbnails& thumbnails, const meta::NodeRow& node,
                         const std::vector<meta::ManifestChunk>& chunks)
    : thumbnails_(thumbnails),
      chunks_(chunks),
      suffix_(IsAudio(node.name, Lower(node.mime)) ? AudioSuffix(node.name) : "") {}

ContentCopy::~ContentCopy() {
  if (!path_.empty()) unlink(path_.c_str());
}

Result<std::string> ContentCopy::Path() {
  if (path_.empty()) {
    NUBO_ASSIGN_OR_RETURN(path_, thumbnails_.Materialize(chunks_, suffix_));
  } else {
    // Handed to one more helper: young again for the sweep of copies a
    // killed process left behind (CollectOrphans judges them by age).
    (void)utimensat(AT_FDCWD, path_.c_str(), nullptr, 0);
  }
  return path_;
}

Result<std::string> Thumbnails::Get(const meta::NodeRow& node,
                                    const std::vector<meta::ManifestChunk>& chunks, Variant v,
                                    ContentCopy* copy) {
  if (node.folder() || !Previewable(node.name, node.mime)) {
    return Status::NotFound("no preview for this file");
  }
  std::optional<meta::DerivedRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, t.GetDerived(node.hash, static_cast<int>(v)));
    return Status::Ok();
  }));
  std::string path = PathFor(node.hash, v);
  if (row && row->state == 1) return Status::NotFound("no preview for this file");
  if (row && access(path.c_str(), R_OK) == 0) return path;
  // Single flight: the first caller makes it, the others wait for it.
  std::string key = DigestHex(node.hash) + "-" + std::to_string(static_cast<int>(v));
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock lock(mu_);
    auto it = flights_.find(key);
    if (it == flights_.end()) {
      flight = std::make_shared<Flight>();
      flights_.emplace(key, flight);
    } else {
      flight = it->second;
      cv_.wait(lock, [&] { return flight->done; });
      return flight->result;
    }
  }
  Result<std::string> made = Make(node, chunks, v, copy);
  {
    std::lock_guard lock(mu_);
    flight->result = made;
    flight->done = true;
    flights_.erase(key);
  }
  cv_.notify_all();
  return made;
}

Result<std::string> Thumbnails::Make(const meta::NodeRow& node,
                                     const std::vector<meta::ManifestChunk>& chunks, Variant v,
                                     ContentCopy* copy) {
  auto record = [&](int state, int64_t bytes) {
    meta::DerivedRow r;
    r.hash = node.hash;
    r.variant = static_cast<int>(v);
    r.state = state;
    r.bytes = bytes;
    r.created_at_ms = UnixMillis();
    return meta_.Write([&](meta::WriteTxn& t) { return t.PutDerived(r); });
  };
  if (node.size > options_.max_input_bytes) {
    NUBO_RETURN_IF_ERROR(record(1, 0));
    return Status::NotFound("no preview for this file (too large)");
  }
  const bool audio = IsAudio(node.name, Lower(node.mime));
  std::optional<ContentCopy> own;
  if (!copy) copy = &own.emplace(*this, node, chunks);
  NUBO_ASSIGN_OR_RETURN(std::string input, copy->Path());
  TempFile frame, out{input + ".webp"};
  std::string source = input;
  if (audio) {
    // The embedded cover, as stored (JPEG or PNG), then the same path as
    // an image: a hostile picture meets the same limits as any image.
    frame.path = input + ".cover";
    NUBO_ASSIGN_OR_RETURN(jobs::IsolateResult r, helpers_.Run({"cover", input, frame.path}));
    if (r.exit_code == kUndecodable || r.exit_code == kTooLarge || r.timed_out ||
        r.signal == SIGXCPU || r.signal == SIGKILL) {
      NUBO_RETURN_IF_ERROR(record(1, 0));
      return Status::NotFound("no preview for this file (no embedded picture)");
    }
    if (r.exit_code != 0) {
      return Status::Internal("cover helper failed (status " + std::to_string(r.exit_code) +
                              "): " + r.stderr_tail);
    }
    source = frame.path;
  } else if (IsVideo(Lower(node.mime))) {
    // A representative frame (of the first 50) as PNG, then the same path
    // as an image. Fixed arguments, no shell; "-nostdin" so it never reads
    // a terminal.
    frame.path = input + ".png";
    NUBO_ASSIGN_OR_RETURN(
        jobs::IsolateResult r,
        jobs::RunIsolated(
            {options_.ffmpeg, "-nostdin", "-hide_banner", "-loglevel", "error", "-i", input, "-vf",
             "thumbnail=50", "-frames:v", "1", "-f", "image2", "-c:v", "png", "-y", frame.path},
            options_.limits));
    struct stat st {};
    if (r.timed_out || r.exit_code != 0 || stat(frame.path.c_str(), &st) != 0 || st.st_size == 0) {
      // No frame within the limits (a stream that stalls the decoder
      // included): recorded like any undecodable file.
      NUBO_RETURN_IF_ERROR(record(1, 0));
      return Status::NotFound("no preview for this file");
    }
    source = frame.path;
  }
  NUBO_ASSIGN_OR_RETURN(jobs::IsolateResult r,
                        helpers_.Run({"thumb", source, out.path, std::to_string(BoxOf(v)),
                                      std::to_string(static_cast<int64_t>(options_.max_pixels))}));
  if (r.exit_code == kUndecodable || r.exit_code == kTooLarge || r.timed_out ||
      r.signal == SIGXCPU || r.signal == SIGKILL) {
    // Not decodable, over a limit, or a decoder that ran out of time: a
    // fact about this content, recorded once.
    NUBO_RETURN_IF_ERROR(record(1, 0));
    return Status::NotFound("no preview for this file");
  }
  if (r.exit_code != 0) {
    return Status::Internal("thumbnail helper failed (" +
                            (r.signal ? "signal " + std::to_string(r.signal)
                                      : "status " + std::to_string(r.exit_code)) +
                            "): " + r.stderr_tail);
  }
  // Durable like everything else: fsync, rename into place, fsync the
  // directory, then the row.
  std::string dest = PathFor(node.hash, v);
  std::string dir = fs::path(dest).parent_path().string();
  NUBO_RETURN_IF_ERROR(MakeDirsDurable(dir));
  int fd = open(out.path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return PosixError(out.path, errno);
  struct stat st {};
  int rc = fstat(fd, &st) == 0 && fsync(fd) == 0 ? 0 : errno;
  close(fd);
  if (rc) return PosixError("fsync " + out.path, rc);
  if (rename(out.path.c_str(), dest.c_str()) != 0) return PosixError("rename " + dest, errno);
  out.path.clear();
  NUBO_RETURN_IF_ERROR(FsyncDir(dir));
  NUBO_RETURN_IF_ERROR(record(0, st.st_size));
  made_.fetch_add(1);
  return dest;
}

namespace {

// "<64 hex digits>-<variant>.webp" → (hash, variant).
bool ParseDerivedName(const std::string& name, meta::Digest& hash, int& variant) {
  if (name.size() != 64 + 2 + 5 || name[64] != '-' || name.substr(66) != ".webp") return false;
  if (!ParseDigestHex(name.substr(0, 64), hash)) return false;
  variant = name[65] - '0';
  return variant == 1 || variant == 2;
}

}  // namespace

Result<int64_t> Thumbnails::CollectOrphans(int64_t stray_grace_ms) {
  int64_t removed = 0;
  for (;;) {
    std::vector<meta::DerivedRow> rows;
    NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(rows, t.TakeOrphanDerived(500));
      return Status::Ok();
    }));
    for (const meta::DerivedRow& r : rows) {
      if (r.state == 0 && unlink(PathFor(r.hash, static_cast<Variant>(r.variant)).c_str()) == 0) {
        ++removed;
      }
    }
    if (rows.size() < 500) break;
  }
  // Files without a row, old enough not to be one being made right now.
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (auto it = fs::recursive_directory_iterator(options_.derived_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    meta::Digest hash{};
    int variant = 0;
    if (!ParseDerivedName(it->path().filename().string(), hash, variant)) continue;
    auto age = std::chrono::duration_cast<std::chrono::milliseconds>(now - it->last_write_time(ec));
    if (ec || age.count() < stray_grace_ms) continue;
    std::optional<meta::DerivedRow> row;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(row, t.GetDerived(hash, variant));
      return Status::Ok();
    }));
    if (!row || row->state != 0) {
      if (fs::remove(it->path(), ec)) ++removed;
    }
  }
  // Copies of content made for a helper (Materialize) that a killed
  // process never removed; a live one was written or handed to a helper
  // (ContentCopy::Path) less than a helper run ago.
  for (auto it = fs::directory_iterator(options_.tmp_dir, ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().filename().string().rfind("derive-", 0) != 0) continue;
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    auto age =
        std::chrono::duration_cast<std::chrono::milliseconds>(now - it->last_write_time(fec));
    if (fec || age.count() < stray_grace_ms) continue;
    if (fs::remove(it->path(), fec)) ++removed;
  }
  return removed;
}

Result<Thumbnails::CheckReport> Thumbnails::Check(bool repair) {
  CheckReport report;
  meta::Digest after{};
  int after_variant = -1;
  for (;;) {
    std::vector<meta::DerivedRow> rows;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(rows, t.ListDerived(after, after_variant, 1000));
      return Status::Ok();
    }));
    for (const meta::DerivedRow& r : rows) {
      ++report.rows;
      if (r.state != 0) continue;
      std::string path = PathFor(r.hash, static_cast<Variant>(r.variant));
      struct stat st {};
      if (stat(path.c_str(), &st) == 0 && st.st_size == r.bytes) continue;
      report.problems.push_back("derived " + DigestHex(r.hash) + "-" + std::to_string(r.variant) +
                                ": the thumbnail file is missing or has the wrong size");
      if (repair) {
        NUBO_RETURN_IF_ERROR(
            meta_.Write([&](meta::WriteTxn& t) { return t.DeleteDerived(r.hash, r.variant); }));
        unlink(path.c_str());
        ++report.repaired;
      }
    }
    if (rows.size() < 1000) break;
    after = rows.back().hash;
    after_variant = rows.back().variant;
  }
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(options_.derived_dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    ++report.files;
    meta::Digest hash{};
    int variant = 0;
    std::optional<meta::DerivedRow> row;
    if (ParseDerivedName(it->path().filename().string(), hash, variant)) {
      NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
        NUBO_ASSIGN_OR_RETURN(row, t.GetDerived(hash, variant));
        return Status::Ok();
      }));
    }
    if (!row || row->state != 0) ++report.stray_files;
  }
  return report;
}

}  // namespace nubo::media
