#include "auth/accounts.h"

#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::auth {

namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

Result<meta::UserRow> MustGet(meta::WriteTxn& txn, std::string_view username) {
  NUBO_ASSIGN_OR_RETURN(auto u, txn.GetUserByName(std::string(username)));
  if (!u) return Status::NotFound("no user named '" + std::string(username) + "'");
  return *u;
}

// The last active admin may be neither demoted nor deactivated: nobody
// could administer the server afterwards.
Status KeepAnAdmin(meta::WriteTxn& txn, const meta::UserRow& before, const meta::UserRow& after) {
  bool was = before.role == "admin" && before.active;
  bool is = after.role == "admin" && after.active;
  if (!was || is) return Status::Ok();
  NUBO_ASSIGN_OR_RETURN(int64_t admins, txn.CountActiveAdmins());
  if (admins <= 1) return Status::Conflict("'" + before.username + "' is the last active admin");
  return Status::Ok();
}

}  // namespace

Status ValidateUsername(std::string_view name) {
  if (name.size() < 2 || name.size() > 64) {
    return Status::InvalidArgument("username must be 2 to 64 characters long");
  }
  if (!IsAlnum(name[0])) return Status::InvalidArgument("username must start with a letter or digit");
  for (char c : name) {
    if (!IsAlnum(c) && c != '.' && c != '_' && c != '-') {
      return Status::InvalidArgument("username may contain only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

Result<meta::UserRow> CreateUser(meta::MetaStore& meta, const NewUser& nu, const PasswordParams& p) {
  NUBO_RETURN_IF_ERROR(ValidateUsername(nu.username));
  NUBO_RETURN_IF_ERROR(CheckPasswordPolicy(nu.password, p));
  if (nu.email && (nu.email->find('@') == std::string::npos || nu.email->size() > 254)) {
    return Status::InvalidArgument("email must look like name@domain");
  }
  // Hash before the write transaction: Argon2 must not hold the writer.
  NUBO_ASSIGN_OR_RETURN(std::string hash, HashPassword(nu.password, p));
  meta::UserRow row;
  row.public_id = NewUuidV7();
  row.username = nu.username;
  row.email = nu.email;
  row.display_name = nu.display_name.empty() ? nu.username : nu.display_name;
  row.password_hash = std::move(hash);
  row.role = nu.admin ? "admin" : "user";
  row.created_at_ms = UnixMillis();
  Status st = meta.Write([&](meta::WriteTxn& txn) -> Status {
    if (nu.only_if_first) {
      NUBO_ASSIGN_OR_RETURN(int64_t n, txn.CountUsers());
      if (n > 0) return Status::Conflict("setup is already done");
    }
    Status ins = txn.InsertUser(row);
    if (ins.code() == Code::kAlreadyExists) {
      return Status::AlreadyExists("username or email is already taken");
    }
    NUBO_RETURN_IF_ERROR(ins);
    // Every account owns a personal drive from its first moment, created
    // with the account so neither can exist without the other.
    meta::DriveRow drive;
    drive.public_id = NewUuidV7();
    drive.kind = "personal";
    drive.name = "Personal";
    drive.owner_id = row.id;
    drive.created_at_ms = row.created_at_ms;
    NUBO_RETURN_IF_ERROR(txn.InsertDrive(drive));
    meta::NodeRow root;
    root.public_id = NewUuidV7();
    root.drive_id = drive.id;
    root.kind = meta::NodeKind::kFolder;
    root.mime = "inode/directory";
    root.mtime_ms = root.ctime_ms = row.created_at_ms;
    root.created_by = root.updated_by = row.id;
    NUBO_RETURN_IF_ERROR(txn.InsertNode(root));
    return txn.SetDriveRoot(drive.id, root.id);
  });
  if (!st.ok()) return st;
  return row;
}

Status SetPassword(meta::MetaStore& meta, std::string_view username, std::string_view password,
                   const PasswordParams& p, std::string_view keep_session,
                   bool revoke_app_passwords) {
  NUBO_RETURN_IF_ERROR(CheckPasswordPolicy(password, p));
  NUBO_ASSIGN_OR_RETURN(std::string hash, HashPassword(password, p));
  return meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    u.password_hash = hash;
    ++u.credentials_version;
    NUBO_RETURN_IF_ERROR(txn.UpdateUser(u));
    if (revoke_app_passwords) {
      NUBO_ASSIGN_OR_RETURN(int64_t gone, txn.DeleteAppPasswords(u.id));
      (void)gone;
    }
    // A new password ends every other sign-in made with the old one.
    int64_t keep = 0;
    if (!keep_session.empty()) {
      NUBO_ASSIGN_OR_RETURN(auto s, txn.GetSession(std::string(keep_session)));
      if (s && s->user_id == u.id) keep = s->id;
    }
    return txn.RevokeUserSessions(u.id, keep, UnixMillis());
  });
}

Status SetRole(meta::MetaStore& meta, std::string_view username, bool admin) {
  return meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    meta::UserRow after = u;
    after.role = admin ? "admin" : "user";
    NUBO_RETURN_IF_ERROR(KeepAnAdmin(txn, u, after));
    ++after.credentials_version;  // a role change must reach cached principals
    return txn.UpdateUser(after);
  });
}

