#include "meta/sqlite/sqlite_nc.h"

#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

constexpr const char* kFlowSelect =
    "SELECT id, poll_hash, login_token, client_name, COALESCE(user_id, 0), login_name, sealed, "
    "created_at, expires_at FROM login_flows ";

LoginFlowRow FlowFrom(const Stmt& s) {
  LoginFlowRow r;
  r.id = s.Int(0);
  r.poll_hash = s.Hash(1);
  r.login_token = s.Text(2);
  r.client_name = s.Text(3);
  r.user_id = s.Int(4);
  r.login_name = s.Text(5);
  r.sealed = s.Blob(6);
  r.created_at_ms = s.Int(7);
  r.expires_at_ms = s.Int(8);
  return r;
}

constexpr const char* kUploadSelect =
    "SELECT id, user_id, name, destination, created_at, expires_at FROM nc_uploads ";

NcUploadRow UploadFrom(const Stmt& s) {
  NcUploadRow r;
  r.id = s.Int(0);
  r.user_id = s.Int(1);
  r.name = s.Text(2);
  r.destination = s.Text(3);
  r.created_at_ms = s.Int(4);
  r.expires_at_ms = s.Int(5);
  return r;
}

NcUploadPart PartFrom(const Stmt& s) {
  NcUploadPart p;
  p.number = s.Int(0);
  p.session_id = s.Text(1);
  p.size = s.Int(2);
  p.seed_session = s.Text(3);
  return p;
}

}  // namespace

Result<std::optional<LoginFlowRow>> GetLoginFlowByToken(sql::Conn& c,
                                                        const std::string& login_token) {
  static const std::string sql = std::string(kFlowSelect) + "WHERE login_token = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, login_token);
  return One<LoginFlowRow>(s, FlowFrom);
}

Result<std::optional<LoginFlowRow>> GetLoginFlowByPoll(sql::Conn& c, const Digest& poll_hash) {
  static const std::string sql = std::string(kFlowSelect) + "WHERE poll_hash = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, poll_hash);
  return One<LoginFlowRow>(s, FlowFrom);
}

