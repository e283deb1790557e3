// RFC 7578 multipart/form-data over RFC 2046 §5.1 framing; see multipart.h.
#include "http/multipart.h"

#include <algorithm>
#include <vector>

#include "util/strings.h"

namespace nubo::http {
namespace {

constexpr size_t kMaxBoundary = 70;  // RFC 2046 §5.1.1

Status Invalid(std::string message) { return Status::InvalidArgument(std::move(message)); }

bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// RFC 9110 §5.6.2 tchar.
bool IsTchar(char c) {
  return IsAlnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// RFC 2045 §5.1 tspecials.
bool IsTspecial(char c) {
  return std::string_view("()<>@,;:\\\"/[]?=").find(c) != std::string_view::npos;
}

// RFC 2046 §5.1.1 bchars.
bool IsBchar(char c) {
  return IsAlnum(c) || std::string_view("'()+_,-./:=? ").find(c) != std::string_view::npos;
}

// RFC 5987 §3.2.1 attr-char.
bool IsAttrChar(char c) {
  return IsAlnum(c) || std::string_view("!#$&+-.^_`|~").find(c) != std::string_view::npos;
}

bool IsWsp(char c) { return c == ' ' || c == '\t'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Status ValidateBoundary(std::string_view b) {
  if (b.empty()) return Invalid("multipart boundary is empty");
  if (b.size() > kMaxBoundary) return Invalid("multipart boundary is longer than 70 characters");
  for (char c : b) {
    if (!IsBchar(c)) return Invalid("multipart boundary has a character outside RFC 2046 bchars");
  }
  if (b.back() == ' ') return Invalid("multipart boundary ends with a space");
  return Status::Ok();
}

// RFC 9110 §5.6.4 quoted-string starting at s[*pos] == '"'; on success *pos is past the closing
// quote. A backslash escapes the next character only when that is a tspecial (which covers '"'
// and '\'); before anything else it is kept literally. Browsers do not escape backslashes (the
// HTML form encoding only turns CR, LF and '"' into %0D %0A %22), so a file "a\b.txt" arrives as
// filename="a\b.txt", and old IE sent full paths like "C:\dir\f.txt"; Go's mime package uses the
// same rule. A browser file name ending in '\' stays unparseable: nothing can tell it apart.
Status ParseQuoted(std::string_view s, size_t* pos, std::string* out, std::string_view what) {
  for (size_t i = *pos + 1; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"') {
      *pos = i + 1;
      return Status::Ok();
    }
    if (c == '\\' && i + 1 < s.size() && IsTspecial(s[i + 1])) {
      out->push_back(s[++i]);
      continue;
    }
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      return Invalid(std::string(what) + ": control character in quoted-string");
    }
    out->push_back(c);  // obs-text (raw UTF-8) is kept as sent
  }
  return Invalid(std::string(what) + ": unterminated quoted-string");
}

struct Param {
  std::string name;  // lower-cased
  std::string value;
};

// Parses the parameters after a media type or disposition type: *( OWS ";" OWS name=value ),
// value a token or quoted-string (RFC 9110 §5.6.6, RFC 6266 §4.1). Empty elements (a trailing
// ';', sent by some clients) are skipped. A repeated parameter is an error (RFC 6266 §4.1), so
// two parsers can never disagree about which one counts.
Result<std::vector<Param>> ParseParams(std::string_view s, std::string_view what) {
  std::vector<Param> out;
  size_t i = 0;
  auto skip_ows = [&] {
    while (i < s.size() && IsWsp(s[i])) ++i;
  };
  auto fail = [&](std::string_view reason) {
    return Invalid(std::string(what) + ": " + std::string(reason));
  };
  for (;;) {
    skip_ows();
    if (i == s.size()) return out;
    if (s[i] != ';') return fail("expected ';' between parameters");
    ++i;
    skip_ows();
    if (i == s.size() || s[i] == ';') continue;
    size_t start = i;
    while (i < s.size() && IsTchar(s[i])) ++i;
    if (i == start) return fail("parameter name is not a token");
    Param p{AsciiLowerCopy(s.substr(start, i - start)), {}};
    skip_ows();
    if (i == s.size() || s[i] != '=') return fail("parameter " + p.name + " has no value");
    ++i;
    skip_ows();
    if (i < s.size() && s[i] == '"') {
      NUBO_RETURN_IF_ERROR(ParseQuoted(s, &i, &p.value, what));
    } else {
      start = i;
      while (i < s.size() && IsTchar(s[i])) ++i;
      if (i == start)
        return fail("parameter " + p.name + " is neither a token nor a quoted-string");
      p.value = std::string(s.substr(start, i - start));
    }
    for (const Param& q : out) {
      if (q.name == p.name) return fail("duplicate parameter " + p.name);
    }
    out.push_back(std::move(p));
  }
}

// RFC 5987 §3.2.1 ext-value: charset "'" [ language ] "'" value-chars. Only UTF-8 is accepted: it
// is all that clients send, and decoding ISO-8859-1 into a UTF-8 file name is not worth its code.
Result<std::string> DecodeExtValue(std::string_view v) {
  size_t q1 = v.find('\'');
  size_t q2 = q1 == std::string_view::npos ? q1 : v.find('\'', q1 + 1);
  if (q2 == std::string_view::npos)
    return Invalid("filename* is not charset'language'value (RFC 5987)");
  if (!IEquals(v.substr(0, q1), "UTF-8")) return Invalid("filename* charset is not UTF-8");
  for (char c : v.substr(q1 + 1, q2 - q1 - 1)) {
    if (!IsAlnum(c) && c != '-') return Invalid("filename* language is not a language tag");
  }
  std::string out;
  std::string_view chars = v.substr(q2 + 1);
  for (size_t i = 0; i < chars.size(); ++i) {
    char c = chars[i];
    if (c == '%') {
      int hi = i + 2 < chars.size() ? HexValue(chars[i + 1]) : -1;
      int lo = hi < 0 ? -1 : HexValue(chars[i + 2]);
      if (lo < 0) return Invalid("filename* has a bad percent-encoding");
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (IsAttrChar(c)) {
      out.push_back(c);
    } else {
      return Invalid("filename* has a character outside RFC 5987 attr-char");
    }
  }
  return out;
}

// RFC 7578 §4.2: Content-Disposition: form-data; name="..." [; filename="..."].
Status ParseContentDisposition(std::string_view v, MultipartPart* part) {
  size_t semi = v.find(';');
  if (!IEquals(Trim(v.substr(0, semi)), "form-data")) {
    return Invalid("part Content-Disposition is not form-data (RFC 7578 §4.2)");
  }
  std::vector<Param> params;
  if (semi != std::string_view::npos) {
    NUBO_ASSIGN_OR_RETURN(params, ParseParams(v.substr(semi), "part Content-Disposition"));
  }
  const Param* name = nullptr;
  const Param* filename = nullptr;
  const Param* filename_ext = nullptr;
  for (const Param& p : params) {
    if (p.name == "name") name = &p;
    if (p.name == "filename") filename = &p;
    if (p.name == "filename*") filename_ext = &p;
  }
  if (name == nullptr)
    return Invalid("part Content-Disposition has no name parameter (RFC 7578 §4.2)");
  part->name = name->value;
  // RFC 7578 §4.2 forbids senders to use filename*, but older urllib3 (Python requests) sent
  // filename*=utf-8''... for non-ASCII names; RFC 6266 §4.3 says it wins over filename.
  if (filename_ext != nullptr) {
    NUBO_ASSIGN_OR_RETURN(part->filename, DecodeExtValue(filename_ext->value));
  } else if (filename != nullptr) {
    part->filename = filename->value;
  }
  return Status::Ok();
}

// Parses a part's header lines (CRLF-separated, no final CRLF; may be empty).
Status ParseHeaderBlock(std::string_view block, bool form_data, MultipartPart* part) {
  struct Field {
    std::string_view name;
    std::string value;
  };
  std::vector<Field> fields;
  while (!block.empty()) {
    size_t eol = block.find("\r\n");
    std::string_view line = block.substr(0, eol);
    block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 2);
    // A lone CR or LF would let two parsers split lines differently.
    if (line.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
      return Invalid("part header has a bare CR, LF or NUL");
    }
    if (line.empty()) return Invalid("part header block has an empty line");  // cannot happen
    if (IsWsp(line.front())) {
      // RFC 5322 §2.2.3 unfolding: mail-style generators (Python's email package) fold long
      // Content-Disposition lines; browsers never do.
      if (fields.empty()) return Invalid("part header block starts with a continuation line");
      fields.back().value.append(line);
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Invalid("part header line has no colon");
    std::string_view name = line.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsTchar)) {
      return Invalid("part header name is not a token");
    }
    fields.push_back({name, std::string(line.substr(colon + 1))});
  }
  bool have_disposition = false;
  bool have_type = false;
  for (const Field& f : fields) {
    std::string_view value = Trim(f.value);
    if (IEquals(f.name, "Content-Disposition")) {
      if (have_disposition) return Invalid("part has two Content-Disposition headers");
      have_disposition = true;
      NUBO_RETURN_IF_ERROR(ParseContentDisposition(value, part));
    } else if (IEquals(f.name, "Content-Type")) {
      if (have_type) return Invalid("part has two Content-Type headers");
      have_type = true;
      part->content_type = std::string(value);
    } else {
      // RFC 7578 §4.8: form-data ignores any other field. That includes
      // Content-Transfer-Encoding, which §4.7 forbids senders to use and no deployed sender
      // emits. Other multipart types carry metadata in them: kept for the caller.
      part->fields.emplace_back(std::string(f.name), std::string(value));
    }
  }
  if (form_data && !have_disposition) {
    return Invalid("part has no Content-Disposition header (RFC 7578 §4.2)");
  }
  return Status::Ok();
}

}  // namespace

