#include "auth/password.h"

#include "auth/password_pool.h"

#include <sodium.h>

#include <cstdlib>
#include <functional>
#include <semaphore>

namespace nubo::auth {

namespace {

void InitSodium() {
  static const bool ok = sodium_init() >= 0;
  if (!ok) std::abort();  // no CSPRNG: nothing safe can continue
}

// Without a pool (the command line, unit tests): each Argon2 run holds
// mem_limit bytes (64 MiB by default), so at most two run at once.
std::counting_semaphore<64>& Slots() {
  static std::counting_semaphore<64> slots(2);
  return slots;
}

struct Slot {
  Slot() { Slots().acquire(); }
  ~Slot() { Slots().release(); }
};

}  // namespace

Status CheckPasswordPolicy(std::string_view password, const PasswordParams& p) {
  if (password.size() < p.min_length) {
    return Status::InvalidArgument("password must be at least " + std::to_string(p.min_length) +
                                   " characters long");
  }
  if (password.size() > p.max_length) {
    return Status::InvalidArgument("password must be at most " + std::to_string(p.max_length) +
                                   " characters long");
  }
  if (password.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument("password must not contain NUL characters");
  }
  return Status::Ok();
}

// Runs `fn` on the installed pool, or inline (two at a time) without one.
Status OnPool(const std::function<void()>& fn) {
  if (PasswordPool* pool = PasswordPool::Installed()) return pool->Run(fn);
  Slot slot;
  fn();
  return Status::Ok();
}

Result<std::string> HashPassword(std::string_view password, const PasswordParams& p) {
  InitSodium();
  char out[crypto_pwhash_STRBYTES];
  int rc = -1;
  NUBO_RETURN_IF_ERROR(OnPool([&] {
    rc = crypto_pwhash_str_alg(out, password.data(), password.size(), p.ops_limit,
                               static_cast<size_t>(p.mem_limit), crypto_pwhash_ALG_ARGON2ID13);
  }));
  if (rc != 0) return Status::ResourceExhausted("not enough memory to hash the password");
  return std::string(out);
}

Result<bool> VerifyPassword(std::string_view password, const std::string& encoded) {
  InitSodium();
  if (encoded.empty() || encoded.size() >= crypto_pwhash_STRBYTES) return false;
  bool ok = false;
  NUBO_RETURN_IF_ERROR(OnPool([&] {
    ok = crypto_pwhash_str_verify(encoded.c_str(), password.data(), password.size()) == 0;
  }));
  return ok;
}

Result<std::string> HashPasswordNow(std::string_view password, const PasswordParams& p) {
  InitSodium();
  char out[crypto_pwhash_STRBYTES];
  if (crypto_pwhash_str_alg(out, password.data(), password.size(), p.ops_limit,
                            static_cast<size_t>(p.mem_limit), crypto_pwhash_ALG_ARGON2ID13) != 0) {
    return Status::ResourceExhausted("not enough memory to hash the password");
  }
  return std::string(out);
}

bool VerifyPasswordNow(std::string_view password, const std::string& encoded) {
  InitSodium();
  if (encoded.empty() || encoded.size() >= crypto_pwhash_STRBYTES) return false;
  return crypto_pwhash_str_verify(encoded.c_str(), password.data(), password.size()) == 0;
}

bool NeedsRehash(const std::string& encoded, const PasswordParams& p) {
  InitSodium();
  return crypto_pwhash_str_needs_rehash(encoded.c_str(), p.ops_limit, static_cast<size_t>(p.mem_limit)) != 0;
}

}  // namespace nubo::auth
