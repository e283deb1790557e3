// The SQLite backend's media and search state (the job queue, extracted
// text, derived media rows): the statements behind the MetaStore's methods
// of that section, run on the transaction's connection. Internal to
// meta/sqlite. Full-text and name queries that return nodes live in
// sqlite_store.cc beside the node columns.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

Result<JobCounts> CountJobs(sql::Conn& c, int64_t now_ms);
Result<bool> JobDue(sql::Conn& c, int64_t now_ms);
Result<std::vector<JobRow>> ListRetryingJobs(sql::Conn& c, size_t limit);
Result<std::optional<DerivedRow>> GetDerived(sql::Conn& c, const Digest& hash, int variant);
Result<std::vector<DerivedRow>> ListDerived(sql::Conn& c, const Digest& after_hash,
                                            int after_variant, size_t limit);
Status DeleteDerived(sql::Conn& c, const Digest& hash, int variant);
Result<std::vector<std::pair<int64_t, std::string>>> TextSnippets(
    Conn& c, const std::vector<std::string>& matches, const std::vector<int64_t>& node_ids);
Result<bool> HasText(Conn& c, int64_t node_id);
Result<std::vector<std::pair<std::string, int64_t>>> PhotoMonths(sql::Conn& c, int64_t drive_id);
Result<std::vector<PhotoPlace>> PhotoPlaces(sql::Conn& c, int64_t drive_id, double cell_deg);
Result<std::optional<PhotoRow>> GetPhoto(sql::Conn& c, int64_t node_id);
Status PutPhoto(sql::Conn& c, const PhotoRow& row);
// The photo columns ("p.…") in PhotoFrom's order, and the reader starting at `col`.
inline constexpr const char* kPhotoCols =
    "p.node_id, p.drive_id, p.taken_at, p.taken_exact, p.width, p.height, p.orientation, "
    "p.camera, p.lat, p.lon";
inline constexpr int kPhotoColCount = 10;
PhotoRow PhotoFrom(const Stmt& s, int col);

Result<std::optional<JobRow>> ClaimJob(sql::Conn& c, int64_t now_ms, int64_t lease_ms);
Status FinishJob(sql::Conn& c, const JobRow& job);
Status FailJob(sql::Conn& c, const JobRow& job, const std::string& error, int64_t retry_at_ms);
Status PutText(Conn& c, int64_t node_id, const std::string& text);
Status PutDerived(sql::Conn& c, const DerivedRow& row);
Result<std::vector<DerivedRow>> TakeOrphanDerived(sql::Conn& c, size_t limit);

}  // namespace nubo::meta::sqlite
