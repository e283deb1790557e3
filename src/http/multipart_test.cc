#include "http/multipart.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace nubo {
// Readable failures for EXPECT_EQ on Status (internal linkage: no clash with other tests).
[[maybe_unused]] static void PrintTo(const Status& s, std::ostream* os) { *os << s.ToString(); }
}  // namespace nubo

namespace nubo::http {
namespace {

using namespace std::string_literals;

// What a handler saw of one part.
struct Seen {
  std::string name;
  std::optional<std::string> filename;
  std::string content_type;
  std::string data;
  bool ended = false;
  friend bool operator==(const Seen&, const Seen&) = default;
};

void PrintTo(const Seen& s, std::ostream* os) {
  *os << "{name=" << testing::PrintToString(s.name)
      << " filename=" << (s.filename ? testing::PrintToString(*s.filename) : "none")
      << " type=" << testing::PrintToString(s.content_type)
      << " data=" << testing::PrintToString(s.data) << (s.ended ? " ended}" : " open}");
}

// Records every callback and checks their order; can be told to fail on the n-th call.
class Recorder : public MultipartHandler {
 public:
  Status OnPartBegin(const MultipartPart& p) override {
    EXPECT_TRUE(parts.empty() || parts.back().ended) << "OnPartBegin inside a part";
    parts.push_back({p.name, p.filename, p.content_type, "", false});
    return Next();
  }
  Status OnPartData(const char* data, size_t len) override {
    EXPECT_GT(len, 0u);
    EXPECT_TRUE(!parts.empty() && !parts.back().ended) << "OnPartData outside a part";
    if (!parts.empty()) parts.back().data.append(data, len);
    return Next();
  }
  Status OnPartEnd() override {
    EXPECT_TRUE(!parts.empty() && !parts.back().ended) << "OnPartEnd outside a part";
    if (!parts.empty()) parts.back().ended = true;
    return Next();
  }

  std::vector<Seen> parts;
  int calls = 0;
  int fail_at = -1;  // index of the call that fails, -1: never
  Status failure = Status::QuotaExceeded("disk full");

 private:
  Status Next() { return calls++ == fail_at ? failure : Status::Ok(); }
};

struct Outcome {
  Status status;
  std::vector<Seen> parts;
};

constexpr char kBoundary[] = "AaB03x";  // RFC 7578 §4.1's example

// Parses `body` split at `cuts` (ascending offsets), then Finish()es unless a Write failed.
Outcome Parse(std::string_view body, std::vector<size_t> cuts = {}, MultipartLimits limits = {}) {
  Recorder r;
  MultipartParser p(kBoundary, r, limits);
  cuts.push_back(body.size());
  size_t prev = 0;
  Status st;
  for (size_t cut : cuts) {
    st = p.Write(body.data() + prev, cut - prev);
    prev = cut;
    if (!st.ok()) break;
  }
  if (st.ok()) st = p.Finish();
  return {st, r.parts};
}

Outcome ParseBytewise(std::string_view body, MultipartLimits limits = {}) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < body.size(); ++i) cuts.push_back(i);
  return Parse(body, cuts, limits);
}

// One encapsulation: dash-boundary line, `headers` (CRLF-separated lines), blank line, data, and
// the CRLF that belongs to the next delimiter.
std::string PartText(std::string_view headers, std::string_view data) {
  return "--" + std::string(kBoundary) + "\r\n" + std::string(headers) + "\r\n\r\n" +
         std::string(data) + "\r\n";
}
std::string Field(std::string_view name, std::string_view data) {
  return PartText("Content-Disposition: form-data; name=\"" + std::string(name) + "\"", data);
}
const std::string kClose = "--" + std::string(kBoundary) + "--\r\n";

Seen Ended(std::string name, std::string data, std::optional<std::string> filename = std::nullopt,
           std::string type = "") {
  return {std::move(name), std::move(filename), std::move(type), std::move(data), true};
}

