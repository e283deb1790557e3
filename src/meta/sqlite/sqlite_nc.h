// The SQLite backend's Nextcloud-client state (login flows, chunked upload
// v2 folders): the statements behind the MetaStore's methods of that
// section, run on the transaction's connection. Internal to meta/sqlite.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meta/meta_store.h"
#include "meta/sqlite/sqlite_conn.h"

namespace nubo::meta::sqlite {

Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(Conn& c, const std::string& login_token);
Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(Conn& c, const Digest& poll_hash);
Status InsertLoginFlow(Conn& c, LoginFlowRow& row);
Status GrantLoginFlow(Conn& c, const LoginFlowRow& row);
Status DeleteLoginFlow(Conn& c, int64_t id);
Result<int64_t> DeleteExpiredLoginFlows(Conn& c, int64_t now_ms);

Result<std::optional<NcUploadRow>> GetNcUpload(Conn& c, int64_t user_id, const std::string& name);
Result<std::vector<NcUploadPart>> ListNcUploadParts(Conn& c, int64_t upload_id);
Result<std::vector<NcUploadRow>> ListExpiredNcUploads(Conn& c, int64_t now_ms, size_t limit);
Status InsertNcUpload(Conn& c, NcUploadRow& row);
Status DeleteNcUpload(Conn& c, int64_t id);
Result<std::optional<std::string>> PutNcUploadPart(Conn& c, int64_t upload_id,
                                                   const NcUploadPart& part);

}  // namespace nubo::meta::sqlite
