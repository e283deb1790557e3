// Thumbnails (docs/media-and-search.md): WebP previews of images, PDFs and
// videos, made by the isolated media helper (src/derive) and kept as
// derived data keyed by the content hash — copies of a file share them,
// a changed file gets new ones, and rows whose content is gone are
// collected with their files. Made on first request (concurrent requests
// for the same one share one run) and ahead of time by the derive job.
// What cannot be made (not decodable, over a limit) is recorded once, so a
// broken file is not retried on every request. Thread-safe.
//
// Authorization is the caller's: it hands in a node and chunks it read
// through the files domain (Files::OpenContent checks kRead).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "blob/chunk_store.h"
#include "jobs/helper_pool.h"
#include "jobs/isolate.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::media {

enum class Variant { kSmall = 1, kLarge = 2 };  // PERSISTED in derived.variant
inline constexpr int kSmallBox = 256;
inline constexpr int kLargeBox = 1024;
int BoxOf(Variant v);

struct ThumbnailOptions {
  std::string derived_dir;  // <data>/derived
  std::string tmp_dir;      // <data>/tmp
  std::string helper;       // the nubo-derive executable
  std::string ffmpeg = "ffmpeg";
  size_t helper_processes = 2;              // at most this many helpers run at once
  uint64_t max_input_bytes = 512ULL << 20;  // larger files get no thumbnail
  double max_pixels = 100e6;                // decompression-bomb limit
  jobs::IsolateLimits limits;
};

// Whether a thumbnail may exist for this file (by type): images libvips
// reads, PDF, SVG, video.
bool Previewable(std::string_view name, std::string_view mime);

// The helper next to the running server binary ("nubo-derive").
std::string DefaultHelperPath();

class Thumbnails;

// A file's content copied to a temp file once, for every helper that reads
// it by path while one job derives what it needs (thumbnail, photo facts,
// tags, text): made on the first Path(), removed with this object.
class ContentCopy {
 public:
  // The content of `node`; an audio file's copy ends in its suffix (TagLib
  // picks the format by it), whichever helper asks first.
  ContentCopy(Thumbnails& thumbnails, const meta::NodeRow& node,
              const std::vector<meta::ManifestChunk>& chunks);
  ~ContentCopy();
  ContentCopy(const ContentCopy&) = delete;
  ContentCopy& operator=(const ContentCopy&) = delete;

  Result<std::string> Path();

 private:
  Thumbnails& thumbnails_;
  const std::vector<meta::ManifestChunk>& chunks_;
  std::string suffix_;
  std::string path_;
};

class Thumbnails {
 public:
  Thumbnails(meta::MetaStore& meta, blob::ChunkStore& chunks, ThumbnailOptions options);

  // The path of the thumbnail file for `node` (whose content is `chunks`),
  // making it when missing. NotFound when none can exist.
  // `copy`: the node's content copy of the job asking, used if one is made.
  Result<std::string> Get(const meta::NodeRow& node, const std::vector<meta::ManifestChunk>& chunks,
                          Variant v, ContentCopy* copy = nullptr);

  // Deletes the rows and files of derived data whose content no longer
  // exists, files without a row older than `stray_grace_ms` (a crash
  // between the file's rename and its row), and temp copies made for the
  // helper (`<tmp>/derive-*`) as old (a crash while a helper read one).
  // Returns how many files went.
  Result<int64_t> CollectOrphans(int64_t stray_grace_ms = 3600 * 1000);

  // fsck: every stored row has its file with its size; files without a row
  // are counted (collection sweeps them). With `repair`, rows whose file is
  // gone are deleted (the thumbnail is made again when asked for).
  struct CheckReport {
    int64_t rows = 0, files = 0, stray_files = 0, repaired = 0;
    std::vector<std::string> problems;
  };
  Result<CheckReport> Check(bool repair);

  uint64_t made() const { return made_.load(); }
  // Temp copies of content written for a helper so far.
  uint64_t copies() const { return copies_.load(); }

  // Writes the content of `chunks` to a new temp file (its name ending in
  // `suffix`) and returns its path (the caller unlinks it). Shared with the
  // derive job.
  Result<std::string> Materialize(const std::vector<meta::ManifestChunk>& chunks,
                                  const std::string& suffix = "");

  const ThumbnailOptions& options() const { return options_; }
  // The media helper's long-lived processes (shared with the derive job).
  jobs::HelperPool& helpers() { return helpers_; }

 private:
  struct Flight {
    bool done = false;
    Result<std::string> result{Status::Internal("pending")};
  };
  std::string PathFor(const meta::Digest& hash, Variant v) const;
  Result<std::string> Make(const meta::NodeRow& node,
                           const std::vector<meta::ManifestChunk>& chunks, Variant v,
                           ContentCopy* copy);

  meta::MetaStore& meta_;
  blob::ChunkStore& chunks_;
  ThumbnailOptions options_;
  jobs::HelperPool helpers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Flight>> flights_;
  std::atomic<uint64_t> made_{0};
  std::atomic<uint64_t> copies_{0};
};

}  // namespace nubo::media
