// Accounts: users, app passwords, sign-in sessions, settings, serving
// processes, leases of installation-wide chores and sign-in failures.
//
// One capability of the MetaStore (meta_store.h): AccountReads are part of every
// transaction, AccountWrites of write transactions. A transaction object must
// not escape its callback; see meta_store.h for concurrency.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "meta/digest.h"
#include "util/status.h"

namespace nubo::meta {

struct UserRow {
  int64_t id = 0;
  std::string public_id;
  std::string username;
  std::optional<std::string> email;
  std::string display_name;
  std::string password_hash;  // Argon2id encoded; empty: no password login
  std::string role;           // "admin" | "user"
  bool active = true;
  std::optional<int64_t> quota_bytes;
  int64_t credentials_version = 0;
  int64_t created_at_ms = 0;
  std::optional<int64_t> last_login_at_ms;
};

struct AppPasswordRow {
  int64_t id = 0;
  int64_t user_id = 0;
  std::string label;
  Digest secret_hash{};
  int64_t created_at_ms = 0;
  std::optional<int64_t> last_used_at_ms;
  uint32_t scopes = 3;  // auth::Scope bits (PERSISTED)
};

struct SessionRow {
  int64_t id = 0;
  std::string public_id;
  int64_t user_id = 0;
  std::string family_id;  // every rotation of one sign-in shares it
  Digest refresh_hash{};  // BLAKE3 of the current refresh token
  int64_t created_at_ms = 0;
  int64_t expires_at_ms = 0;
  std::optional<int64_t> revoked_at_ms;
  std::optional<int64_t> rotated_at_ms;  // set (with revoked_at) when a refresh replaced it
  std::string user_agent;
  std::string ip;
};

// Failed sign-ins of one throttle key (auth/lockout_sync.h).
struct SignInFailureRow {
  std::string key;
  int64_t failures = 0;
  int64_t locked_until_ms = 0;  // 0: not locked
  int64_t updated_at_ms = 0;
};

// A serving process (content/gc.h: its in-flight pins).
struct ProcessRow {
  std::string id;  // random, per start
  std::string host;
  int64_t pid = 0;
  int64_t started_at_ms = 0;
  int64_t heartbeat_at_ms = 0;
  std::optional<int64_t> oldest_pin_at_ms;
};

class AccountReads {
 public:
  virtual ~AccountReads() = default;

  // Users. Names compare case-insensitively.
  virtual Result<std::optional<UserRow>> GetUserByName(const std::string& username) = 0;
  // Case-insensitively (e-mail addresses are stored lower-cased).
  virtual Result<std::optional<UserRow>> GetUserByEmail(const std::string& email) = 0;
  virtual Result<std::optional<UserRow>> GetUser(int64_t id) = 0;
  // Users with lower(username) > `after_key` (and starting with `prefix`,
  // compared case-insensitively, when given), by name.
  virtual Result<std::vector<UserRow>> ListUsers(const std::string& after_key, size_t limit,
                                                 const std::string& prefix = "") = 0;
  virtual Result<int64_t> CountUsers() = 0;
  virtual Result<int64_t> CountActiveAdmins() = 0;
  virtual Result<std::optional<AppPasswordRow>> FindAppPassword(const Digest& secret_hash) = 0;
  virtual Result<std::vector<AppPasswordRow>> ListAppPasswords(int64_t user_id) = 0;
  virtual Result<std::optional<SessionRow>> FindSessionByRefresh(const Digest& refresh_hash) = 0;
  virtual Result<std::optional<SessionRow>> GetSession(const std::string& public_id) = 0;
  // Whether any session of the sign-in `family_id` is live at `now_ms`.
  virtual Result<bool> FamilyHasLiveSession(const std::string& family_id, int64_t now_ms) = 0;
  // Live (not revoked, not expired at `now_ms`) sessions of a user, newest first.
  virtual Result<std::vector<SessionRow>> ListSessions(int64_t user_id, int64_t now_ms) = 0;
  virtual Result<std::optional<std::string>> GetSetting(const std::string& key) = 0;
  // Serving processes whose heartbeat is at or after `alive_since_ms`.
  virtual Result<std::vector<ProcessRow>> LiveProcesses(int64_t alive_since_ms) = 0;
  // Sign-in failure rows written at or after `since_ms`, oldest first.
  virtual Result<std::vector<SignInFailureRow>> SignInFailuresSince(int64_t since_ms,
                                                                    size_t limit) = 0;
};

class AccountWrites {
 public:
  virtual ~AccountWrites() = default;

