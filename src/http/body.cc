#include "http/body.h"

#include <algorithm>
#include <cstring>

namespace nubo::http {

Result<size_t> StringSource::Read(char* buf, size_t cap) {
  size_t n = std::min(cap, s_.size() - pos_);
  std::memcpy(buf, s_.data() + pos_, n);
  pos_ += n;
  return n;
}

}  // namespace nubo::http
