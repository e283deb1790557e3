// The SQLite backend's accounts: users, app passwords, sign-in sessions,
// settings, serving processes, maintenance leases and sign-in failures.

#include <string>
#include <vector>

#include "meta/sqlite/sqlite_rows.h"
#include "meta/sqlite/sqlite_txn.h"

namespace nubo::meta::sqlite {

namespace {

constexpr const char* kUserCols =
    "id, public_id, username, email, display_name, password_hash, role, active, quota_bytes, "
    "credentials_version, created_at, last_login_at";

UserRow UserFrom(const Stmt& s) {
  UserRow u;
  u.id = s.Int(0);
  u.public_id = s.Text(1);
  u.username = s.Text(2);
  if (!s.IsNull(3)) u.email = s.Text(3);
  u.display_name = s.Text(4);
  u.password_hash = s.Text(5);
  u.role = s.Text(6);
  u.active = s.Int(7) != 0;
  if (!s.IsNull(8)) u.quota_bytes = s.Int(8);
  u.credentials_version = s.Int(9);
  u.created_at_ms = s.Int(10);
  if (!s.IsNull(11)) u.last_login_at_ms = s.Int(11);
  return u;
}

AppPasswordRow AppPasswordFrom(const Stmt& s) {
  AppPasswordRow a;
  a.id = s.Int(0);
  a.user_id = s.Int(1);
  a.label = s.Text(2);
  a.secret_hash = s.Hash(3);
  a.created_at_ms = s.Int(4);
  if (!s.IsNull(5)) a.last_used_at_ms = s.Int(5);
  a.scopes = static_cast<uint32_t>(s.Int(6));
  return a;
}

constexpr const char* kSessionSelect =
    "SELECT id, public_id, user_id, family_id, refresh_hash, created_at, expires_at, revoked_at, "
    "user_agent, ip, rotated_at FROM sessions ";

SessionRow SessionFrom(const Stmt& s) {
  SessionRow r;
  r.id = s.Int(0);
  r.public_id = s.Text(1);
  r.user_id = s.Int(2);
  r.family_id = s.Text(3);
  r.refresh_hash = s.Hash(4);
  r.created_at_ms = s.Int(5);
  r.expires_at_ms = s.Int(6);
  if (!s.IsNull(7)) r.revoked_at_ms = s.Int(7);
  r.user_agent = s.Text(8);
  r.ip = s.Text(9);
  if (!s.IsNull(10)) r.rotated_at_ms = s.Int(10);
  return r;
}

}  // namespace

Result<std::optional<UserRow>> SqliteTxn::GetUserByName(const std::string& username) {
  static const std::string sql =
      std::string("SELECT ") + kUserCols + " FROM users WHERE name_key = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  std::string key = Lower(username);
  s.Bind(1, key);
  return One<UserRow>(s, UserFrom);
}

Result<std::optional<UserRow>> SqliteTxn::GetUserByEmail(const std::string& email) {
  static const std::string sql = std::string("SELECT ") + kUserCols + " FROM users WHERE email = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  std::string key = Lower(email);
  s.Bind(1, key);
  return One<UserRow>(s, UserFrom);
}

Result<std::optional<UserRow>> SqliteTxn::GetUser(int64_t id) {
  static const std::string sql = std::string("SELECT ") + kUserCols + " FROM users WHERE id = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, id);
  return One<UserRow>(s, UserFrom);
}

Result<std::vector<UserRow>> SqliteTxn::ListUsers(const std::string& after_key, size_t limit,
                                                  const std::string& prefix) {
  // A prefix is a key range: names are ASCII, so prefix + '\x7f' bounds it.
  static const std::string sql =
      std::string("SELECT ") + kUserCols +
      " FROM users WHERE name_key > ? AND name_key >= ? AND name_key < ? "
      "ORDER BY name_key LIMIT ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  std::string key = Lower(after_key);
  std::string lo = Lower(prefix);
  std::string hi = lo + "\x7f";
  s.Bind(1, key).Bind(2, lo).Bind(3, hi).Bind(4, static_cast<int64_t>(limit));
  return Rows<UserRow>(s, UserFrom);
}

Result<int64_t> SqliteTxn::CountUsers() {
  NUBO_PREPARE(s, c_, "SELECT COUNT(*) FROM users");
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<int64_t> SqliteTxn::CountActiveAdmins() {
  NUBO_PREPARE(s, c_, "SELECT COUNT(*) FROM users WHERE role = 'admin' AND active = 1");
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.Int(0) : 0;
}

Result<std::optional<AppPasswordRow>> SqliteTxn::FindAppPassword(const Digest& secret_hash) {
  NUBO_PREPARE(s, c_,
               "SELECT id, user_id, label, secret_hash, created_at, last_used_at, scopes "
               "FROM app_passwords WHERE secret_hash = ?");
  s.Bind(1, secret_hash);
  return One<AppPasswordRow>(s, AppPasswordFrom);
}

Result<std::vector<AppPasswordRow>> SqliteTxn::ListAppPasswords(int64_t user_id) {
  NUBO_PREPARE(s, c_,
               "SELECT id, user_id, label, secret_hash, created_at, last_used_at, scopes "
               "FROM app_passwords WHERE user_id = ? ORDER BY id");
  s.Bind(1, user_id);
  return Rows<AppPasswordRow>(s, AppPasswordFrom);
}

Result<std::optional<SessionRow>> SqliteTxn::FindSessionByRefresh(const Digest& refresh_hash) {
  static const std::string sql = std::string(kSessionSelect) + "WHERE refresh_hash = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, refresh_hash);
  return One<SessionRow>(s, SessionFrom);
}

Result<std::optional<SessionRow>> SqliteTxn::GetSession(const std::string& public_id) {
  static const std::string sql = std::string(kSessionSelect) + "WHERE public_id = ?";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, public_id);
  return One<SessionRow>(s, SessionFrom);
}

Result<bool> SqliteTxn::FamilyHasLiveSession(const std::string& family_id, int64_t now_ms) {
  NUBO_PREPARE(s, c_,
               "SELECT 1 FROM sessions WHERE family_id = ? AND revoked_at IS NULL "
               "AND expires_at > ? LIMIT 1");
  s.Bind(1, family_id).Bind(2, now_ms);
  return s.Step();
}

Result<std::vector<SessionRow>> SqliteTxn::ListSessions(int64_t user_id, int64_t now_ms) {
  static const std::string sql =
      std::string(kSessionSelect) +
      "WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ? ORDER BY id DESC";
  NUBO_PREPARE(s, c_, sql.c_str());
  s.Bind(1, user_id).Bind(2, now_ms);
  return Rows<SessionRow>(s, SessionFrom);
}

Result<std::optional<std::string>> SqliteTxn::GetSetting(const std::string& key) {
  NUBO_PREPARE(s, c_, "SELECT value FROM settings WHERE key = ?");
  s.Bind(1, key);
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(s.Text(0));
}

Result<std::vector<ProcessRow>> SqliteTxn::LiveProcesses(int64_t alive_since_ms) {
  NUBO_PREPARE(s, c_,
               "SELECT id, host, pid, started_at, heartbeat_at, oldest_pin_at FROM "
               "server_processes WHERE heartbeat_at >= ? ORDER BY started_at, id");
  s.Bind(1, alive_since_ms);
  return Rows<ProcessRow>(s, [](const Stmt& r) {
    ProcessRow p{r.Text(0), r.Text(1), r.Int(2), r.Int(3), r.Int(4), std::nullopt};
    if (!r.IsNull(5)) p.oldest_pin_at_ms = r.Int(5);
    return p;
  });
}

Status SqliteTxn::BeatProcess(const ProcessRow& p, int64_t forget_before_ms) {
  {
    NUBO_PREPARE(s, c_, "DELETE FROM server_processes WHERE heartbeat_at < ?");
    s.Bind(1, forget_before_ms);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  NUBO_PREPARE(s, c_,
               "INSERT INTO server_processes (id, host, pid, started_at, heartbeat_at, "
               "oldest_pin_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
               "heartbeat_at = excluded.heartbeat_at, oldest_pin_at = excluded.oldest_pin_at");
  s.Bind(1, p.id)
      .Bind(2, p.host)
      .Bind(3, p.pid)
      .Bind(4, p.started_at_ms)
      .Bind(5, p.heartbeat_at_ms);
  BindOpt(s, 6, p.oldest_pin_at_ms);
  return s.Exec();
}

Status SqliteTxn::EndProcess(const std::string& id) {
  NUBO_PREPARE(s, c_, "DELETE FROM server_processes WHERE id = ?");
  s.Bind(1, id);
  return s.Exec();
}

Result<bool> SqliteTxn::TakeLease(const std::string& name, const std::string& holder,
                                  int64_t now_ms, int64_t until_ms, int64_t done_by_ms) {
  // One statement decides: the row's condition is checked where it is
  // changed (the update's WHERE), never read first and then set.
  NUBO_PREPARE(s, c_,
               "INSERT INTO leases (name, holder, held_until, done_at) VALUES (?1, ?2, ?4, 0) "
               "ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, "
               "held_until = excluded.held_until WHERE leases.holder = excluded.holder OR "
               "((leases.holder IS NULL OR leases.held_until < ?3) AND leases.done_at <= ?5)");
  s.Bind(1, name).Bind(2, holder).Bind(3, now_ms).Bind(4, until_ms).Bind(5, done_by_ms);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return s.changes() == 1;
}

Status SqliteTxn::ReleaseLease(const std::string& name, const std::string& holder,
                               int64_t done_at_ms) {
  NUBO_PREPARE(s, c_,
               "UPDATE leases SET holder = NULL, held_until = 0, done_at = ?3 "
               "WHERE name = ?1 AND holder = ?2");
  s.Bind(1, name).Bind(2, holder).Bind(3, done_at_ms);
  return s.Exec();
}

Result<std::vector<SignInFailureRow>> SqliteTxn::SignInFailuresSince(int64_t since_ms,
                                                                     size_t limit) {
  NUBO_PREPARE(s, c_,
               "SELECT key, failures, locked_until, updated_at FROM sign_in_failures "
               "WHERE updated_at >= ? ORDER BY updated_at LIMIT ?");
  s.Bind(1, since_ms).Bind(2, static_cast<int64_t>(limit));
  return Rows<SignInFailureRow>(s, [](const Stmt& r) {
    return SignInFailureRow{r.Text(0), r.Int(1), r.Int(2), r.Int(3)};
  });
}

Result<SignInFailureRow> SqliteTxn::AddSignInFailures(const std::string& key, int64_t count,
                                                      int64_t max_failures, int64_t lockout_ms,
                                                      int64_t now_ms) {
  // Writers are serialized on both engines (one SQLite writer; the
  // PostgreSQL store's write lock), so reading then writing is exact.
  SignInFailureRow row{key, 0, 0, now_ms};
  {
    NUBO_PREPARE(s, c_, "SELECT failures, locked_until FROM sign_in_failures WHERE key = ?");
    s.Bind(1, key);
    NUBO_ASSIGN_OR_RETURN(bool found, s.Step());
    if (found) {
      row.failures = s.Int(0);
      row.locked_until_ms = s.Int(1);
    }
  }
  if (row.locked_until_ms != 0 && row.locked_until_ms <= now_ms) {
    row.failures = 0;  // the lock ended: a new window
    row.locked_until_ms = 0;
  }
  row.failures += count;
  if (row.failures >= max_failures && row.locked_until_ms == 0) {
    row.locked_until_ms = now_ms + lockout_ms;
  }
  NUBO_PREPARE(s, c_,
               "INSERT INTO sign_in_failures (key, failures, locked_until, updated_at) "
               "VALUES (?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET failures = "
               "excluded.failures, locked_until = excluded.locked_until, updated_at = "
               "excluded.updated_at");
  s.Bind(1, key).Bind(2, row.failures).Bind(3, row.locked_until_ms).Bind(4, now_ms);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return row;
}

Status SqliteTxn::ClearSignInFailures(const std::string& key, int64_t now_ms) {
  NUBO_PREPARE(s, c_,
               "DELETE FROM sign_in_failures WHERE key = ? AND (locked_until = 0 OR "
               "locked_until <= ?)");
  s.Bind(1, key).Bind(2, now_ms);
  return s.Exec();
}

Result<int64_t> SqliteTxn::PurgeSignInFailures(int64_t before_ms, int64_t now_ms) {
  NUBO_PREPARE(s, c_, "DELETE FROM sign_in_failures WHERE updated_at < ? AND locked_until <= ?");
  s.Bind(1, before_ms).Bind(2, now_ms);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return static_cast<int64_t>(s.changes());
}

Status SqliteTxn::InsertSession(SessionRow& r) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO sessions (public_id, user_id, family_id, refresh_hash, created_at, "
               "expires_at, "
               "revoked_at, user_agent, ip) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?) ON CONFLICT DO "
               "NOTHING RETURNING id");
  s.Bind(1, r.public_id).Bind(2, r.user_id).Bind(3, r.family_id).Bind(4, r.refresh_hash);
  s.Bind(5, r.created_at_ms).Bind(6, r.expires_at_ms).Bind(7, r.user_agent).Bind(8, r.ip);
  NUBO_ASSIGN_OR_RETURN(r.id, InsertedId(s));
  return Status::Ok();
}

Status SqliteTxn::RevokeSession(int64_t id, int64_t now_ms, bool rotated) {
  NUBO_PREPARE(s, c_,
               "UPDATE sessions SET revoked_at = ?1, rotated_at = CASE WHEN ?3 <> 0 THEN CAST(?1 "
               "AS BIGINT) END "
               "WHERE id = ?2 AND revoked_at IS NULL");
  s.Bind(1, now_ms).Bind(2, id).Bind(3, int64_t{rotated});
  return s.Exec();
}

Status SqliteTxn::RevokeSessionFamily(const std::string& family_id, int64_t now_ms) {
  NUBO_PREPARE(s, c_,
               "UPDATE sessions SET revoked_at = ? WHERE family_id = ? AND revoked_at IS NULL");
  s.Bind(1, now_ms).Bind(2, family_id);
  return s.Exec();
}

Status SqliteTxn::RevokeUserSessions(int64_t user_id, int64_t keep_id, int64_t now_ms) {
  NUBO_PREPARE(
      s, c_,
      "UPDATE sessions SET revoked_at = ? WHERE user_id = ? AND id != ? AND revoked_at IS NULL");
  s.Bind(1, now_ms).Bind(2, user_id).Bind(3, keep_id);
  return s.Exec();
}

Status SqliteTxn::SetSetting(const std::string& key, const std::string& value) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET "
               "value = excluded.value");
  s.Bind(1, key).Bind(2, value);
  return s.Exec();
}

