#include "auth/sessions.h"

#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::auth {

namespace {

Status Denied() { return Status::Unauthenticated("invalid credentials"); }

meta::Digest RefreshHash(std::string_view token) { return Blake3::Hash(token); }

}  // namespace

Result<std::unique_ptr<Sessions>> Sessions::Open(meta::MetaStore& meta, PasswordParams params,
                                                 SessionOptions options) {
  std::string secret;
  NUBO_RETURN_IF_ERROR(meta.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(secret, txn.SetSettingIfAbsent("jwt_secret", RandomHex(32)));
    return Status::Ok();
  }));
  return std::unique_ptr<Sessions>(new Sessions(meta, params, options, std::move(secret)));
}

Sessions::Sessions(meta::MetaStore& meta, PasswordParams params, SessionOptions options, std::string secret)
    : meta_(meta), params_(params), opt_(options), signer_(std::move(secret)) {
}

const std::string& Sessions::DummyHash() {
  // Made on first need, not at start-up: it costs an Argon2 run's memory.
  std::call_once(dummy_once_, [this] {
    auto h = HashPasswordNow("nubo-timing-equalizer", params_);
    if (h.ok()) dummy_hash_ = *h;
  });
  return dummy_hash_;
}

Result<TokenPair> Sessions::Issue(meta::WriteTxn& txn, const meta::UserRow& user, const std::string& family,
                                  std::string_view user_agent, std::string_view ip, int64_t now_ms) {
  TokenPair out;
  out.refresh_token = RandomHex(32);
  meta::SessionRow row;
  row.public_id = NewUuidV7();
  row.user_id = user.id;
  row.family_id = family;
  row.refresh_hash = RefreshHash(out.refresh_token);
  row.created_at_ms = now_ms;
  row.expires_at_ms = now_ms + opt_.refresh_ttl_s * 1000;
  row.user_agent = std::string(user_agent.substr(0, 200));
  row.ip = std::string(ip.substr(0, 64));
  NUBO_RETURN_IF_ERROR(txn.InsertSession(row));
  NUBO_ASSIGN_OR_RETURN(out.access_token,
                        signer_.Issue({user.id, row.public_id, now_ms / 1000 + opt_.access_ttl_s}));
  out.expires_in_s = opt_.access_ttl_s;
  out.session_id = row.public_id;
  return out;
}

Result<TokenPair> Sessions::Login(std::string_view username, std::string_view password,
                                  std::string_view user_agent, std::string_view ip) {
  if (username.empty() || username.size() > 64 || password.size() > params_.max_length) return Denied();
  std::optional<meta::UserRow> user;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(user, t.GetUserByName(std::string(username)));
    return Status::Ok();
  }));
  // An unknown user costs the same Argon2 run as a wrong password.
  NUBO_ASSIGN_OR_RETURN(bool ok, VerifyPassword(password, user ? user->password_hash : DummyHash()));
  if (!user || !ok || !user->active) return Denied();
  const int64_t now = UnixMillis();
  // Upgrade the hash to the current parameters now that we know the
  // password: outside the write transaction, as Argon2 takes ~100 ms.
  std::optional<std::string> rehashed;
  if (NeedsRehash(user->password_hash, params_)) {
    auto h = HashPassword(password, params_);
    if (h.ok()) rehashed = *h;
  }
  TokenPair out;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    // Re-read inside the transaction: a concurrent password change wins.
    NUBO_ASSIGN_OR_RETURN(auto fresh, txn.GetUser(user->id));
    if (!fresh || !fresh->active) return Denied();
    meta::UserRow u = *fresh;
    u.last_login_at_ms = now;
    if (rehashed && u.password_hash == user->password_hash) u.password_hash = *rehashed;
    NUBO_RETURN_IF_ERROR(txn.UpdateUser(u));
    NUBO_ASSIGN_OR_RETURN(out, Issue(txn, u, NewUuidV7(), user_agent, ip, now));
    return Status::Ok();
  }));
  return out;
}

