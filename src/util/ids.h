// Identifiers: UUIDv7 (RFC 9562 §5.7) for public ids that sort by creation
// time but cannot be enumerated, and random tokens. Thread-safe; randomness
// comes from the kernel CSPRNG (getrandom).
#pragma once

#include <cstddef>
#include <string>

namespace nubo {

// Fills `buf` with `len` cryptographically random bytes. Aborts the process
// if the kernel cannot supply them (nothing safe can continue without).
void RandomBytes(void* buf, size_t len);

// Canonical lower-case UUIDv7 text, e.g. "01932c07-8d4a-7b3e-9f1a-2c4d5e6f7a8b".
std::string NewUuidV7();

// `bytes` random bytes as lower-case hex (2*bytes chars).
std::string RandomHex(size_t bytes);

}  // namespace nubo
