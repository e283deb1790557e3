// File versions (docs/versions-and-uploads.md): every overwrite — REST,
// WebDAV PUT and PATCH, tus, delta, the Nextcloud API — keeps the previous
// content as a version in the same transaction. A version is a reference
// to a manifest like a file's, so it costs only the chunks it does not
// share; it is charged against the quota for the bytes of its chunks that
// the content which replaced it lacks.
//
// What is kept (the schedule Nextcloud users know): every version of the
// last day, one per hour for the day before, one per day for the rest of
// the first 30 days, one per week after. Besides, versions take at most
// files.versions_quota_share of a drive with a quota, and give way (oldest
// first) when an overwrite needs their room.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nubo::files {

// Of versions created at `created_desc` (ms, newest first), the indexes to
// delete at `now_ms` under the schedule above: in each period the newest
// is kept.
std::vector<size_t> VersionsToThin(const std::vector<int64_t>& created_desc, int64_t now_ms);

}  // namespace nubo::files