Status InsertLoginFlow(sql::Conn& c, LoginFlowRow& row) {
  NUBO_PREPARE(s, c,
               "INSERT INTO login_flows (poll_hash, login_token, client_name, created_at, "
               "expires_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
  s.Bind(1, row.poll_hash)
      .Bind(2, row.login_token)
      .Bind(3, row.client_name)
      .Bind(4, row.created_at_ms)
      .Bind(5, row.expires_at_ms);
  NUBO_ASSIGN_OR_RETURN(row.id, InsertedId(s));
  return Status::Ok();
}

Status GrantLoginFlow(sql::Conn& c, const LoginFlowRow& row) {
  NUBO_PREPARE(s, c,
               "UPDATE login_flows SET user_id = ?, login_name = ?, sealed = ? "
               "WHERE id = ? AND user_id IS NULL");
  s.Bind(1, row.user_id).Bind(2, row.login_name).BindBlob(3, row.sealed).Bind(4, row.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() != 1) return Status::NotFound("no such login flow");
  return Status::Ok();
}

Status DeleteLoginFlow(sql::Conn& c, int64_t id) {
  NUBO_PREPARE(s, c, "DELETE FROM login_flows WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() != 1) return Status::NotFound("no such login flow");
  return Status::Ok();
}

Result<int64_t> DeleteExpiredLoginFlows(sql::Conn& c, int64_t now_ms) {
  NUBO_PREPARE(s, c, "DELETE FROM login_flows WHERE expires_at <= ?");
  s.Bind(1, now_ms);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return static_cast<int64_t>(s.changes());
}

Result<std::optional<NcUploadRow>> GetNcUpload(sql::Conn& c, int64_t user_id,
                                               const std::string& name) {
  static const std::string sql = std::string(kUploadSelect) + "WHERE user_id = ? AND name = ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, user_id).Bind(2, name);
  return One<NcUploadRow>(s, UploadFrom);
}

Result<std::vector<NcUploadPart>> ListNcUploadParts(sql::Conn& c, int64_t upload_id) {
  NUBO_PREPARE(
      s, c,
      "SELECT number, session_id, size, seed_session FROM nc_upload_parts WHERE upload_id = ? "
      "ORDER BY number");
  s.Bind(1, upload_id);
  return Rows<NcUploadPart>(s, PartFrom);
}

Result<std::vector<NcUploadRow>> ListExpiredNcUploads(sql::Conn& c, int64_t now_ms, size_t limit) {
  static const std::string sql =
      std::string(kUploadSelect) + "WHERE expires_at <= ? ORDER BY expires_at LIMIT ?";
  NUBO_PREPARE(s, c, sql.c_str());
  s.Bind(1, now_ms).Bind(2, static_cast<int64_t>(limit));
  return Rows<NcUploadRow>(s, UploadFrom);
}

Status InsertNcUpload(sql::Conn& c, NcUploadRow& row) {
  NUBO_PREPARE(s, c,
               "INSERT INTO nc_uploads (user_id, name, destination, created_at, expires_at) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
  s.Bind(1, row.user_id)
      .Bind(2, row.name)
      .Bind(3, row.destination)
      .Bind(4, row.created_at_ms)
      .Bind(5, row.expires_at_ms);
  NUBO_ASSIGN_OR_RETURN(row.id, InsertedId(s));
  return Status::Ok();
}

Status DeleteNcUpload(sql::Conn& c, int64_t id) {
  NUBO_PREPARE(s, c, "DELETE FROM nc_uploads WHERE id = ?");
  s.Bind(1, id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() != 1) return Status::NotFound("no such upload");
  return Status::Ok();
}

Result<std::optional<std::string>> PutNcUploadPart(sql::Conn& c, int64_t upload_id,
                                                   const NcUploadPart& part) {
  std::optional<std::string> replaced;
  {
    NUBO_PREPARE(s, c, "SELECT session_id FROM nc_upload_parts WHERE upload_id = ? AND number = ?");
    s.Bind(1, upload_id).Bind(2, part.number);
    NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) replaced = s.Text(0);
  }
  NUBO_PREPARE(s, c,
               "INSERT INTO nc_upload_parts (upload_id, number, session_id, size, seed_session) "
               "VALUES (?, ?, ?, ?, ?) ON CONFLICT (upload_id, number) DO UPDATE SET "
               "session_id = excluded.session_id, size = excluded.size, "
               "seed_session = excluded.seed_session");
  s.Bind(1, upload_id)
      .Bind(2, part.number)
      .Bind(3, part.session_id)
      .Bind(4, part.size)
      .Bind(5, part.seed_session);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return replaced;
}

// ---- The transaction's methods of this capability (sqlite_txn.h) ----

Result<std::optional<LoginFlowRow>> SqliteTxn::GetLoginFlowByToken(const std::string& token) {
  return sqlite::GetLoginFlowByToken(c_, token);
}

Result<std::optional<LoginFlowRow>> SqliteTxn::GetLoginFlowByPoll(const Digest& poll_hash) {
  return sqlite::GetLoginFlowByPoll(c_, poll_hash);
}

Result<std::optional<NcUploadRow>> SqliteTxn::GetNcUpload(int64_t user_id,
                                                          const std::string& name) {
  return sqlite::GetNcUpload(c_, user_id, name);
}

Result<std::vector<NcUploadPart>> SqliteTxn::ListNcUploadParts(int64_t upload_id) {
  return sqlite::ListNcUploadParts(c_, upload_id);
}

Result<std::vector<NcUploadRow>> SqliteTxn::ListExpiredNcUploads(int64_t now_ms, size_t limit) {
  return sqlite::ListExpiredNcUploads(c_, now_ms, limit);
}

Status SqliteTxn::InsertLoginFlow(LoginFlowRow& row) { return sqlite::InsertLoginFlow(c_, row); }

Status SqliteTxn::GrantLoginFlow(const LoginFlowRow& row) {
  return sqlite::GrantLoginFlow(c_, row);
}

Status SqliteTxn::DeleteLoginFlow(int64_t id) { return sqlite::DeleteLoginFlow(c_, id); }

Result<int64_t> SqliteTxn::DeleteExpiredLoginFlows(int64_t now_ms) {
  return sqlite::DeleteExpiredLoginFlows(c_, now_ms);
}

Status SqliteTxn::InsertNcUpload(NcUploadRow& row) { return sqlite::InsertNcUpload(c_, row); }

Status SqliteTxn::DeleteNcUpload(int64_t id) { return sqlite::DeleteNcUpload(c_, id); }

Result<std::optional<std::string>> SqliteTxn::PutNcUploadPart(int64_t upload_id,
                                                              const NcUploadPart& part) {
  return sqlite::PutNcUploadPart(c_, upload_id, part);
}

}  // namespace nubo::meta::sqlite
