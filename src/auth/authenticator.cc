#include "auth/authenticator.h"

#include <cstring>

#include "auth/accounts.h"
#include "auth/password_pool.h"
#include "util/blake3_hash.h"
#include "util/time.h"

namespace nubo::auth {

namespace {

Status Denied() { return Status::Unauthenticated("invalid credentials"); }

}  // namespace

size_t Authenticator::KeyHash::operator()(const Key& k) const {
  size_t h;
  std::memcpy(&h, k.data(), sizeof h);  // already a uniform hash
  return h;
}

Authenticator::Authenticator(meta::MetaStore& meta, PasswordParams params, FailureLimiter& limiter,
                             AuthenticatorOptions options)
    : meta_(meta), params_(params), limiter_(limiter), opt_(options) {}

Authenticator::~Authenticator() {
  std::unique_lock lock(mu_);
  refresh_cv_.wait(lock, [&] { return refreshing_ == 0; });
}

const std::string& Authenticator::DummyHash() {
  // Made on first need, not at start-up: it costs an Argon2 run's memory.
  std::call_once(dummy_once_, [this] {
    auto h = HashPasswordNow("nubo-timing-equalizer", params_);
    if (h.ok()) dummy_hash_ = *h;
  });
  return dummy_hash_;
}

PrincipalPtr Authenticator::Make(const meta::UserRow& u, const Entry& e) const {
  auto p = std::make_shared<Principal>();
  p->user_id = u.id;
  p->public_id = u.public_id;
  p->username = u.username;
  p->admin = u.role == "admin";
  if (e.app_password_id) {
    p->credential = Credential::kAppPassword;
    p->app_password_id = e.app_password_id;
    p->scopes = e.scopes & kAppPasswordScopes;
  } else {
    p->credential = Credential::kAccountPassword;
    p->scopes = p->admin ? kAllScopes : kAllScopes & ~kScopeAdmin;
  }
  return p;
}

Result<Authenticator::UserState> Authenticator::State(int64_t user_id, int64_t now_ms) {
  {
    std::lock_guard lock(mu_);
    auto it = states_.find(user_id);
    if (it != states_.end() && now_ms - it->second.fetched_ms < opt_.state_ttl_ms) {
      return it->second;
    }
  }
  std::optional<meta::UserRow> u;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(u, t.GetUser(user_id));
    return Status::Ok();
  }));
  if (!u) return Denied();
  UserState st{std::move(*u), now_ms};
  std::lock_guard lock(mu_);
  if (states_.size() > 100'000) states_.clear();  // bounded
  states_[user_id] = st;
  return st;
}

// The cache's key for a credential; nullopt for one no account can have.
std::optional<Authenticator::Key> Authenticator::CacheKey(std::string_view username,
                                                          std::string_view password) const {
  if (username.empty() || username.size() > 64 || password.empty() ||
      password.size() > params_.max_length) {
    return std::nullopt;
  }
  Blake3 h;
  h.Update(username);
  h.Update("\0", 1);
  h.Update(password);
  return h.Final();
}

std::optional<PrincipalPtr> Authenticator::CachedBasic(std::string_view username,
                                                       std::string_view password,
                                                       std::string_view client_ip) {
  const std::optional<Key> key_or = CacheKey(username, password);
  if (!key_or) return std::nullopt;
  const Key& key = *key_or;
  const int64_t now = UnixMillis();
  PrincipalPtr principal;
  bool account_password = false;
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    if (it == cache_.end() || now - it->second.verified_ms >= opt_.ttl_ms) return std::nullopt;
    const Entry& hit = it->second;
    account_password = !hit.app_password_id;
    // Due for re-verification: VerifyBasic schedules it.
    if (account_password && now - hit.verified_ms >= opt_.refresh_after_ms) return std::nullopt;
    auto st = states_.find(hit.user_id);
    if (st == states_.end() || now - st->second.fetched_ms >= opt_.state_ttl_ms) return std::nullopt;
    const meta::UserRow& u = st->second.user;
    if (!u.active || u.credentials_version != hit.version) return std::nullopt;
    if (!hit.principal || hit.principal->admin != (u.role == "admin")) return std::nullopt;
    principal = hit.principal;
    lru_.splice(lru_.begin(), lru_, it->second.lru);
  }
  // The lockout applies to cached account passwords too (see VerifyBasic).
  if (account_password && limiter_.SignInRetryAfter(client_ip, username, now)) return std::nullopt;
  hits_.fetch_add(1, std::memory_order_relaxed);
  return principal;
}

