#include "auth/login_flows.h"

#include <sodium.h>

#include <cstring>

#include "auth/accounts.h"
#include "util/ids.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::auth {

namespace {

constexpr size_t kMaxClientName = 200;

// The flow's key pair, derived from its poll token: the public key is the
// lookup key and seals the app password; the secret key opens it.
struct KeyPair {
  unsigned char pk[crypto_box_PUBLICKEYBYTES];
  unsigned char sk[crypto_box_SECRETKEYBYTES];
  ~KeyPair() { sodium_memzero(sk, sizeof sk); }
};

Status DeriveKeys(std::string_view poll_token, KeyPair& kp) {
  static_assert(crypto_box_SEEDBYTES == 32);
  static constexpr unsigned char kContext[] = "nubo login flow v2 poll key";
  unsigned char seed[crypto_box_SEEDBYTES];
  crypto_generichash(seed, sizeof seed, reinterpret_cast<const unsigned char*>(poll_token.data()),
                     poll_token.size(), kContext, sizeof kContext - 1);
  const int rc = crypto_box_seed_keypair(kp.pk, kp.sk, seed);
  sodium_memzero(seed, sizeof seed);
  if (rc != 0) return Status::Internal("cannot derive a login flow key");
  return Status::Ok();
}

meta::Digest LookupKey(const KeyPair& kp) {
  meta::Digest d{};
  static_assert(sizeof(meta::Digest) == crypto_box_PUBLICKEYBYTES);
  std::memcpy(d.data(), kp.pk, d.size());
  return d;
}

Status FlowGone() { return Status::NotFound("no such login flow, or it expired"); }

// Tokens are hex of fixed length: anything else is unknown at once.
bool PlausibleToken(std::string_view t) {
  if (t.size() != 64) return false;
  for (char c : t) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace

Result<LoginFlows::Started> LoginFlows::Start(std::string_view client_name) {
  if (sodium_init() < 0) return Status::Internal("libsodium unavailable");
  Started out;
  out.login_token = RandomHex(32);
  out.poll_token = RandomHex(32);
  KeyPair kp;
  NUBO_RETURN_IF_ERROR(DeriveKeys(out.poll_token, kp));
  meta::LoginFlowRow row;
  row.poll_hash = LookupKey(kp);
  row.login_token = out.login_token;
  std::string name(client_name.substr(0, kMaxClientName));
  // Cut at a character boundary: the name becomes an app password's label.
  if (client_name.size() > kMaxClientName) {
    size_t start = name.size();
    while (start > 0 && (static_cast<unsigned char>(name[start - 1]) & 0xc0) == 0x80) --start;
    if (start > 0) {
      const unsigned char lead = static_cast<unsigned char>(name[start - 1]);
      const size_t len = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
      if (name.size() - (start - 1) < len) name.resize(start - 1);
    }
  }
  row.client_name = name.empty() ? "unknown client" : name;
  row.created_at_ms = UnixMillis();
  row.expires_at_ms = row.created_at_ms + kTtlMs;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) { return t.InsertLoginFlow(row); }));
  return out;
}

Result<LoginFlows::Pending> LoginFlows::Describe(std::string_view login_token) {
  if (!PlausibleToken(login_token)) return FlowGone();
  std::optional<meta::LoginFlowRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, t.GetLoginFlowByToken(std::string(login_token)));
    return Status::Ok();
  }));
  if (!row || row->user_id != 0 || row->expires_at_ms <= UnixMillis()) return FlowGone();
  return Pending{row->client_name, row->expires_at_ms};
}

Status LoginFlows::Grant(const Principal& who, std::string_view login_token) {
  if (who.anonymous() || who.link() || who.user_id == 0) {
    return Status::PermissionDenied("sign in to grant access");
  }
  NUBO_ASSIGN_OR_RETURN(Pending p, Describe(login_token));
  std::optional<meta::LoginFlowRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, t.GetLoginFlowByToken(std::string(login_token)));
    return Status::Ok();
  }));
  if (!row) return FlowGone();
  NUBO_ASSIGN_OR_RETURN(auto pw, CreateAppPassword(meta_, who.username, p.client_name,
                                                   kScopeFiles | kScopeGroupware));
  // Sealed to the poll token's public key (the lookup key).
  std::string sealed(crypto_box_SEALBYTES + pw.secret.size(), '\0');
  if (crypto_box_seal(reinterpret_cast<unsigned char*>(sealed.data()),
                      reinterpret_cast<const unsigned char*>(pw.secret.data()), pw.secret.size(),
                      row->poll_hash.data()) != 0) {
    (void)RevokeAppPassword(meta_, who.username, pw.row.id);
    return Status::Internal("cannot seal the app password");
  }
  row->user_id = who.user_id;
  row->login_name = who.username;
  row->sealed = std::move(sealed);
  Status st = meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto cur, t.GetLoginFlowByToken(row->login_token));
    if (!cur || cur->user_id != 0 || cur->expires_at_ms <= UnixMillis()) return FlowGone();
    return t.GrantLoginFlow(*row);
  });
  // A flow that ended meanwhile (expired, granted in another tab) leaves
  // no app password behind.
  if (!st.ok()) (void)RevokeAppPassword(meta_, who.username, pw.row.id);
  return st;
}

Result<LoginFlows::Credentials> LoginFlows::Poll(std::string_view poll_token) {
  if (!PlausibleToken(poll_token)) return FlowGone();
  if (sodium_init() < 0) return Status::Internal("libsodium unavailable");
  KeyPair kp;
  NUBO_RETURN_IF_ERROR(DeriveKeys(poll_token, kp));
  const meta::Digest key = LookupKey(kp);
  const int64_t now = UnixMillis();
  // Read first: polls before the grant (every few seconds per client) cost
  // no write.
  std::optional<meta::LoginFlowRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, t.GetLoginFlowByPoll(key));
    return Status::Ok();
  }));
  if (!row || row->user_id == 0 || row->expires_at_ms <= now) return FlowGone();
  // Taking the row and deleting it is one transaction: of two concurrent
  // polls exactly one answers.
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, t.GetLoginFlowByPoll(key));
    if (!row || row->user_id == 0 || row->expires_at_ms <= now) return FlowGone();
    return t.DeleteLoginFlow(row->id);
  }));
  if (row->sealed.size() <= crypto_box_SEALBYTES) return FlowGone();
  std::string secret(row->sealed.size() - crypto_box_SEALBYTES, '\0');
  if (crypto_box_seal_open(reinterpret_cast<unsigned char*>(secret.data()),
                           reinterpret_cast<const unsigned char*>(row->sealed.data()),
                           row->sealed.size(), kp.pk, kp.sk) != 0) {
    return Status::Internal("the sealed app password does not open");
  }
  return Credentials{row->login_name, std::move(secret)};
}

Result<int64_t> LoginFlows::Expire(int64_t now_ms) {
  int64_t n = 0;
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(n, t.DeleteExpiredLoginFlows(now_ms));
    return Status::Ok();
  }));
  return n;
}

}  // namespace nubo::auth
