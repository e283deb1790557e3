// RFC 7578 multipart/form-data: a streaming parser over RFC 2046 §5.1 framing.
//
// The parser is fed the request body in pieces of any size and reports each part to a
// MultipartHandler as it begins, as its bytes arrive and as it ends. An upload of any size
// therefore streams to its destination in constant memory: the parser buffers at most one part's
// header block (MultipartLimits::max_header_bytes) or one boundary delimiter's worth of bytes.
//
// Thread-safety: a parser is one request's state; drive it from one thread at a time. The handler
// is called synchronously from Write() on that thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "util/status.h"

namespace nubo::http {

// One part's headers (RFC 7578 §4.2, §4.4). Values are bytes as sent; nothing is sanitized.
struct MultipartPart {
  std::string name;  // form field name (Content-Disposition name=)
  // filename*= (RFC 5987, UTF-8'' only) wins over filename=; raw UTF-8 bytes kept as sent;
  // browsers escape '"' as %22 in filename= and that stays literal. Engaged but empty when a
  // browser submits a file input with no file chosen (filename=""). May contain '/', "..",
  // control characters (via filename*): callers validate before using it as a path.
  std::optional<std::string> filename;
  std::string content_type;  // part Content-Type, "" when absent
  // Every other header field of the part, names and values as sent (values trimmed), in order:
  // multipart/related bodies (RFC 2387) carry their per-part metadata there.
  std::vector<std::pair<std::string, std::string>> fields;
};

// Receives the parts of one body, in order: OnPartBegin, zero or more OnPartData (never with
// len == 0), OnPartEnd; then the next part. A part cut off by an error or by the end of the body
// gets no OnPartEnd. A non-OK return stops the parser and is returned by Write() unchanged.
class MultipartHandler {
 public:
  virtual ~MultipartHandler() = default;
  virtual Status OnPartBegin(const MultipartPart& part) = 0;
  // `data` is only valid during the call.
  virtual Status OnPartData(const char* data, size_t len) = 0;
  virtual Status OnPartEnd() = 0;
};

struct MultipartLimits {
  // Per part's header block: its header lines with their CRLFs plus the empty line ending them.
  size_t max_header_bytes = 16 << 10;
  size_t max_parts = 100000;
  // multipart/form-data (RFC 7578): every part names its field in a Content-Disposition. Off for
  // other multipart bodies (multipart/related), whose parts need not have one.
  bool form_data = true;
};

class MultipartParser {
 public:
  // The boundary parameter of a "multipart/form-data; boundary=..." value (quoted or token,
  // 1..70 chars per RFC 2046 §5.1.1). InvalidArgument (reason in message) when the type is not
  // `type` or the boundary is missing/invalid.
  static Result<std::string> BoundaryFromContentType(std::string_view content_type,
                                                     std::string_view type = "multipart/form-data");

  // `handler` must outlive the parser. An invalid `boundary` (see BoundaryFromContentType) makes
  // the first Write()/Finish() return InvalidArgument.
  MultipartParser(std::string boundary, MultipartHandler& handler, MultipartLimits limits = {});

  // Feeds the next bytes of the body, any split. Malformed input → InvalidArgument with a
  // precise reason; a non-OK status returned by the handler is returned as is and the parser
  // stops (later calls return the same error). Part bytes reach OnPartData during the Write that
  // carries them, except a tail that might be the start of the next delimiter.
  Status Write(const char* data, size_t len);

  // End of body: InvalidArgument unless the close delimiter "--boundary--" was seen (the
  // epilogue after it is ignored). A part left open gets no OnPartEnd: discard what it wrote.
  Status Finish();

 private:
  enum class State {
    kPreamble,       // before the first delimiter: discarded (RFC 2046 §5.1.1)
    kAfterBoundary,  // just past CRLF "--" boundary: "--" closes, else a part follows
    kPadding,        // transport padding, then the CRLF ending the delimiter line
    kHeaders,        // the part's header block, up to and including the empty line
    kData,           // part bytes up to the next delimiter
    kEpilogue,       // after the close delimiter: ignored
  };

  // Runs the state machine over `in` until it needs more input; *used = bytes consumed. Bytes
  // not consumed must be presented again, followed by later input.
  Status Consume(std::string_view in, size_t* used);
  Status ScanForDelimiter(std::string_view in, size_t* used, bool* more);
  Status AfterBoundary(std::string_view in, size_t* used, bool* more);
  Status Padding(std::string_view in, size_t* used, bool* more);
  Status Headers(std::string_view in, size_t* used, bool* more);
  Status EndPartIfOpen();
  Status Feed(std::string_view in);
  // Bytes of input a header block may span: max_header_bytes plus the CRLF that ends the
  // delimiter line before it (Headers() searches from there).
  size_t HeaderCap() const {
    return limits_.max_header_bytes > SIZE_MAX - 2 ? SIZE_MAX : limits_.max_header_bytes + 2;
  }

  std::string delimiter_;  // CRLF "--" boundary (RFC 2046 §5.1.1)
  MultipartHandler& handler_;
  MultipartLimits limits_;
  State state_ = State::kPreamble;
  // Unconsumed bytes carried between writes: a possible delimiter prefix (< delimiter size) or
  // an incomplete header block (<= max_header_bytes + 2).
  std::string pending_;
  size_t header_scanned_ = 0;  // bytes of the unconsumed header block already searched
  size_t parts_ = 0;
  bool in_part_ = false;  // OnPartBegin called, OnPartEnd not yet
  bool finished_ = false;
  Status error_;  // sticky: once set, every call returns it
};

}  // namespace nubo::http
