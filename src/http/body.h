// Streaming body interfaces between the transport and domain code.
//
// The transport (server/transport.cc) owns sockets; domain code only sees
// these synchronous pull/push interfaces, so no request or response body is
// ever held whole in memory. The transport decides on which thread a call
// runs (an I/O thread or the blocking pool, per the route's options), and
// calls one object from one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/status.h"

namespace nubo::http {

// A run of response bytes that lies in an open file, so the transport can
// hand it to the kernel (sendfile(2)) instead of copying it through a
// buffer. The descriptor belongs to the source and stays open until the
// source's next call.
struct FileSpan {
  int fd = -1;
  uint64_t offset = 0;
  size_t length = 0;
};

// Produces a response body, piece by piece.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Exact total size when known up front: the transport then sends
  // Content-Length; otherwise the body goes out chunked (RFC 9112 §7.1).
  virtual std::optional<uint64_t> Size() const = 0;
  // Copies up to `cap` (> 0) bytes into `buf`; returns how many, 0 at the end.
  // An error after the headers went out aborts the connection, so the client
  // sees a truncated body, never a silently short one.
  virtual Result<size_t> Read(char* buf, size_t cap) = 0;
  // The zero-copy path, asked only when Size() is known: appends the next
  // bytes (together at most `cap`, in at most `max` spans) to `out` as
  // spans of files and advances past them. Appends nothing when the next
  // bytes are not in a file or the body has ended: Read them (Read then
  // returns 0 at the end). A source may mix both (multipart headers between
  // file ranges). The default never offers a span.
  virtual Status NextSpans(size_t cap, size_t max, std::vector<FileSpan>& out) {
    (void)cap;
    (void)max;
    (void)out;
    return Status::Ok();
  }
  // True once Read would return 0. Asked between reads, on the thread that
  // writes the body: the transport then ends the body with the last piece
  // instead of asking for an empty one (a hop to the blocking pool). A body
  // of known Size() ends when that many bytes went out; false is always a
  // correct answer.
  virtual bool Exhausted() const { return false; }
  // Roughly how long a body of unknown Size() will be, when the source can
  // tell before producing it (a listing of a folder whose member count it
  // knows): the transport's first block is made that size (up to its
  // largest), so a big body does not start in a small block. Any answer
  // is correct; none leaves the transport's default.
  virtual std::optional<uint64_t> SizeHint() const { return std::nullopt; }
};

// Consumes a request body, piece by piece, in order.
class BodySink {
 public:
  virtual ~BodySink() = default;
  // A non-OK status stops reading; it becomes the response.
  virtual Status Write(const char* data, size_t len) = 0;
  // Every byte arrived (Content-Length reached or last chunk seen).
  virtual Status Finish() = 0;
  // The body did not arrive whole (client gone, timeout, over limit): drop
  // partial state. Finish is never called after Abort.
  virtual void Abort() {}
};

// A source over an in-memory string; for small generated bodies.
class StringSource final : public BodySource {
 public:
  explicit StringSource(std::string s) : s_(std::move(s)) {}
  std::optional<uint64_t> Size() const override { return s_.size(); }
  Result<size_t> Read(char* buf, size_t cap) override;

 private:
  std::string s_;
  size_t pos_ = 0;
};

}  // namespace nubo::http
