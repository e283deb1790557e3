// Principal: who is asking, as every surface hands it to the domain
// (ARCHITECTURE.md §4.7). Authentication (the router's guard) builds one
// per request from a session, an account password or an app password; the
// domain asks authz::Check (auth/authz.h) with it, never with a bare user
// id, so what a credential may do is decided in one place.
//
// A Principal is immutable once built and shared (std::shared_ptr<const
// Principal>) between the request and the credential cache. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace nubo::auth {

// What a credential may be used for. PERSISTED: app_passwords.scopes holds
// a bit set of these; never renumber.
enum Scope : uint32_t {
  kScopeFiles = 1u << 0,      // files over REST, WebDAV and sync clients
  kScopeGroupware = 1u << 1,  // calendars and contacts
  kScopeAccount = 1u << 2,    // the account itself: password, sessions, app passwords, profile
  kScopeAdmin = 1u << 3,      // administration (only with the admin role)
};

// The most an app password can ever carry: a sync credential lives in
// config files and on phones, so it must never be able to mint or revoke
// credentials nor reach administration (a leaked one is evicted by
// revoking it, and it cannot have made itself a successor).
inline constexpr uint32_t kAppPasswordScopes = kScopeFiles | kScopeGroupware;
// The default scope of a new app password.
inline constexpr uint32_t kDefaultAppPasswordScopes = kScopeFiles | kScopeGroupware;
// A session or the account password: everything the account's role allows.
inline constexpr uint32_t kAllScopes = kScopeFiles | kScopeGroupware | kScopeAccount | kScopeAdmin;

enum class Credential {
  kAnonymous,        // nobody (public routes)
  kSession,          // a bearer or cookie session (signed in with the password)
  kAccountPassword,  // HTTP Basic with the account password
  kAppPassword,      // HTTP Basic with an app password
  kLink,             // a public link's token (no account: user_id 0)
};

struct Principal {
  int64_t user_id = 0;  // 0: anonymous
  std::string public_id;
  std::string username;
  bool admin = false;  // the account's role (admin actions also need kScopeAdmin)
  Credential credential = Credential::kAnonymous;
  uint32_t scopes = 0;
  int64_t app_password_id = 0;  // kAppPassword: which one
  std::string session_id;       // kSession: the session's public id
  // Resolved group memberships (sharing); empty while groups do not exist.
  std::vector<int64_t> groups;
  // kLink: which link, the node it opens and its role (meta::LinkRow::role,
  // PERSISTED values: 1 view, 2 edit, 4 drop).
  int64_t link_id = 0;
  int64_t link_node = 0;
  int link_role = 0;
  int64_t link_maker = 0;  // who made the link (0: its account is gone)

  bool anonymous() const { return user_id == 0; }
  bool link() const { return credential == Credential::kLink && link_id != 0; }
  // A file-drop link's bearer: uploads only, never a replaced or read file.
  bool file_drop() const { return link() && link_role == 4; }
  bool Has(uint32_t scope) const { return (scopes & scope) == scope; }

  // The command line's operator: an administrator who is no account
  // (user id -1 owns nothing and is in no group). For administration
  // commands (groups) run with access to the data directory.
  static Principal Operator() {
    Principal p;
    p.user_id = -1;
    p.username = "(operator)";
    p.admin = true;
    p.credential = Credential::kSession;
    p.scopes = kAllScopes;
    return p;
  }

  // A signed-in account with every scope its role allows: for the command
  // line, maintenance and tests.
  static Principal User(int64_t id, std::string username = {}, bool admin = false) {
    Principal p;
    p.user_id = id;
    p.username = std::move(username);
    p.admin = admin;
    p.credential = Credential::kSession;
    p.scopes = admin ? kAllScopes : kAllScopes & ~kScopeAdmin;
    return p;
  }
};

using PrincipalPtr = std::shared_ptr<const Principal>;

// "files", "groupware", "account", "admin" joined by ","; for logs and the
// app-password API.
std::string ScopeNames(uint32_t scopes);

}  // namespace nubo::auth