// Every byte value, and lines that nearly are a delimiter.
std::string TrickyBinary() {
  std::string s;
  for (int i = 0; i < 256; ++i) s.push_back(static_cast<char>(i));
  s += "\r\n--AaB03";      // boundary prefix only
  s += "\r\n--AaB03\r\n";  // ... then CRLF
  s += "\r\n-AaB03x";      // one dash
  s += "\n--AaB03x";       // LF only
  s += "\r--AaB03x";       // CR only
  s += "--AaB03x";         // not at a line start
  s += "\r\n--aab03x";     // case differs
  s += std::string("\r\n--AaB0\0x", 10);
  s += "\r\n\r\n--\r\n";
  s += "\r\n--AaB03";  // ends with a boundary prefix
  return s;
}

std::string SeveralParts() {
  return "preamble to ignore\r\n" + Field("title", "Holiday") +
         PartText(
             "Content-Disposition: form-data; name=\"file\"; filename=\"a.bin\"\r\n"
             "Content-Type: application/octet-stream",
             TrickyBinary()) +
         Field("empty", "") + Field("crlf", "\r\n") + kClose + "epilogue to ignore\r\n--AaB03x\r\n";
}

std::vector<Seen> SeveralPartsExpected() {
  return {Ended("title", "Holiday"),
          Ended("file", TrickyBinary(), "a.bin", "application/octet-stream"), Ended("empty", ""),
          Ended("crlf", "\r\n")};
}

TEST(Multipart, RoundTripSeveralPartsWithNearMisses) {
  Outcome o = Parse(SeveralParts());
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.parts, SeveralPartsExpected());
}

TEST(Multipart, EverySplitPointAndBytewise) {
  const std::string body = SeveralParts();
  const std::vector<Seen> want = SeveralPartsExpected();
  for (size_t i = 0; i <= body.size(); ++i) {
    Outcome o = Parse(body, {i});
    ASSERT_TRUE(o.status.ok()) << "split at " << i << ": " << o.status.ToString();
    ASSERT_EQ(o.parts, want) << "split at " << i;
  }
  Outcome o = ParseBytewise(body);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.parts, want);
}

TEST(Multipart, EveryPairOfSplitPoints) {
  const std::string body =
      Field("a", "x\r\n--AaB03") +
      PartText("Content-Disposition: form-data; name=b; filename*=UTF-8''%C3%A9", "\r\n-") +
      "--AaB03x-- \t";
  const std::vector<Seen> want = {Ended("a", "x\r\n--AaB03"), Ended("b", "\r\n-", "\xC3\xA9")};
  for (size_t i = 0; i <= body.size(); ++i) {
    for (size_t j = i; j <= body.size(); ++j) {
      Outcome o = Parse(body, {i, j});
      ASSERT_TRUE(o.status.ok()) << i << "," << j << ": " << o.status.ToString();
      ASSERT_EQ(o.parts, want) << i << "," << j;
    }
  }
}

// Part bytes reach the handler during the Write that carries them, with no delimiter-sized lag,
// when the write ends exactly where the part's data does.
TEST(Multipart, DataEndingAtWriteSplitIsDeliveredImmediately) {
  const std::string head =
      "--AaB03x\r\nContent-Disposition: form-data; name=\"f\"; filename=\"f.txt\"\r\n\r\n";
  const std::string data = "hello world";
  Recorder r;
  MultipartParser p(kBoundary, r);
  ASSERT_TRUE(p.Write(head.data(), head.size()).ok());
  ASSERT_EQ(r.parts.size(), 1u);
  ASSERT_TRUE(p.Write(data.data(), data.size()).ok());
  EXPECT_EQ(r.parts[0].data, data);
  EXPECT_FALSE(r.parts[0].ended);
  // A CR might start the delimiter: it waits for the next write.
  ASSERT_TRUE(p.Write("\r", 1).ok());
  EXPECT_EQ(r.parts[0].data, data);
  ASSERT_TRUE(p.Write("X", 1).ok());
  EXPECT_EQ(r.parts[0].data, data + "\rX");
  const std::string rest = "\r\n--AaB03x--";
  ASSERT_TRUE(p.Write(rest.data(), rest.size()).ok());
  EXPECT_TRUE(r.parts[0].ended);
  EXPECT_TRUE(p.Finish().ok());
}