Status SetActive(meta::MetaStore& meta, std::string_view username, bool active) {
  return meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    meta::UserRow after = u;
    after.active = active;
    NUBO_RETURN_IF_ERROR(KeepAnAdmin(txn, u, after));
    ++after.credentials_version;
    NUBO_RETURN_IF_ERROR(txn.UpdateUser(after));
    return active ? Status::Ok() : txn.RevokeUserSessions(u.id, 0, UnixMillis());
  });
}

Status UpdateProfile(meta::MetaStore& meta, std::string_view username,
                     const std::optional<std::string>& display_name, const std::optional<std::string>& email) {
  if (display_name && (display_name->empty() || display_name->size() > 200)) {
    return Status::InvalidArgument("display_name must be 1 to 200 characters long");
  }
  if (email && !email->empty() && (email->find('@') == std::string::npos || email->size() > 254)) {
    return Status::InvalidArgument("email must look like name@domain");
  }
  return meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    if (display_name) u.display_name = *display_name;
    if (email) u.email = email->empty() ? std::nullopt : email;
    Status st = txn.UpdateUser(u);
    if (st.code() == Code::kAlreadyExists) return Status::AlreadyExists("email is already taken");
    return st;
  });
}

Status SetQuota(meta::MetaStore& meta, std::string_view username, std::optional<int64_t> quota_bytes) {
  return meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    u.quota_bytes = quota_bytes;
    return txn.UpdateUser(u);
  });
}

Result<bool> RegistrationOpen(meta::MetaStore& meta) {
  std::optional<std::string> v;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(v, t.GetSetting("registration"));
    return Status::Ok();
  }));
  return v && *v == "open";
}

Status SetRegistrationOpen(meta::MetaStore& meta, bool open) {
  return meta.Write(
      [&](meta::WriteTxn& t) { return t.SetSetting("registration", open ? "open" : "closed"); });
}

meta::Digest AppPasswordHash(std::string_view secret) { return Blake3::Hash(secret); }

Result<NewAppPassword> CreateAppPassword(meta::MetaStore& meta, std::string_view username,
                                         std::string_view label, uint32_t scopes) {
  if (label.empty() || label.size() > 200) {
    return Status::InvalidArgument("label must be 1 to 200 characters long");
  }
  if (scopes == 0 || (scopes & ~kAppPasswordScopes) != 0) {
    return Status::InvalidArgument("an app password's scopes are files and groupware only");
  }
  NewAppPassword out;
  // 192 random bits: guessing is hopeless, so a fast hash suffices at rest.
  out.secret = RandomHex(24);
  out.row.label = std::string(label);
  out.row.secret_hash = AppPasswordHash(out.secret);
  out.row.created_at_ms = UnixMillis();
  out.row.scopes = scopes;
  NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    out.row.user_id = u.id;
    NUBO_ASSIGN_OR_RETURN(out.row.id, txn.InsertAppPassword(out.row));
    return Status::Ok();
  }));
  return out;
}

Status RevokeAppPassword(meta::MetaStore& meta, std::string_view username, int64_t id) {
  return meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    NUBO_RETURN_IF_ERROR(txn.DeleteAppPassword(u.id, id));
    ++u.credentials_version;
    return txn.UpdateUser(u);
  });
}

Result<int64_t> RevokeAllAppPasswords(meta::MetaStore& meta, std::string_view username) {
  int64_t n = 0;
  NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::UserRow u, MustGet(txn, username));
    NUBO_ASSIGN_OR_RETURN(n, txn.DeleteAppPasswords(u.id));
    ++u.credentials_version;
    return txn.UpdateUser(u);
  }));
  return n;
}

}  // namespace nubo::auth
