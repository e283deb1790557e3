// Password hashing with Argon2id (libsodium's crypto_pwhash_str_alg): the
// only place nubo touches a password. Thread-safe; hashing and verifying
// are deliberately slow (~100 ms with the defaults) and memory-hard (64 MiB
// each). In the server they run on the PasswordPool (auth/password_pool.h),
// never on the file I/O pool, and fail fast with Unavailable when its queue
// is full; without an installed pool (the command line) they run inline,
// at most two at once. Callers block: never call them on an I/O thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/status.h"

namespace nubo::auth {

struct PasswordParams {
  // Defaults chosen to cost ~100-300 ms on a 2-core server (bench below).
  uint64_t ops_limit = 3;
  uint64_t mem_limit = 64ull << 20;
  size_t min_length = 10;
  size_t max_length = 1024;  // Argon2 accepts more; bounded to cap work per request
};

// InvalidArgument with a message fit for the user when `password` is too
// short, too long, or contains NUL.
Status CheckPasswordPolicy(std::string_view password, const PasswordParams& p);

// Argon2id encoded string ("$argon2id$v=19$m=...,t=...,p=1$salt$hash").
// Unavailable when the password pool is saturated.
Result<std::string> HashPassword(std::string_view password, const PasswordParams& p);

// Constant-time verification against an encoded hash. False for a wrong
// password and for an empty or malformed hash (never an error path an
// attacker could time); Unavailable when the password pool is saturated.
Result<bool> VerifyPassword(std::string_view password, const std::string& encoded);

// The same, run on the calling thread whatever is installed (for work
// already on the password pool).
bool VerifyPasswordNow(std::string_view password, const std::string& encoded);
Result<std::string> HashPasswordNow(std::string_view password, const PasswordParams& p);

// True when `encoded` was made with parameters other than `p` (rehash on
// the next successful login).
bool NeedsRehash(const std::string& encoded, const PasswordParams& p);

}  // namespace nubo::auth