Result<PrincipalPtr> Authenticator::VerifyBasic(std::string_view username,
                                                std::string_view password,
                                                std::string_view client_ip,
                                                BasicFailure* failure) {
  const std::optional<Key> key_or = CacheKey(username, password);
  if (!key_or) return Denied();
  const Key& key = *key_or;
  const int64_t now = UnixMillis();

  // 1. The cache, checked against the account's current state.
  std::optional<Entry> hit;
  {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      if (now - it->second.verified_ms < opt_.ttl_ms) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        hit = it->second;
      } else {
        bytes_ -= it->second.bytes;
        lru_.erase(it->second.lru);
        cache_.erase(it);
      }
    }
  }
  if (hit && !hit->app_password_id) {
    // A locked address stays locked for cached account passwords too:
    // otherwise a guesser could test guesses against the cache at full
    // speed while the lockout only stopped Argon2. (Cached app passwords
    // pass: they cannot be guessed.)
    if (auto wait = limiter_.SignInRetryAfter(client_ip, username, now)) {
      if (failure) failure->retry_after_s = *wait;
      return Status::ResourceExhausted("too many failed sign-ins from this address; retry in " +
                                       std::to_string(*wait) + " s");
    }
  }
  if (hit) {
    auto st = State(hit->user_id, now);
    if (st.ok() && st->user.active && st->user.credentials_version == hit->version) {
      hits_.fetch_add(1, std::memory_order_relaxed);
      if (!hit->app_password_id && now - hit->verified_ms >= opt_.refresh_after_ms) {
        Refresh(key, std::string(username), std::string(password));
      }
      if (hit->principal && hit->principal->admin == (st->user.role == "admin")) {
        return hit->principal;
      }
      return Make(st->user, *hit);
    }
    // Changed since (password, revocation, deactivation): verify afresh.
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      bytes_ -= it->second.bytes;
      lru_.erase(it->second.lru);
      cache_.erase(it);
    }
  }

  // Single flight: concurrent misses for one key run one verification.
  std::shared_ptr<Flight> flight;
  {
    std::unique_lock lock(mu_);
    auto f = flights_.find(key);
    if (f != flights_.end()) {
      flight = f->second;
      cv_.wait(lock, [&] { return flight->done; });
      if (failure) *failure = flight->failure;
      return flight->result;
    }
    // A leader may have finished between our cache miss above and this
    // lock: it caches before it leaves flights_, so a fresh entry here
    // means "verified just now" — start over and take it as a hit rather
    // than run Argon2id a second time.
    if (auto it = cache_.find(key);
        it != cache_.end() && now - it->second.verified_ms < opt_.ttl_ms) {
      lock.unlock();
      return VerifyBasic(username, password, client_ip, failure);
    }
    flight = std::make_shared<Flight>();
    flights_.emplace(key, flight);
  }
  // The leader verifies without holding the lock.
  BasicFailure why;
  Entry verified{};
  Result<PrincipalPtr> r = Verify(username, password, client_ip, &why, &verified);
  // Cache before leaving flights_, so a caller arriving in between finds
  // one or the other. Entries are inserted with the version read before
  // verifying: an InvalidateUser in between leaves a stale version, which
  // the next hit refuses against the state it re-reads.
  if (r.ok()) {
    verified.principal = *r;
    Insert(key, verified);
  }
  {
    std::lock_guard lock(mu_);
    flight->result = r;
    flight->failure = why;
    flight->done = true;
    flights_.erase(key);
  }
  cv_.notify_all();
  if (failure) *failure = why;
  return r;
}

