#include "auth/authenticator.h"

#include <cstring>

#include "auth/accounts.h"
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

Authenticator::Authenticator(meta::MetaStore& meta, PasswordParams params, AuthenticatorOptions options)
    : meta_(meta), params_(params), opt_(options) {
}

const std::string& Authenticator::DummyHash() {
  // Made on first need, not at start-up: it costs an Argon2 run's memory.
  std::call_once(dummy_once_, [this] {
    auto h = HashPassword("nubo-timing-equalizer", params_);
    if (h.ok()) dummy_hash_ = *h;
  });
  return dummy_hash_;
}

Result<Principal> Authenticator::VerifyBasic(std::string_view username, std::string_view password) {
  if (username.empty() || username.size() > 64 || password.empty() || password.size() > params_.max_length) {
    return Denied();
  }
  Blake3 h;
  h.Update(username);
  h.Update("\0", 1);
  h.Update(password);
  const Key key = h.Final();
  const int64_t now = UnixMillis();

  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::unique_lock lock(mu_);
    if (auto it = cache_.find(key); it != cache_.end()) {
      if (it->second.expires_ms > now) {
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        hits_.fetch_add(1, std::memory_order_relaxed);
        return it->second.principal;
      }
      bytes_ -= it->second.bytes;
      lru_.erase(it->second.lru);
      cache_.erase(it);
    }
    auto f = flights_.find(key);
    if (f == flights_.end()) {
      flight = std::make_shared<Flight>();
      flights_.emplace(key, flight);
      leader = true;
    } else {
      flight = f->second;
      cv_.wait(lock, [&] { return flight->done; });
      return flight->result;
    }
  }
  // The leader verifies without holding the lock.
  Result<Principal> r = Verify(username, password);
  {
    std::lock_guard lock(mu_);
    flight->result = r;
    flight->done = true;
    flights_.erase(key);
    if (r.ok()) Insert(key, *r, now);
  }
  cv_.notify_all();
  (void)leader;
  return r;
}

Result<Principal> Authenticator::Verify(std::string_view username, std::string_view password) {
  std::optional<meta::UserRow> user;
  std::optional<meta::AppPasswordRow> app;
  const meta::Digest app_hash = AppPasswordHash(password);
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& txn) -> Status {
    NUBO_ASSIGN_OR_RETURN(user, txn.GetUserByName(std::string(username)));
    NUBO_ASSIGN_OR_RETURN(app, txn.FindAppPassword(app_hash));
    return Status::Ok();
  }));
  if (user && app && app->user_id == user->id) {
    if (!user->active) return Denied();
    (void)meta_.Write([&](meta::WriteTxn& txn) { return txn.TouchAppPassword(app->id, UnixMillis()); });
    return Principal{user->id, user->username, user->role, true, app->id};
  }
  if (!opt_.allow_account_passwords) return Denied();
  argon2_runs_.fetch_add(1, std::memory_order_relaxed);
  if (!user) {
    (void)VerifyPassword(password, DummyHash());  // same cost as a real miss
    return Denied();
  }
  if (!VerifyPassword(password, user->password_hash) || !user->active) return Denied();
  return Principal{user->id, user->username, user->role, false, 0};
}

void Authenticator::Insert(const Key& key, const Principal& p, int64_t now_ms) {
  size_t bytes = sizeof(Entry) + sizeof(Key) * 2 + p.username.size() + p.role.size() + 64;
  lru_.push_front(key);
  cache_[key] = Entry{p, now_ms + opt_.ttl_ms, lru_.begin(), bytes};
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
  for (auto it = cache_.begin(); it != cache_.end();) {
    if (it->second.principal.user_id == user_id) {
      bytes_ -= it->second.bytes;
      lru_.erase(it->second.lru);
      it = cache_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace nubo::auth
