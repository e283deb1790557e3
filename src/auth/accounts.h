// Accounts: creating users, passwords, roles, activation and app passwords
// over the MetaStore, with the rules that keep them safe (valid names,
// password policy, never losing the last active admin). Thread-safe; the
// functions that hash passwords are slow (Argon2id): blocking pool only.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/password.h"
#include "auth/principal.h"
#include "meta/meta_store.h"

namespace nubo::auth {

// 2-64 characters of ASCII letters, digits, '.', '_' and '-', starting with
// a letter or digit (so no '@', no spaces, nothing that needs escaping in a
// URL or a DAV path). InvalidArgument with the reason otherwise.
Status ValidateUsername(std::string_view name);

struct NewUser {
  std::string username;
  std::string password;
  bool admin = false;
  std::optional<std::string> email;
  std::string display_name;  // empty: the username
  // First-run setup: refuse (Conflict) unless no account exists yet,
  // checked inside the same transaction as the insert.
  bool only_if_first = false;
};

// AlreadyExists when the name is taken (case-insensitively).
Result<meta::UserRow> CreateUser(meta::MetaStore& meta, const NewUser& u, const PasswordParams& p);

// Sets a new password and bumps the user's credentials version (cached
// credentials die with it). NotFound for an unknown user. Every session of
// the user is revoked except `keep_session` (a public session id; empty:
// none kept). `revoke_app_passwords`: an administrator's reset (the account
// may be compromised) also revokes every app password; a user changing
// their own password keeps their sync clients.
Status SetPassword(meta::MetaStore& meta, std::string_view username, std::string_view password,
                   const PasswordParams& p, std::string_view keep_session = {},
                   bool revoke_app_passwords = false);

// Conflict when it would leave no active admin.
Status SetRole(meta::MetaStore& meta, std::string_view username, bool admin);
Status SetActive(meta::MetaStore& meta, std::string_view username, bool active);

// Profile fields a user may change; nullopt leaves a field as it is. An
// empty email removes it.
Status UpdateProfile(meta::MetaStore& meta, std::string_view username,
                     const std::optional<std::string>& display_name, const std::optional<std::string>& email);
// nullopt: unlimited.
Status SetQuota(meta::MetaStore& meta, std::string_view username, std::optional<int64_t> quota_bytes);

// Self-service registration (POST /api/v1/register): closed unless an
// administrator opened it.
Result<bool> RegistrationOpen(meta::MetaStore& meta);
Status SetRegistrationOpen(meta::MetaStore& meta, bool open);

struct NewAppPassword {
  meta::AppPasswordRow row;
  std::string secret;  // shown once; only its hash is stored
};
// `scopes`: auth::Scope bits, within kAppPasswordScopes (InvalidArgument
// otherwise: an app password never manages credentials nor administers).
Result<NewAppPassword> CreateAppPassword(meta::MetaStore& meta, std::string_view username,
                                         std::string_view label,
                                         uint32_t scopes = kDefaultAppPasswordScopes);
// Revocations bump the credentials version: cached verifications of the
// account end at once (in this process; within seconds in others).
Status RevokeAppPassword(meta::MetaStore& meta, std::string_view username, int64_t id);
// Every app password of the account; returns how many.
Result<int64_t> RevokeAllAppPasswords(meta::MetaStore& meta, std::string_view username);
meta::Digest AppPasswordHash(std::string_view secret);

}  // namespace nubo::auth
