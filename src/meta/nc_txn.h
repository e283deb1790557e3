// Nextcloud clients' state: login flows and chunked (v1 bulk) uploads.
//
// One capability of the MetaStore (meta_store.h): NcReads are part of every
// transaction, NcWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

// Login Flow v2 (docs/nextcloud.md): pending until granted, then holding
// the app password sealed for the one poll that takes it.
struct LoginFlowRow {
  int64_t id = 0;
  Digest poll_hash{};
  std::string login_token;
  std::string client_name;
  int64_t user_id = 0;  // 0: not granted yet
  std::string login_name;
  std::string sealed;  // the app password, sealed with the poll token's key
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
};

// A chunked upload v2 folder and its parts (each a complete upload session).
struct NcUploadRow {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string name;
  std::string destination;
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
};

struct NcUploadPart {
  int64_t number = 0;
  std::string session_id;
  int64_t size = 0;
  // The session of the part before it whose hash state this part's
  // continued ("" when it started a fresh one).
  std::string seed_session;
};

class NcReads {
 public:
  virtual ~NcReads() = default;

  virtual Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(
      const std::string& login_token) = 0;
  virtual Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(const Digest& poll_hash) = 0;
  virtual Result<std::optional<NcUploadRow>> GetNcUpload(int64_t user_id,
                                                         const std::string& name) = 0;
  // By number (numerically).
  virtual Result<std::vector<NcUploadPart>> ListNcUploadParts(int64_t upload_id) = 0;
  virtual Result<std::vector<NcUploadRow>> ListExpiredNcUploads(int64_t now_ms, size_t limit) = 0;
};

class NcWrites {
 public:
  virtual ~NcWrites() = default;

  virtual Status InsertLoginFlow(LoginFlowRow& row) = 0;  // sets id
  // Grants a pending flow (user_id, login_name, sealed). NotFound when it
  // is gone or was granted already.
  virtual Status GrantLoginFlow(const LoginFlowRow& row) = 0;
  virtual Status DeleteLoginFlow(int64_t id) = 0;
  virtual Result<int64_t> DeleteExpiredLoginFlows(int64_t now_ms) = 0;
  // AlreadyExists when the user has an upload of that name.
  virtual Status InsertNcUpload(NcUploadRow& row) = 0;  // sets id
  virtual Status DeleteNcUpload(int64_t id) = 0;        // and its parts
  // Sets the part `number` (replacing one sent before); returns the session
  // id it replaced, if any.
  virtual Result<std::optional<std::string>> PutNcUploadPart(int64_t upload_id,
                                                             const NcUploadPart& part) = 0;
};

}  // namespace nubo::meta