// A large part streams through in constant memory: after each write all but a delimiter-length
// tail has been delivered.
TEST(Multipart, LargePartStreams) {
  Recorder r;
  MultipartParser p(kBoundary, r);
  const std::string head = "--AaB03x\r\nContent-Disposition: form-data; name=\"big\"\r\n\r\n";
  ASSERT_TRUE(p.Write(head.data(), head.size()).ok());
  std::string chunk(65536, 'z');
  for (size_t i = 0; i < chunk.size(); i += 97) chunk[i] = '\r';
  chunk.back() = '\r';  // ends with a delimiter prefix
  size_t written = 0;
  for (int i = 0; i < 64; ++i) {
    ASSERT_TRUE(p.Write(chunk.data(), chunk.size()).ok());
    written += chunk.size();
    ASSERT_EQ(r.parts[0].data.size(), written - 1);
  }
  const std::string tail = "\r\n--AaB03x--";
  ASSERT_TRUE(p.Write(tail.data(), tail.size()).ok());
  ASSERT_TRUE(p.Finish().ok());
  EXPECT_EQ(r.parts[0].data.size(), written);
  EXPECT_TRUE(r.parts[0].ended);
}

TEST(Multipart, FirstDelimiterAtStartOrAfterPreambleAndPadding) {
  EXPECT_EQ(Parse(Field("a", "1") + "--AaB03x--").parts, std::vector<Seen>{Ended("a", "1")});
  EXPECT_EQ(Parse("\r\n" + Field("a", "1") + kClose).parts, std::vector<Seen>{Ended("a", "1")});
  // "x--AaB03x" is not at a line start: still preamble.
  EXPECT_EQ(Parse("x--AaB03x\r\n" + Field("a", "1") + kClose).parts,
            std::vector<Seen>{Ended("a", "1")});
  // RFC 2046 §5.1.1 transport padding after the boundary.
  Outcome o =
      Parse("--AaB03x \t \r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--AaB03x--");
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.parts, std::vector<Seen>{Ended("a", "1")});
  // No parts at all (a browser submitting an empty form).
  o = Parse(kClose);
  EXPECT_TRUE(o.status.ok());
  EXPECT_TRUE(o.parts.empty());
}

TEST(Multipart, EmptyPartAndEmptyFilename) {
  Outcome o = Parse(PartText("Content-Disposition: form-data; name=\"upload\"; filename=\"\"\r\n"
                             "Content-Type: application/octet-stream",
                             "") +
                    kClose);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(o.parts, std::vector<Seen>{Ended("upload", "", "", "application/octet-stream")});
}

MultipartPart HeadersOf(std::string_view disposition, Status* status) {
  struct Keep : MultipartHandler {
    Status OnPartBegin(const MultipartPart& p) override {
      part = p;
      return Status::Ok();
    }
    Status OnPartData(const char*, size_t) override { return Status::Ok(); }
    Status OnPartEnd() override { return Status::Ok(); }
    MultipartPart part;
  } keep;
  MultipartParser p(kBoundary, keep);
  std::string body = PartText(disposition, "") + kClose;
  *status = p.Write(body.data(), body.size());
  if (status->ok()) *status = p.Finish();
  return keep.part;
}