Result<std::string> MultipartParser::BoundaryFromContentType(std::string_view content_type,
                                                             std::string_view type) {
  std::string_view v = Trim(content_type);
  size_t semi = v.find(';');
  const std::string kind(type);
  if (!IEquals(Trim(v.substr(0, semi)), type)) {
    return Invalid("Content-Type is not " + kind);
  }
  if (semi == std::string_view::npos) return Invalid(kind + " has no boundary parameter");
  NUBO_ASSIGN_OR_RETURN(std::vector<Param> params, ParseParams(v.substr(semi), "Content-Type"));
  for (Param& p : params) {
    if (p.name != "boundary") continue;
    NUBO_RETURN_IF_ERROR(ValidateBoundary(p.value));
    return std::move(p.value);
  }
  return Invalid(kind + " has no boundary parameter");
}

MultipartParser::MultipartParser(std::string boundary, MultipartHandler& handler,
                                 MultipartLimits limits)
    : delimiter_("\r\n--" + boundary),
      handler_(handler),
      limits_(limits),
      error_(ValidateBoundary(boundary)) {
  // RFC 2046 §5.1.1: the first dash-boundary may open the body with no CRLF before it. Seeding
  // the input with a CRLF lets the one search for CRLF "--" boundary find it at the very start
  // as well as after a preamble.
  pending_ = "\r\n";
}

