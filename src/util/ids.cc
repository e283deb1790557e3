#include "util/ids.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "util/strings.h"
#include "util/time.h"

namespace nubo {

void RandomBytes(void* buf, size_t len) {
  auto* p = static_cast<unsigned char*>(buf);
  while (len > 0) {
    ssize_t n = getrandom(p, len, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::perror("getrandom");
      std::abort();
    }
    p += n;
    len -= static_cast<size_t>(n);
  }
}

std::string NewUuidV7() {
  unsigned char b[16];
  RandomBytes(b, sizeof b);
  uint64_t ms = static_cast<uint64_t>(UnixMillis());
  for (int i = 0; i < 6; ++i) b[i] = static_cast<unsigned char>(ms >> (8 * (5 - i)));
  b[6] = static_cast<unsigned char>(0x70 | (b[6] & 0x0f));  // version 7
  b[8] = static_cast<unsigned char>(0x80 | (b[8] & 0x3f));  // variant 10
  std::string hex = HexEncode(b, sizeof b);
  return hex.substr(0, 8) + '-' + hex.substr(8, 4) + '-' + hex.substr(12, 4) + '-' +
         hex.substr(16, 4) + '-' + hex.substr(20);
}

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  RandomBytes(raw.data(), raw.size());
  return HexEncode(raw.data(), raw.size());
}

}  // namespace nubo