Result<TokenPair> Sessions::Refresh(std::string_view refresh_token) {
  if (refresh_token.size() != 64) return Status::Unauthenticated("invalid refresh token");
  const int64_t now = UnixMillis();
  TokenPair out;
  std::string revoked_family;
  Status st = meta_.Write([&](meta::WriteTxn& txn) -> Status {
    // A write may run again: only its last run answers.
    out = TokenPair{};
    revoked_family.clear();
    NUBO_ASSIGN_OR_RETURN(auto s, txn.FindSessionByRefresh(RefreshHash(refresh_token)));
    if (!s) return Status::Unauthenticated("invalid refresh token");
    if (s->revoked_at_ms) {
      // A token rotated a moment ago, presented again by a second tab that
      // refreshed at the same time: the sign-in goes on (a new rotation
      // from it), provided the sign-in still has a live session. Anything
      // later, or a token revoked otherwise (logout, password change), is
      // a rotated token coming back: treat the family as stolen.
      const bool in_grace = s->rotated_at_ms && now - *s->rotated_at_ms <= opt_.refresh_grace_ms &&
                            s->expires_at_ms > now;
      if (in_grace) {
        NUBO_ASSIGN_OR_RETURN(bool live, txn.FamilyHasLiveSession(s->family_id, now));
        if (live) {
          NUBO_ASSIGN_OR_RETURN(auto user, txn.GetUser(s->user_id));
          if (!user || !user->active) return Status::Unauthenticated("account is not active");
          NUBO_ASSIGN_OR_RETURN(out, Issue(txn, *user, s->family_id, s->user_agent, s->ip, now));
          return Status::Ok();
        }
      }
      NUBO_RETURN_IF_ERROR(txn.RevokeSessionFamily(s->family_id, now));
      revoked_family = s->family_id;
      return Status::Ok();
    }
    if (s->expires_at_ms <= now) return Status::Unauthenticated("refresh token expired");
    NUBO_ASSIGN_OR_RETURN(auto user, txn.GetUser(s->user_id));
    if (!user || !user->active) return Status::Unauthenticated("account is not active");
    NUBO_RETURN_IF_ERROR(txn.RevokeSession(s->id, now, /*rotated=*/true));
    NUBO_ASSIGN_OR_RETURN(out, Issue(txn, *user, s->family_id, s->user_agent, s->ip, now));
    return Status::Ok();
  });
  if (!st.ok()) return st;
  if (!revoked_family.empty()) {
    std::lock_guard lock(mu_);
    checked_.clear();  // the family's live session must fail on its next request
    return Status::Unauthenticated("refresh token reused: every session of this sign-in is revoked");
  }
  return out;
}

Status Sessions::Logout(const std::string& session_id) {
  const int64_t now = UnixMillis();
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto s, txn.GetSession(session_id));
    if (!s) return Status::NotFound("no such session");
    return txn.RevokeSession(s->id, now);
  }));
  std::lock_guard lock(mu_);
  checked_.erase(session_id);
  return Status::Ok();
}

Status Sessions::RevokeOwn(int64_t user_id, const std::string& session_id) {
  const int64_t now = UnixMillis();
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto s, txn.GetSession(session_id));
    if (!s || s->user_id != user_id || s->revoked_at_ms) return Status::NotFound("no such session");
    return txn.RevokeSession(s->id, now);
  }));
  std::lock_guard lock(mu_);
  checked_.erase(session_id);
  return Status::Ok();
}

void Sessions::ForgetUser(int64_t user_id) {
  std::lock_guard lock(mu_);
  for (auto it = checked_.begin(); it != checked_.end();) {
    it = it->second.principal->user_id == user_id ? checked_.erase(it) : std::next(it);
  }
}

Status Sessions::RevokeOthers(int64_t user_id, const std::string& keep_session_id) {
  const int64_t now = UnixMillis();
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& txn) -> Status {
    int64_t keep = 0;
    if (!keep_session_id.empty()) {
      NUBO_ASSIGN_OR_RETURN(auto s, txn.GetSession(keep_session_id));
      if (s) keep = s->id;
    }
    return txn.RevokeUserSessions(user_id, keep, now);
  }));
  std::lock_guard lock(mu_);
  for (auto it = checked_.begin(); it != checked_.end();) {
    if (it->second.principal->user_id == user_id && it->first != keep_session_id) {
      it = checked_.erase(it);
    } else {
      ++it;
    }
  }
  return Status::Ok();
}

Result<PrincipalPtr> Sessions::Authenticate(std::string_view access_token) {
  const int64_t now = UnixMillis();
  NUBO_ASSIGN_OR_RETURN(AccessClaims c, signer_.Verify(access_token, now / 1000));
  {
    std::lock_guard lock(mu_);
    auto it = checked_.find(c.session_id);
    if (it != checked_.end() && it->second.until_ms > now &&
        it->second.principal->user_id == c.user_id) {
      return it->second.principal;
    }
  }
  // Never trust the token alone: the session and the user's live role decide.
  std::optional<meta::SessionRow> s;
  std::optional<meta::UserRow> u;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(s, t.GetSession(c.session_id));
    NUBO_ASSIGN_OR_RETURN(u, t.GetUser(c.user_id));
    return Status::Ok();
  }));
  if (!s || s->user_id != c.user_id || s->revoked_at_ms) {
    return Status::Unauthenticated("session ended; sign in again");
  }
  if (!u || !u->active) return Status::Unauthenticated("account is not active");
  Principal p = Principal::User(u->id, u->username, u->role == "admin");
  p.public_id = u->public_id;
  p.session_id = c.session_id;
  auto principal = std::make_shared<const Principal>(std::move(p));
  std::lock_guard lock(mu_);
  if (checked_.size() > 100'000) checked_.clear();  // bounded
  checked_[c.session_id] = Checked{principal, now + opt_.check_cache_ms};
  return PrincipalPtr(principal);
}

}  // namespace nubo::auth