TEST(Multipart, FilenameStar) {
  Status st;
  MultipartPart p = HeadersOf(
      "Content-Disposition: form-data; name=\"f\"; filename=\"EUR rates.txt\"; "
      "filename*=UTF-8''%e2%82%AC%20rates.txt",
      &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.filename, "\xE2\x82\xAC rates.txt");
  // filename* wins whatever the order; charset is case-insensitive; a language tag is allowed.
  p = HeadersOf("Content-Disposition: form-data; filename*=utf-8'en'a%2Fb; name=f; filename=x",
                &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.filename, "a/b");  // not sanitized: the caller's job

  for (const char* bad :
       {"filename*=ISO-8859-1''%A3", "filename*=UTF-8''%E2%8", "filename*=UTF-8''%zz",
        "filename*=UTF-8%E2", "filename*=UTF-8''a\"b\"", "filename*=UTF-8''a;b"}) {
    HeadersOf(std::string("Content-Disposition: form-data; name=f; ") + bad, &st);
    EXPECT_EQ(st.code(), Code::kInvalidArgument) << bad;
  }
  HeadersOf("Content-Disposition: form-data; name=f; filename*=ISO-8859-1''%A3", &st);
  EXPECT_EQ(st.message(), "filename* charset is not UTF-8");
}

TEST(Multipart, QuotedStringsAndBrowserQuirks) {
  Status st;
  MultipartPart p = HeadersOf(
      R"(content-disposition: Form-Data; NAME="a \"quoted\" \\ name"; filename="x%22y.txt")", &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.name, R"(a "quoted" \ name)");
  EXPECT_EQ(p.filename, "x%22y.txt");  // browsers' escape of '"' stays literal
  // Browsers leave backslashes unescaped; one before a non-special character is literal.
  p = HeadersOf(R"(Content-Disposition: form-data; name="f"; filename="C:\dir\f.txt")", &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.filename, R"(C:\dir\f.txt)");
  // Raw UTF-8 is kept as sent; unquoted token values work; a trailing ';' is tolerated.
  p = HeadersOf("Content-Disposition: form-data; name=t\xC3\xA9st; filename=\"\xE6\x97\xA5.txt\";",
                &st);
  EXPECT_EQ(st.code(), Code::kInvalidArgument);  // raw UTF-8 is not a token
  p = HeadersOf("Content-Disposition: form-data ; name = tok ; filename=\"\xE6\x97\xA5.txt\";",
                &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.name, "tok");
  EXPECT_EQ(p.filename, "\xE6\x97\xA5.txt");
  // Folded header lines (Python's email package) are unfolded.
  p = HeadersOf(
      "Content-Disposition: form-data;\r\n name=\"folded\";\r\n\tfilename=\"f\"\r\n"
      "CONTENT-TYPE:  text/plain; charset=utf-8  \r\nX-Other: ignored",
      &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.name, "folded");
  EXPECT_EQ(p.filename, "f");
  EXPECT_EQ(p.content_type, "text/plain; charset=utf-8");
  EXPECT_EQ(p.filename.has_value(), true);
  p = HeadersOf("Content-Disposition: form-data; name=plain", &st);
  EXPECT_EQ(p.filename, std::nullopt);
  EXPECT_EQ(p.content_type, "");
}