Status MultipartParser::Write(const char* data, size_t len) {
  if (!error_.ok()) return error_;
  if (finished_) return error_ = Status::Internal("multipart: Write after Finish");
  Status st = Feed(std::string_view(data, len));
  if (!st.ok()) error_ = st;
  return st;
}

Status MultipartParser::Feed(std::string_view in) {
  // Bytes left from earlier writes are an incomplete delimiter or header block. Top them up with
  // just enough new input to make progress, then parse the rest of `in` in place: the copy stays
  // bounded by a delimiter or a header block however large the writes are.
  while (!pending_.empty()) {
    if (in.empty()) return Status::Ok();
    size_t old = pending_.size();
    size_t want = delimiter_.size();
    if (state_ == State::kHeaders) {
      size_t cap = HeaderCap();
      want = old < cap ? cap - old : 1;
    }
    size_t take = std::min(in.size(), want);
    pending_.append(in.data(), take);
    size_t used = 0;
    NUBO_RETURN_IF_ERROR(Consume(pending_, &used));
    if (used >= old) {
      // Everything carried over is consumed; the unconsumed part of the top-up is still in `in`.
      in.remove_prefix(used - old);
      pending_.clear();
    } else {
      pending_.erase(0, used);
      in.remove_prefix(take);
    }
  }
  size_t used = 0;
  NUBO_RETURN_IF_ERROR(Consume(in, &used));
  pending_.assign(in.substr(used));
  return Status::Ok();
}

Status MultipartParser::Consume(std::string_view in, size_t* used) {
  size_t pos = 0;
  bool more = false;
  while (!more) {
    std::string_view rest = in.substr(pos);
    size_t n = 0;
    switch (state_) {
      case State::kPreamble:
      case State::kData:
        NUBO_RETURN_IF_ERROR(ScanForDelimiter(rest, &n, &more));
        break;
      case State::kAfterBoundary:
        NUBO_RETURN_IF_ERROR(AfterBoundary(rest, &n, &more));
        break;
      case State::kPadding:
        NUBO_RETURN_IF_ERROR(Padding(rest, &n, &more));
        break;
      case State::kHeaders:
        NUBO_RETURN_IF_ERROR(Headers(rest, &n, &more));
        break;
      case State::kEpilogue:  // RFC 2046 §5.1.1: the epilogue is to be ignored
        n = rest.size();
        more = true;
        break;
    }
    pos += n;
  }
  *used = pos;
  return Status::Ok();
}

