// Fuzzes the streaming multipart/form-data parser (RFC 7578 over RFC 2046 §5.1), and its
// multipart/related mode (RFC 2387: no Content-Disposition, the other fields kept; the Nextcloud
// bulk upload).
//
// Input: byte 0 seeds the write sizes (its low bit: related mode), the rest is a body whose
// boundary is "AaB03x" (RFC 7578's example). The body is parsed three times: in one write, a byte
// at a time, and in pieces whose sizes derive from byte 0. Property: the parts, their bytes and the
// final status do not depend on how the body was split. A part named "fail-begin" / "fail-end"
// makes the handler fail, so error propagation is covered too.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz/fuzz_check.h"
#include "http/multipart.h"

namespace {

struct Part {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> fields;
  std::string data;
  bool ended = false;
  bool operator==(const Part&) const = default;
};

class Recorder : public nubo::http::MultipartHandler {
 public:
  nubo::Status OnPartBegin(const nubo::http::MultipartPart& p) override {
    FUZZ_CHECK(parts.empty() || parts.back().ended);
    parts.push_back({p.name, p.filename, p.content_type, p.fields, "", false});
    if (p.name == "fail-begin") return nubo::Status::Aborted("handler refused the part");
    return nubo::Status::Ok();
  }
  nubo::Status OnPartData(const char* data, size_t len) override {
    FUZZ_CHECK(len > 0);
    FUZZ_CHECK(!parts.empty() && !parts.back().ended);
    parts.back().data.append(data, len);
    return nubo::Status::Ok();
  }
  nubo::Status OnPartEnd() override {
    FUZZ_CHECK(!parts.empty() && !parts.back().ended);
    parts.back().ended = true;
    if (parts.back().name == "fail-end") return nubo::Status::Aborted("handler refused the end");
    return nubo::Status::Ok();
  }
  std::vector<Part> parts;
};

struct Outcome {
  nubo::Status status;
  std::vector<Part> parts;
};

// Small limits so the corpus reaches them.
nubo::http::MultipartLimits Limits(bool related = false) {
  nubo::http::MultipartLimits l;
  l.max_header_bytes = 256;
  l.max_parts = 8;
  l.form_data = !related;
  return l;
}

// Feeds `body` in pieces of next_size() bytes (0 means "the rest"), then Finish()es.
template <typename NextSize>
Outcome Run(std::string_view body, bool related, NextSize next_size) {
  Recorder r;
  nubo::http::MultipartParser p("AaB03x", r, Limits(related));
  nubo::Status st;
  while (!body.empty()) {
    size_t n = next_size();
    if (n == 0 || n > body.size()) n = body.size();
    st = p.Write(body.data(), n);
    body.remove_prefix(n);
    if (!st.ok()) {
      // The error is sticky.
      FUZZ_CHECK(p.Write("x", 1) == st);
      FUZZ_CHECK(p.Finish() == st);
      break;
    }
  }
  if (st.ok()) st = p.Finish();
  return {st, std::move(r.parts)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t seed = data[0];
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);

  const bool related = (seed & 1) != 0;
  Outcome whole = Run(body, related, [] { return size_t{0}; });
  Outcome bytewise = Run(body, related, [] { return size_t{1}; });
  uint32_t x = seed;
  const uint32_t max_piece = 1 + seed % 97;
  Outcome pieces = Run(body, related, [&] {
    x = x * 1103515245u + 12345u;
    return size_t{1} + (x >> 16) % max_piece;
  });

  FUZZ_CHECK(whole.status == bytewise.status);
  FUZZ_CHECK(whole.parts == bytewise.parts);
  FUZZ_CHECK(whole.status == pieces.status);
  FUZZ_CHECK(whole.parts == pieces.parts);

  const nubo::Code code = whole.status.code();
  FUZZ_CHECK(code == nubo::Code::kOk || code == nubo::Code::kInvalidArgument ||
             code == nubo::Code::kAborted);
  FUZZ_CHECK(whole.parts.size() <= Limits().max_parts);
  size_t total = 0;
  for (size_t i = 0; i < whole.parts.size(); ++i) {
    total += whole.parts[i].data.size();
    // Only the last part can be left open, and only by an error.
    if (i + 1 < whole.parts.size() || whole.status.ok()) FUZZ_CHECK(whole.parts[i].ended);
  }
  FUZZ_CHECK(total <= body.size());

  // The first line doubles as a Content-Type value.
  auto boundary =
      nubo::http::MultipartParser::BoundaryFromContentType(body.substr(0, body.find('\r')));
  if (boundary.ok()) FUZZ_CHECK(!boundary->empty() && boundary->size() <= 70);
  auto related_boundary = nubo::http::MultipartParser::BoundaryFromContentType(
      body.substr(0, body.find('\r')), "multipart/related");
  if (related_boundary.ok()) {
    FUZZ_CHECK(!related_boundary->empty() && related_boundary->size() <= 70);
    FUZZ_CHECK(!boundary.ok());  // one type or the other
  }
  return 0;
}