TEST(Multipart, MalformedHeaders) {
  struct Case {
    std::string headers;
    const char* reason;
  };
  const Case cases[] = {
      {"Content-Type: text/plain", "part has no Content-Disposition header (RFC 7578 §4.2)"},
      {"Content-Disposition: attachment; name=a",
       "part Content-Disposition is not form-data (RFC 7578 §4.2)"},
      {"Content-Disposition: form-data; filename=a",
       "part Content-Disposition has no name parameter (RFC 7578 §4.2)"},
      {"Content-Disposition: form-data; name=a; name=b",
       "part Content-Disposition: duplicate parameter name"},
      {"Content-Disposition: form-data; name=\"a",
       "part Content-Disposition: unterminated quoted-string"},
      {"Content-Disposition: form-data; name=\"a\"x",
       "part Content-Disposition: expected ';' between parameters"},
      {"Content-Disposition: form-data; name=",
       "part Content-Disposition: parameter name is neither a token nor a quoted-string"},
      {"Content-Disposition: form-data; name",
       "part Content-Disposition: parameter name has no value"},
      {"Content-Disposition: form-data; name=\"a\0b\""s, "part header has a bare CR, LF or NUL"},
      {"Content-Disposition: form-data; name=\"a\x7f_\"",
       "part Content-Disposition: control character in quoted-string"},
      {"Content-Disposition: form-data; name=a\r\nContent-Disposition: form-data; name=b",
       "part has two Content-Disposition headers"},
      {"Content-Disposition: form-data; name=a\r\nContent-Type: a\r\nContent-type: b",
       "part has two Content-Type headers"},
      {"Content-Disposition: form-data; name=a\nX: y", "part header has a bare CR, LF or NUL"},
      {"Content-Disposition form-data", "part header line has no colon"},
      {"Content Disposition: form-data; name=a", "part header name is not a token"},
      {" Content-Disposition: form-data; name=a",
       "part header block starts with a continuation line"},
  };
  for (const Case& c : cases) {
    Outcome o = Parse(PartText(c.headers, "data") + kClose);
    EXPECT_EQ(o.status, Status::InvalidArgument(c.reason)) << c.headers;
    EXPECT_TRUE(o.parts.empty()) << c.headers;
  }
  // No header lines at all.
  Outcome o = Parse("--AaB03x\r\n\r\ndata\r\n--AaB03x--");
  EXPECT_EQ(o.status.message(), "part has no Content-Disposition header (RFC 7578 §4.2)");
}

TEST(Multipart, MalformedFraming) {
  const std::string a = Field("a", "1");
  struct Case {
    std::string body;
    const char* reason;
  };
  const Case cases[] = {
      {"", "multipart body has no boundary delimiter"},
      {"just a preamble\r\n--AaB03", "multipart body has no boundary delimiter"},
      {a, "multipart body ends without the close delimiter"},
      {a + "--AaB03x", "multipart body ends inside a boundary delimiter line"},
      {a + "--AaB03x-", "multipart body ends inside a boundary delimiter line"},
      {a + "--AaB03x  \r", "multipart body ends inside a boundary delimiter line"},
      {"--AaB03x\r\nContent-Disposition: form-data; name=a\r\n",
       "multipart body ends inside a part's headers"},
      {a + "--AaB03x-x", "multipart boundary delimiter followed by a single '-'"},
      {a + "--AaB03xyz\r\n", "multipart boundary delimiter line does not end with CRLF"},
      {a + "--AaB03x \t-", "multipart boundary delimiter line does not end with CRLF"},
      {"--AaB03x\nContent-Disposition: form-data; name=a\n\n1\n--AaB03x--\n",
       "multipart boundary delimiter line does not end with CRLF"},
  };
  for (const Case& c : cases) {
    Outcome whole = Parse(c.body);
    EXPECT_EQ(whole.status, Status::InvalidArgument(c.reason)) << c.body;
    Outcome bytewise = ParseBytewise(c.body);
    EXPECT_EQ(bytewise.status, whole.status) << c.body;
    EXPECT_EQ(bytewise.parts, whole.parts) << c.body;
  }
  // The part cut off by the end of the body got its bytes but no OnPartEnd.
  Outcome o = Parse(a + "--AaB03x\r\n" + "Content-Disposition: form-data; name=b\r\n\r\npartial");
  EXPECT_EQ(o.status.message(), "multipart body ends without the close delimiter");
  Seen open = Ended("b", "partial");
  open.ended = false;
  EXPECT_EQ(o.parts, (std::vector<Seen>{Ended("a", "1"), open}));
}