Result<std::string> SqliteTxn::SetSettingIfAbsent(const std::string& key,
                                                  const std::string& value) {
  {
    NUBO_PREPARE(s, c_,
                 "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING");
    s.Bind(1, key).Bind(2, value);
    NUBO_RETURN_IF_ERROR(s.Exec());
  }
  NUBO_ASSIGN_OR_RETURN(auto v, GetSetting(key));
  if (!v) return Status::Internal("setting " + key + " vanished");
  return *v;
}

Status SqliteTxn::InsertUser(UserRow& u) {
  NUBO_PREPARE(
      s, c_,
      "INSERT INTO users (public_id, username, name_key, email, display_name, password_hash, "
      "role, active, quota_bytes, credentials_version, created_at, last_login_at) "
      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING id");
  std::string key = Lower(u.username);
  std::optional<std::string> email =
      u.email ? std::optional<std::string>(Lower(*u.email)) : std::nullopt;
  BindUser(s, u, key, email);
  NUBO_ASSIGN_OR_RETURN(u.id, InsertedId(s));
  return Status::Ok();
}

Status SqliteTxn::UpdateUser(const UserRow& u) {
  NUBO_PREPARE(
      s, c_,
      "UPDATE users SET public_id = ?, username = ?, name_key = ?, email = ?, display_name = ?, "
      "password_hash = ?, role = ?, active = ?, quota_bytes = ?, credentials_version = ?, "
      "created_at = ?, last_login_at = ? WHERE id = ?");
  std::string key = Lower(u.username);
  std::optional<std::string> email =
      u.email ? std::optional<std::string>(Lower(*u.email)) : std::nullopt;
  BindUser(s, u, key, email);
  s.Bind(13, u.id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no user " + std::to_string(u.id));
  return Status::Ok();
}

Result<int64_t> SqliteTxn::InsertAppPassword(const AppPasswordRow& a) {
  NUBO_PREPARE(s, c_,
               "INSERT INTO app_passwords (user_id, label, secret_hash, created_at, last_used_at, "
               "scopes) VALUES (?, ?, ?, ?, NULL, ?) ON CONFLICT DO NOTHING RETURNING id");
  s.Bind(1, a.user_id).Bind(2, a.label).Bind(3, a.secret_hash).Bind(4, a.created_at_ms);
  s.Bind(5, static_cast<int64_t>(a.scopes));
  return InsertedId(s);
}

Status SqliteTxn::DeleteAppPassword(int64_t user_id, int64_t id) {
  NUBO_PREPARE(s, c_, "DELETE FROM app_passwords WHERE id = ? AND user_id = ?");
  s.Bind(1, id).Bind(2, user_id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  if (s.changes() == 0) return Status::NotFound("no app password " + std::to_string(id));
  return Status::Ok();
}

Result<int64_t> SqliteTxn::DeleteAppPasswords(int64_t user_id) {
  NUBO_PREPARE(s, c_, "DELETE FROM app_passwords WHERE user_id = ?");
  s.Bind(1, user_id);
  NUBO_RETURN_IF_ERROR(s.Exec());
  return static_cast<int64_t>(s.changes());
}

Status SqliteTxn::TouchAppPassword(int64_t id, int64_t now_ms) {
  NUBO_PREPARE(s, c_, "UPDATE app_passwords SET last_used_at = ? WHERE id = ?");
  s.Bind(1, now_ms).Bind(2, id);
  return s.Exec();
}

void SqliteTxn::BindUser(Stmt& s, const UserRow& u, const std::string& key,
                         const std::optional<std::string>& email) {
  s.Bind(1, u.public_id).Bind(2, u.username).Bind(3, key);
  if (email) {
    s.Bind(4, *email);
  } else {
    s.BindNull(4);
  }
  s.Bind(5, u.display_name).Bind(6, u.password_hash).Bind(7, u.role).Bind(8, u.active ? 1 : 0);
  if (u.quota_bytes) {
    s.Bind(9, *u.quota_bytes);
  } else {
    s.BindNull(9);
  }
  s.Bind(10, u.credentials_version).Bind(11, u.created_at_ms);
  if (u.last_login_at_ms) {
    s.Bind(12, *u.last_login_at_ms);
  } else {
    s.BindNull(12);
  }
}

}  // namespace nubo::meta::sqlite
