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

Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(sql::Conn& c,
                                                        const std::string& login_token);
Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(sql::Conn& c, const Digest& poll_hash);
Status InsertLoginFlow(sql::Conn& c, LoginFlowRow& row);
Status GrantLoginFlow(sql::Conn& c, const LoginFlowRow& row);
Status DeleteLoginFlow(sql::Conn& c, int64_t id);
Result<int64_t> DeleteExpiredLoginFlows(sql::Conn& c, int64_t now_ms);

Result<std::optional<NcUploadRow>> GetNcUpload(sql::Conn& c, int64_t user_id,
                                               const std::string& name);
Result<std::vector<NcUploadPart>> ListNcUploadParts(sql::Conn& c, int64_t upload_id);
Result<std::vector<NcUploadRow>> ListExpiredNcUploads(sql::Conn& c, int64_t now_ms, size_t limit);
Status InsertNcUpload(sql::Conn& c, NcUploadRow& row);
Status DeleteNcUpload(sql::Conn& c, int64_t id);
Result<std::optional<std::string>> PutNcUploadPart(sql::Conn& c, int64_t upload_id,
                                                   const NcUploadPart& part);

}  // namespace nubo::meta::sqlite