TEST(Multipart, HeaderTooLarge) {
  MultipartLimits limits;
  limits.max_header_bytes = 64;
  // The block is the line, its CRLF and the empty line: exactly 64 bytes passes.
  std::string line = "Content-Disposition: form-data; name=a\r\nX: ";
  line += std::string(64 - 4 - line.size(), 'y');
  Outcome o = Parse(PartText(line, "1") + kClose, {}, limits);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  ASSERT_EQ(Parse(PartText(line, "1") + kClose, {20, 30}, limits).status, Status::Ok());
  o = Parse(PartText(line + "y", "1") + kClose, {}, limits);
  EXPECT_EQ(o.status, Status::InvalidArgument("part header block exceeds 64 bytes"));
  EXPECT_EQ(ParseBytewise(PartText(line + "y", "1") + kClose, limits).status, o.status);
  // Endless headers fail during Write, before the terminator or Finish.
  Recorder r;
  MultipartParser p(kBoundary, r, limits);
  std::string start = "--AaB03x\r\n";
  ASSERT_TRUE(p.Write(start.data(), start.size()).ok());
  Status st;
  size_t fed = 0;
  while (st.ok() && fed < 1000) {
    st = p.Write("h", 1);
    ++fed;
  }
  EXPECT_EQ(st, Status::InvalidArgument("part header block exceeds 64 bytes"));
  EXPECT_EQ(fed, 64u);
}

TEST(Multipart, TooManyParts) {
  MultipartLimits limits;
  limits.max_parts = 2;
  std::string two = Field("a", "1") + Field("b", "2");
  EXPECT_TRUE(Parse(two + kClose, {}, limits).status.ok());
  Outcome o = Parse(two + Field("c", "3") + kClose, {}, limits);
  EXPECT_EQ(o.status, Status::InvalidArgument("multipart body has more than 2 parts"));
  EXPECT_EQ(o.parts, (std::vector<Seen>{Ended("a", "1"), Ended("b", "2")}));
}

TEST(Multipart, HandlerErrorPropagatesAndSticks) {
  const std::string body = Field("a", "1") + Field("b", "2") + kClose;
  // Calls: Begin a, Data a, End a, Begin b, Data b, End b.
  for (int fail_at = 0; fail_at < 6; ++fail_at) {
    Recorder r;
    r.fail_at = fail_at;
    MultipartParser p(kBoundary, r);
    EXPECT_EQ(p.Write(body.data(), body.size()), Status::QuotaExceeded("disk full")) << fail_at;
    EXPECT_EQ(r.calls, fail_at + 1);  // nothing after the failing call
    EXPECT_EQ(p.Write(body.data(), body.size()), Status::QuotaExceeded("disk full"));
    EXPECT_EQ(p.Finish(), Status::QuotaExceeded("disk full"));
    EXPECT_EQ(r.calls, fail_at + 1);
  }
}

TEST(Multipart, InvalidBoundaryAndWriteAfterFinish) {
  Recorder r;
  MultipartParser bad("", r);
  EXPECT_EQ(bad.Write("x", 1), Status::InvalidArgument("multipart boundary is empty"));
  EXPECT_EQ(bad.Finish(), Status::InvalidArgument("multipart boundary is empty"));

  MultipartParser p(kBoundary, r);
  ASSERT_TRUE(p.Write(kClose.data(), kClose.size()).ok());
  ASSERT_TRUE(p.Write("epilogue", 8).ok());
  ASSERT_TRUE(p.Finish().ok());
  EXPECT_EQ(p.Write("x", 1).code(), Code::kInternal);
}

