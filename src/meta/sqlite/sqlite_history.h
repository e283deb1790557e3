// The SQLite backend's file versions and upload sessions (content over
// time): the statements behind the MetaStore methods of the same names,
// run on the transaction's connection. Internal to meta/sqlite.
#pragma once

#include <string>
#include <tuple>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

Result<std::vector<VersionRow>> ListVersions(sql::Conn& c, int64_t node_id);
Result<std::optional<VersionRow>> GetVersionByPublicId(sql::Conn& c, const std::string& public_id);
Result<std::vector<int64_t>> ListVersionedNodes(sql::Conn& c, int64_t after_id, size_t limit);
Result<std::vector<VersionRow>> ListOldestVersions(sql::Conn& c, int64_t drive_id, size_t limit);
Result<std::vector<std::tuple<std::string, int64_t, int64_t>>> VersionsBytesMismatches(
    sql::Conn& c, size_t limit);
Status InsertVersion(sql::Conn& c, VersionRow& row);
Status DeleteVersion(sql::Conn& c, const VersionRow& row);
// Before the subtree of `node_id` is deleted: its versions' charges leave
// the drive (the rows go by ON DELETE CASCADE; the caller releases their
// manifests, which SubtreeManifests lists).
Status DropSubtreeVersions(sql::Conn& c, int64_t node_id);

Result<std::optional<UploadSessionRow>> GetUploadSession(sql::Conn& c,
                                                         const std::string& public_id);
Result<std::vector<ManifestChunk>> UploadSessionChunks(sql::Conn& c, int64_t session_id);
Result<bool> ChunkListedIn(sql::Conn& c, const Digest& hash, const std::vector<int64_t>& drive_ids,
                           int64_t also_manifest);
Result<std::vector<UploadSessionRow>> ListExpiredUploadSessions(sql::Conn& c, int64_t now_ms,
                                                                size_t limit);
Result<std::vector<UploadSessionRow>> ListDriveUploadSessions(sql::Conn& c, int64_t drive_id,
                                                              size_t limit);
Status InsertUploadSession(sql::Conn& c, UploadSessionRow& row);
Status UpdateUploadSession(sql::Conn& c, const UploadSessionRow& row);
Status DeleteUploadSession(sql::Conn& c, int64_t id);
Status ClearUploadSessionChunks(sql::Conn& c, int64_t session_id);
Status AppendUploadSessionChunks(sql::Conn& c, int64_t session_id,
                                 const std::vector<ManifestChunk>& chunks);

}  // namespace nubo::meta::sqlite