Result<PrincipalPtr> Authenticator::Verify(std::string_view username, std::string_view password,
                                           std::string_view client_ip, BasicFailure* failure,
                                           Entry* verified) {
  std::optional<meta::UserRow> user;
  std::optional<meta::AppPasswordRow> app;
  const meta::Digest app_hash = AppPasswordHash(password);
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(user, txn.GetUserByName(std::string(username)));
    NUBO_ASSIGN_OR_RETURN(app, txn.FindAppPassword(app_hash));
    return Status::Ok();
  }));
  const int64_t now = UnixMillis();
  // 2. App passwords: never throttled (they cannot be guessed), so an
  // account under attack keeps its sync clients.
  if (user && app && app->user_id == user->id) {
    if (!user->active) return Denied();
    (void)meta_.Write([&](meta::WriteTxn& txn) { return txn.TouchAppPassword(app->id, now); });
    *verified = Entry{user->id, user->credentials_version, app->id, app->scopes, now, false, {}, 0, {}};
    return Make(*user, *verified);
  }
  if (!opt_.allow_account_passwords) return Denied();
  // 3. The throttle, before any password work.
  if (auto wait = limiter_.SignInRetryAfter(client_ip, username, now)) {
    failure->retry_after_s = *wait;
    return Status::ResourceExhausted("too many failed sign-ins from this address; retry in " +
                                     std::to_string(*wait) + " s");
  }
  // An address that failed before shares a small budget of checks with
  // every other such address: a storm from many addresses costs a few
  // Argon2id runs, not one per guess (the owner's clean address does not
  // wait for it).
  int64_t wait_s = 0;
  switch (limiter_.AdmitPasswordCheck(client_ip, username, now, &wait_s)) {
    case Admission::kRun:
      break;
    case Admission::kThrottled:
      failure->retry_after_s = wait_s;
      return Status::ResourceExhausted("too many failed sign-ins; retry in " +
                                       std::to_string(wait_s) + " s");
    case Admission::kBusy:
      failure->retry_after_s = wait_s;
      return Status::Unavailable("the server is refusing a storm of wrong passwords; retry in " +
                                 std::to_string(wait_s) + " s");
  }
  // 4. Argon2id on the password pool (an unknown user costs the same run).
  auto ok = VerifyPassword(password, user ? user->password_hash : DummyHash());
  if (!ok.ok()) {
    if (ok.status().code() == Code::kUnavailable) {
      failure->retry_after_s = 1;
      limiter_.CheckRefused(UnixMillis());
    }
    return ok.status();
  }
  argon2_runs_.fetch_add(1, std::memory_order_relaxed);  // it ran (not refused by a full pool)
  if (!user || !*ok || !user->active) {
    limiter_.SignInFailed(client_ip, username, UnixMillis());
    return Denied();
  }
  limiter_.SignInSucceeded(client_ip, username);
  *verified = Entry{user->id, user->credentials_version, 0, 0, now, false, {}, 0, {}};
  return Make(*user, *verified);
}

void Authenticator::Refresh(const Key& key, std::string username, std::string password) {
  PasswordPool* pool = PasswordPool::Installed();
  if (!pool) return;  // no background threads: the entry simply expires
  {
    std::lock_guard lock(mu_);
    auto it = cache_.find(key);
    if (it == cache_.end() || it->second.refreshing) return;
    it->second.refreshing = true;
    ++refreshing_;
  }
  auto done = [this, key](std::optional<int64_t> verified_ms) {
    std::lock_guard lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      it->second.refreshing = false;
      if (verified_ms) it->second.verified_ms = *verified_ms;
    }
    if (--refreshing_ == 0) refresh_cv_.notify_all();
  };
  const bool queued = pool->Post([this, key, username = std::move(username),
                                  password = std::move(password), done] {
    // Runs on the pool thread: verify directly (not through the pool,
    // which this thread is).
    std::optional<meta::UserRow> user;
    Status st = meta_.Read([&](meta::ReadTxn& txn) -> Status {
      NUBO_ASSIGN_OR_RETURN(user, txn.GetUserByName(username));
      return Status::Ok();
    });
    const int64_t started = UnixMillis();
    std::optional<int64_t> verified;
    if (st.ok() && user && user->active) {
      std::lock_guard lock(mu_);
      auto it = cache_.find(key);
      if (it != cache_.end() && it->second.version != user->credentials_version) user.reset();
    }
    if (st.ok() && user && user->active) {
      argon2_runs_.fetch_add(1, std::memory_order_relaxed);
      if (VerifyPasswordNow(password, user->password_hash)) verified = started;
    }
    if (verified) refreshes_.fetch_add(1, std::memory_order_relaxed);
    done(verified);
  });
  if (!queued) done(std::nullopt);
}

void Authenticator::Insert(const Key& key, const Entry& e) {
  size_t bytes = sizeof(Entry) + sizeof(Key) * 2 + 64;
  std::lock_guard lock(mu_);
  if (auto it = cache_.find(key); it != cache_.end()) {
    bytes_ -= it->second.bytes;
    lru_.erase(it->second.lru);
    cache_.erase(it);
  }
  lru_.push_front(key);
  Entry stored = e;
  stored.lru = lru_.begin();
  stored.bytes = bytes;
  stored.refreshing = false;
  cache_[key] = stored;
  bytes_ += bytes;
  while (bytes_ > opt_.max_bytes && !lru_.empty()) {
    auto it = cache_.find(lru_.back());
    bytes_ -= it->second.bytes;
    cache_.erase(it);
    lru_.pop_back();
  }
}

void Authenticator::InvalidateUser(int64_t user_id) {
  std::lock_guard lock(mu_);
  states_.erase(user_id);
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->second.user_id == user_id) {
      bytes_ -= it->second.bytes;
      lru_.erase(it->second.lru);
      it = cache_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace nubo::auth