  // AlreadyExists when the name (case-insensitively) or email is taken.
  // Fills `row.id`.
  virtual Status InsertUser(UserRow& row) = 0;
  // Writes every mutable field of `row` (matched by id). NotFound if gone.
  virtual Status UpdateUser(const UserRow& row) = 0;
  virtual Result<int64_t> InsertAppPassword(const AppPasswordRow& row) = 0;
  virtual Status DeleteAppPassword(int64_t user_id, int64_t id) = 0;
  // Every app password of the user; returns how many went.
  virtual Result<int64_t> DeleteAppPasswords(int64_t user_id) = 0;
  virtual Status TouchAppPassword(int64_t id, int64_t now_ms) = 0;
  // Fills `row.id`.
  virtual Status InsertSession(SessionRow& row) = 0;
  // `rotated`: a refresh replaced it (sets rotated_at too).
  virtual Status RevokeSession(int64_t id, int64_t now_ms, bool rotated = false) = 0;
  virtual Status RevokeSessionFamily(const std::string& family_id, int64_t now_ms) = 0;
  // Every live session of the user except `keep_id` (0: none kept).
  virtual Status RevokeUserSessions(int64_t user_id, int64_t keep_id, int64_t now_ms) = 0;
  virtual Status SetSetting(const std::string& key, const std::string& value) = 0;
  // Inserts or updates the process's row; drops rows silent since
  // `forget_before_ms` (processes that died without EndProcess).
  virtual Status BeatProcess(const ProcessRow& row, int64_t forget_before_ms) = 0;
  virtual Status EndProcess(const std::string& id) = 0;
  // Leases of installation-wide chores (migrations/0030): `holder` takes
  // lease `name` until `until_ms` when nobody holds it (or its holder's
  // time ran out before `now_ms`) and the chore was last done at or
  // before `done_by_ms`, or renews it when it is already `holder`'s.
  // True: `holder` has it now.
  virtual Result<bool> TakeLease(const std::string& name, const std::string& holder, int64_t now_ms,
                                 int64_t until_ms, int64_t done_by_ms) = 0;
  // Gives the lease back when `holder` has it: the chore was done at
  // `done_at_ms`.
  virtual Status ReleaseLease(const std::string& name, const std::string& holder,
                              int64_t done_at_ms) = 0;
  // Adds `count` failures to `key` at `now_ms` (after a lock has ended
  // the count starts over) and locks the key until now_ms + lockout_ms
  // once it reaches `max_failures`; returns the row as stored.
  virtual Result<SignInFailureRow> AddSignInFailures(const std::string& key, int64_t count,
                                                     int64_t max_failures, int64_t lockout_ms,
                                                     int64_t now_ms) = 0;
  // A success: forgets the key's failures unless it is locked at `now_ms`
  // (a lock holds until it ends, wherever the right password is given).
  virtual Status ClearSignInFailures(const std::string& key, int64_t now_ms) = 0;
  // Deletes rows not written since `before_ms` whose lock has ended.
  virtual Result<int64_t> PurgeSignInFailures(int64_t before_ms, int64_t now_ms) = 0;
  // Inserts `key` only if absent; returns the stored value either way.
  virtual Result<std::string> SetSettingIfAbsent(const std::string& key,
                                                 const std::string& value) = 0;
};

}  // namespace nubo::meta