Status MultipartParser::ScanForDelimiter(std::string_view in, size_t* used, bool* more) {
  // string_view::find runs memchr for the leading CR, then compares: binary data has a CR every
  // 256 bytes on average, text one per line, so this is close to memchr speed. The delimiter has
  // a single CR (bchars exclude it), so each candidate comparison in the hold-back loop stops at
  // the next CR at the latest: O(delimiter) per call.
  size_t at = in.find(delimiter_);
  size_t data_len = at;
  if (at == std::string_view::npos) {
    // Hold back the longest tail that could begin the delimiter; deliver everything before it.
    std::string_view delim(delimiter_);
    size_t i = in.size() >= delim.size() ? in.size() - delim.size() + 1 : 0;
    for (; i < in.size(); ++i) {
      if (in[i] == '\r' && delim.substr(0, in.size() - i) == in.substr(i)) break;
    }
    data_len = i;
    *used = i;
    *more = true;
  } else {
    *used = at + delimiter_.size();
    state_ = State::kAfterBoundary;
  }
  if (in_part_ && data_len > 0) {  // never true in the preamble
    return handler_.OnPartData(in.data(), data_len);
  }
  return Status::Ok();
}

Status MultipartParser::EndPartIfOpen() {
  if (!in_part_) return Status::Ok();
  in_part_ = false;
  return handler_.OnPartEnd();
}

// Right after CRLF "--" boundary: "--" makes it the close-delimiter (RFC 2046 §5.1.1). The part
// before a delimiter only ends once the delimiter line is known to be well-formed.
Status MultipartParser::AfterBoundary(std::string_view in, size_t* used, bool* more) {
  if (in.empty() || (in[0] == '-' && in.size() < 2)) {
    *more = true;
    return Status::Ok();
  }
  if (in[0] != '-') {
    state_ = State::kPadding;
    return Status::Ok();
  }
  if (in[1] != '-') return Invalid("multipart boundary delimiter followed by a single '-'");
  *used = 2;
  state_ = State::kEpilogue;
  return EndPartIfOpen();
}

// transport-padding (RFC 2046 §5.1.1: LWSP a sender may add) then the CRLF ending the delimiter
// line. The CRLF is left for Headers(), whose search for CRLF CRLF then also finds an empty
// header block.
Status MultipartParser::Padding(std::string_view in, size_t* used, bool* more) {
  size_t i = 0;
  while (i < in.size() && IsWsp(in[i])) ++i;
  *used = i;
  if (i + 2 > in.size() && (i == in.size() || in[i] == '\r')) {
    *more = true;
    return Status::Ok();
  }
  if (in[i] != '\r' || in[i + 1] != '\n') {
    // Also what a body using bare LF line endings, or a boundary that is only a prefix of a
    // line in the data ("--AaB03xyz"), runs into: the sender broke RFC 2046 §5.1.1.
    return Invalid("multipart boundary delimiter line does not end with CRLF");
  }
  NUBO_RETURN_IF_ERROR(EndPartIfOpen());
  if (parts_ >= limits_.max_parts) {
    return Invalid("multipart body has more than " + std::to_string(limits_.max_parts) + " parts");
  }
  ++parts_;
  state_ = State::kHeaders;
  header_scanned_ = 0;
  return Status::Ok();
}

// `in` starts with the CRLF ending the delimiter line, so CRLF CRLF ends the header block even
// when it is empty. Searching resumes where the last call stopped: a client trickling headers a
// byte at a time must not cost a quadratic rescan.
Status MultipartParser::Headers(std::string_view in, size_t* used, bool* more) {
  size_t cap = HeaderCap();
  size_t from = header_scanned_ > 3 ? header_scanned_ - 3 : 0;
  size_t end = in.substr(0, cap).find("\r\n\r\n", from);
  if (end == std::string_view::npos) {
    if (in.size() >= cap) {
      return Invalid("part header block exceeds " + std::to_string(limits_.max_header_bytes) +
                     " bytes");
    }
    header_scanned_ = in.size();
    *more = true;
    return Status::Ok();
  }
  MultipartPart part;
  NUBO_RETURN_IF_ERROR(ParseHeaderBlock(end >= 2 ? in.substr(2, end - 2) : std::string_view(),
                                        limits_.form_data, &part));
  *used = end + 4;
  state_ = State::kData;
  header_scanned_ = 0;
  in_part_ = true;
  return handler_.OnPartBegin(part);
}

Status MultipartParser::Finish() {
  if (!error_.ok() || finished_) return error_;
  finished_ = true;
  switch (state_) {
    case State::kEpilogue:
      return Status::Ok();
    case State::kPreamble:
      return error_ = Invalid("multipart body has no boundary delimiter");
    case State::kAfterBoundary:
    case State::kPadding:
      return error_ = Invalid("multipart body ends inside a boundary delimiter line");
    case State::kHeaders:
      return error_ = Invalid("multipart body ends inside a part's headers");
    case State::kData:
      break;
  }
  return error_ = Invalid("multipart body ends without the close delimiter");
}

}  // namespace nubo::http
