// Background jobs and what they derive: derived data (thumbnails) and
// photo metadata.
//
// One capability of the MetaStore (meta_store.h): MediaReads are part of every
// transaction, MediaWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "meta/digest.h"
#include "meta/nodes_txn.h"
#include "util/status.h"

namespace nubo::meta {

// Work queued on a node by the triggers of migration 0014.
struct JobRow {
  int64_t id = 0;
  std::string kind;
  int64_t node_id = 0;
  int64_t gen = 0;  // bumped by every new request for the same (kind, node)
  int64_t run_at_ms = 0;
  int64_t attempts = 0;
  int64_t lease_until_ms = 0;
  std::string last_error;
};

struct JobCounts {
  int64_t due = 0;       // waiting and runnable now
  int64_t running = 0;   // leased
  int64_t retrying = 0;  // failed at least once, waiting for their next attempt
  int64_t done = 0;      // totals since the database was made
  int64_t failed = 0;
};

// A derived media row (thumbnail variant of one content hash).
struct DerivedRow {
  Digest hash{};
  int variant = 0;  // PERSISTED: 1 small, 2 large
  int state = 0;    // PERSISTED: 0 stored, 1 none possible
  int64_t bytes = 0;
  int64_t created_at_ms = 0;
};

// What an image's EXIF says (migration 0015).
struct PhotoRow {
  int64_t node_id = 0;
  int64_t drive_id = 0;
  int64_t taken_at_ms = 0;   // the camera's wall clock read as UTC
  bool taken_exact = false;  // false: the file's modification time
  int64_t width = 0, height = 0;
  int orientation = 1;
  std::string camera;
  std::optional<double> lat, lon;
};

// A cell of the places map: the photos in it, their mean position and one
// of them to show.
struct PhotoPlace {
  double lat = 0, lon = 0;
  int64_t count = 0;
  int64_t cover_node_id = 0;
};

class MediaReads {
 public:
  virtual ~MediaReads() = default;

  virtual Result<JobCounts> CountJobs(int64_t now_ms) = 0;
  // Whether a job is due and free (cheap: workers ask before claiming).
  virtual Result<bool> JobDue(int64_t now_ms) = 0;
  // Jobs that failed at least once, most recent attempt first.
  virtual Result<std::vector<JobRow>> ListRetryingJobs(size_t limit) = 0;
  virtual Result<std::optional<DerivedRow>> GetDerived(const Digest& hash, int variant) = 0;
  // Derived rows after (hash, variant), in that order (fsck).
  virtual Result<std::vector<DerivedRow>> ListDerived(const Digest& after_hash, int after_variant,
                                                      size_t limit) = 0;
  // Live photos of a drive, newest first ((taken_at, node id) before
  // `before`), with their nodes.
  virtual Result<std::vector<std::pair<PhotoRow, NodeRow>>> ListPhotos(
      int64_t drive_id, const std::optional<std::pair<int64_t, int64_t>>& before, size_t limit,
      int64_t viewer) = 0;
  // Live photos of a drive per month ("YYYY-MM"), newest month first.
  virtual Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(int64_t drive_id) = 0;
  // Live photos with a position, grouped in cells of `cell_deg` degrees.
  virtual Result<std::vector<PhotoPlace>> PhotoPlaces(int64_t drive_id, double cell_deg) = 0;
  virtual Result<std::optional<PhotoRow>> GetPhoto(int64_t node_id) = 0;
};

class MediaWrites {
 public:
  virtual ~MediaWrites() = default;

  // Leases the oldest due job for `lease_ms` and counts the attempt;
  // nullopt when none is due.
  virtual Result<std::optional<JobRow>> ClaimJob(int64_t now_ms, int64_t lease_ms) = 0;
  // Retires the job unless it was requested again since it was claimed
  // (gen moved on): then it is only released, due at once.
  virtual Status FinishJob(const JobRow& job) = 0;
  // Releases the job until `retry_at_ms` with its error.
  virtual Status FailJob(const JobRow& job, const std::string& error, int64_t retry_at_ms) = 0;
  // Queues `kind` for `node_id` as the triggers do (requested again, due
  // at once, if it is queued already).
  virtual Status QueueJob(const std::string& kind, int64_t node_id) = 0;
  // Drops the queued `kind` of `node_id`, if any.
  virtual Status DropJob(const std::string& kind, int64_t node_id) = 0;
  virtual Status PutDerived(const DerivedRow& row) = 0;
  virtual Status DeleteDerived(const Digest& hash, int variant) = 0;
  virtual Status PutPhoto(const PhotoRow& row) = 0;
  // Deletes up to `limit` derived rows whose content no manifest holds any
  // more and returns them (their files go next).
  virtual Result<std::vector<DerivedRow>> TakeOrphanDerived(size_t limit) = 0;
};

}  // namespace nubo::meta
