#include "auth/links.h"

#include <algorithm>

#include "auth/password.h"
#include "util/blake3_hash.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::auth {

namespace {

Status NoSuchLink() { return Status::NotFound("no such link"); }

// Failures count per (link, address) and per link: a stranger cannot lock
// one address out of every link, and a storm on one link from many
// addresses still stops.
std::string PairKey(const meta::LinkRow& l, std::string_view ip) {
  return "link:" + l.public_id + "|" + std::string(ip);
}
std::string LinkKey(const meta::LinkRow& l) { return "link:" + l.public_id; }
constexpr int kPerLinkFailures = 50;

}  // namespace

NewLinkToken MakeLinkToken() {
  NewLinkToken t;
  t.token = RandomHex(kLinkTokenHexChars / 2);
  t.hash = Blake3::Hash(t.token);
  t.hint = t.token.substr(t.token.size() - 4);
  return t;
}

std::optional<meta::Digest> LinkTokenHash(std::string_view token) {
  if (token.size() != kLinkTokenHexChars) return std::nullopt;
  for (char c : token) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return std::nullopt;
  }
  return Blake3::Hash(token);
}

LinkVerifier::LinkVerifier(meta::MetaStore& meta, FailureLimiter& limiter,
                           const TokenSigner& signer, LinkVerifierOptions options)
    : meta_(meta), limiter_(limiter), signer_(signer), opt_(options) {}

Result<meta::LinkRow> LinkVerifier::Load(std::string_view token) {
  auto hash = LinkTokenHash(token);
  if (!hash) return NoSuchLink();
  std::optional<meta::LinkRow> link;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(link, t.FindLink(*hash));
    return Status::Ok();
  }));
  if (!link) return NoSuchLink();
  if (link->expires_at_ms && *link->expires_at_ms <= UnixMillis()) return NoSuchLink();
  return std::move(*link);
}

std::string LinkVerifier::UnlockData(const meta::LinkRow& link, int64_t expires_s) const {
  return link.public_id + "\n" + link.password_hash.value_or("") + "\n" + std::to_string(expires_s);
}

bool LinkVerifier::UnlockValid(const meta::LinkRow& link, std::string_view unlock,
                               int64_t now_ms) const {
  size_t dot = unlock.find('.');
  if (dot == std::string_view::npos) return false;
  auto expires_s = ParseUint64(unlock.substr(0, dot));
  if (!expires_s || static_cast<int64_t>(*expires_s) * 1000 <= now_ms) return false;
  return signer_.MacMatches("link-unlock", UnlockData(link, static_cast<int64_t>(*expires_s)),
                            unlock.substr(dot + 1));
}

Status LinkVerifier::CheckPassword(const meta::LinkRow& link, std::string_view password,
                                   std::string_view client_ip, BasicFailure* failure) {
  const int64_t now = UnixMillis();
  const std::string pair = PairKey(link, client_ip), whole = LinkKey(link);
  for (const std::string& key : {pair, whole}) {
    if (auto wait = limiter_.RetryAfter(key, now)) {
      if (failure) failure->retry_after_s = *wait;
      return Status::ResourceExhausted("too many wrong passwords for this link; try again later");
    }
  }
  Blake3 h;
  h.Update(link.public_id);
  h.Update(std::string_view("\0", 1));
  h.Update(*link.password_hash);
  h.Update(std::string_view("\0", 1));
  h.Update(password);
  const std::string key = DigestHex(h.Final());

  std::shared_ptr<Flight> flight;
  bool leader = false;
  {
    std::unique_lock lock(mu_);
    if (auto it = verified_.find(key); it != verified_.end()) {
      if (now - it->second < opt_.cache_ttl_ms) return Status::Ok();
      verified_.erase(it);
    }
    auto [it, inserted] = flights_.try_emplace(key);
    if (inserted) it->second = std::make_shared<Flight>();
    flight = it->second;
    leader = inserted;
    if (!leader) cv_.wait(lock, [&] { return flight->done; });
  }
  if (leader) {
    ++argon2_runs_;
    Result<bool> ok = VerifyPassword(password, *link.password_hash);
    std::lock_guard lock(mu_);
    flight->ok = ok;
    flight->done = true;
    flights_.erase(key);
    if (ok.ok() && *ok) {
      if (verified_.size() >= opt_.max_cached) verified_.clear();
      verified_[key] = now;
    }
    cv_.notify_all();
  }
  if (!flight->ok.ok()) {
    if (failure) failure->retry_after_s = 1;
    return flight->ok.status();
  }
  if (!*flight->ok) {
    limiter_.RecordFailure(pair, now);
    limiter_.RecordFailure(whole, now, kPerLinkFailures);
    return Status::Unauthenticated("wrong password");
  }
  limiter_.RecordSuccess(pair);
  return Status::Ok();
}

Result<PrincipalPtr> LinkVerifier::Verify(std::string_view token,
                                          std::optional<std::string_view> password,
                                          std::string_view unlock, std::string_view client_ip,
                                          BasicFailure* failure) {
  NUBO_ASSIGN_OR_RETURN(meta::LinkRow link, Load(token));
  if (link.password_hash) {
    if (unlock.empty() || !UnlockValid(link, unlock, UnixMillis())) {
      if (!password || password->empty()) return Status::Unauthenticated("password required");
      NUBO_RETURN_IF_ERROR(CheckPassword(link, *password, client_ip, failure));
    }
  }
  auto p = std::make_shared<Principal>();
  p->credential = Credential::kLink;
  p->username = "link " + link.token_hint;
  p->link_id = link.id;
  p->link_node = link.node_id;
  p->link_role = link.role;
  p->link_maker = link.created_by.value_or(0);
  return PrincipalPtr(std::move(p));
}

Result<std::pair<std::string, int64_t>> LinkVerifier::Unlock(std::string_view token,
                                                             std::string_view password,
                                                             std::string_view client_ip,
                                                             BasicFailure* failure) {
  NUBO_ASSIGN_OR_RETURN(meta::LinkRow link, Load(token));
  if (!link.password_hash) return Status::InvalidArgument("this link has no password");
  NUBO_RETURN_IF_ERROR(CheckPassword(link, password, client_ip, failure));
  int64_t expires_s = (UnixMillis() + opt_.unlock_ttl_ms) / 1000;
  if (link.expires_at_ms) expires_s = std::min(expires_s, *link.expires_at_ms / 1000);
  std::string value =
      std::to_string(expires_s) + "." + signer_.Mac("link-unlock", UnlockData(link, expires_s));
  return std::make_pair(std::move(value), std::max<int64_t>(1, expires_s - UnixMillis() / 1000));
}

}  // namespace nubo::auth