TEST(Multipart, BoundaryFromContentType) {
  auto b = MultipartParser::BoundaryFromContentType(
      "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*b, "----WebKitFormBoundary7MA4YWxkTrZu0gW");
  b = MultipartParser::BoundaryFromContentType(
      " Multipart/Form-Data ;charset=utf-8; BOUNDARY=\"a b:c?\" ");
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(*b, "a b:c?");
  b = MultipartParser::BoundaryFromContentType("multipart/form-data; boundary=" +
                                               std::string(70, 'x'));
  EXPECT_TRUE(b.ok());

  struct Case {
    std::string value;
    const char* reason;
  };
  const Case cases[] = {
      {"text/plain", "Content-Type is not multipart/form-data"},
      {"multipart/mixed; boundary=abc", "Content-Type is not multipart/form-data"},
      {"multipart/form-data-x; boundary=abc", "Content-Type is not multipart/form-data"},
      {"", "Content-Type is not multipart/form-data"},
      {"multipart/form-data", "multipart/form-data has no boundary parameter"},
      {"multipart/form-data; charset=utf-8", "multipart/form-data has no boundary parameter"},
      {"multipart/form-data; boundary=\"\"", "multipart boundary is empty"},
      {"multipart/form-data; boundary=" + std::string(71, 'x'),
       "multipart boundary is longer than 70 characters"},
      {"multipart/form-data; boundary=\"a@b\"",
       "multipart boundary has a character outside RFC 2046 bchars"},
      {"multipart/form-data; boundary=\"ab \"", "multipart boundary ends with a space"},
      {"multipart/form-data; boundary=a; boundary=b", "Content-Type: duplicate parameter boundary"},
      {"multipart/form-data; boundary=\"abc", "Content-Type: unterminated quoted-string"},
      {"multipart/form-data; boundary=a b", "Content-Type: expected ';' between parameters"},
      {"multipart/form-data; boundary=",
       "Content-Type: parameter boundary is neither a token nor a quoted-string"},
  };
  for (const Case& c : cases) {
    auto r = MultipartParser::BoundaryFromContentType(c.value);
    EXPECT_EQ(r.status(), Status::InvalidArgument(c.reason)) << c.value;
  }
}

}  // namespace
}  // namespace nubo::http

namespace nubo::http {
namespace {

// multipart/related (RFC 2387), as Nextcloud clients send a bulk upload: no Content-Disposition,
// the metadata in other header fields, which reach the handler in order.
class FieldRecorder : public MultipartHandler {
 public:
  Status OnPartBegin(const MultipartPart& p) override {
    fields.push_back(p.fields);
    data.emplace_back();
    return Status::Ok();
  }
  Status OnPartData(const char* d, size_t len) override {
    data.back().append(d, len);
    return Status::Ok();
  }
  Status OnPartEnd() override { return Status::Ok(); }
  std::vector<std::vector<std::pair<std::string, std::string>>> fields;
  std::vector<std::string> data;
};

TEST(MultipartRelated, PartsWithoutDispositionCarryTheirFields) {
  auto boundary = MultipartParser::BoundaryFromContentType(
      "multipart/related; boundary=\"boundary_.oOo._x1\"", "multipart/related");
  ASSERT_TRUE(boundary.ok());
  EXPECT_EQ(*boundary, "boundary_.oOo._x1");
  // form-data is not related, and the reverse.
  EXPECT_FALSE(MultipartParser::BoundaryFromContentType("multipart/related; boundary=a").ok());
  EXPECT_FALSE(MultipartParser::BoundaryFromContentType("multipart/form-data; boundary=a",
                                                        "multipart/related")
                   .ok());
  const std::string body =
      "\r\n--boundary_.oOo._x1\r\n"
      "Content-Length: 3\r\nX-File-Path: /a b.txt\r\nX-File-Mtime:  17 \r\n\r\n"
      "abc\r\n--boundary_.oOo._x1\r\nX-File-Path: /c\r\n\r\n\r\n--boundary_.oOo._x1--\r\n";
  FieldRecorder r;
  MultipartLimits limits;
  limits.form_data = false;
  MultipartParser p(*boundary, r, limits);
  ASSERT_TRUE(p.Write(body.data(), body.size()).ok());
  ASSERT_TRUE(p.Finish().ok());
  ASSERT_EQ(r.fields.size(), 2u);
  using F = std::pair<std::string, std::string>;
  EXPECT_EQ(r.fields[0],
            (std::vector<F>{
                {"Content-Length", "3"}, {"X-File-Path", "/a b.txt"}, {"X-File-Mtime", "17"}}));
  EXPECT_EQ(r.data[0], "abc");
  EXPECT_EQ(r.fields[1], (std::vector<F>{{"X-File-Path", "/c"}}));
  EXPECT_EQ(r.data[1], "");
  // The same body as form-data is refused: its parts name no field.
  FieldRecorder f;
  MultipartParser strict(*boundary, f);
  EXPECT_EQ(strict.Write(body.data(), body.size()).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace nubo::http
