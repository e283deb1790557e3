#include "server/test_routes.h"

#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "api/json.h"
#include "blob/fault_plan.h"
#include "http/body.h"
#include "http/router.h"
#include "http/status_map.h"
#include "util/mix.h"
#include "util/strings.h"
#include "util/time.h"

namespace nubo::server {

namespace {

class PatternSource final : public http::BodySource {
 public:
  PatternSource(uint64_t seed, uint64_t size, bool announce)
      : seed_(seed), size_(size), announce_(announce) {}
  std::optional<uint64_t> Size() const override {
    return announce_ ? std::optional<uint64_t>(size_) : std::nullopt;
  }
  Result<size_t> Read(char* buf, size_t cap) override {
    size_t n = static_cast<size_t>(std::min<uint64_t>(cap, size_ - pos_));
    FillPattern(seed_, pos_, buf, n);
    pos_ += n;
    return n;
  }

 private:
  uint64_t seed_, size_, pos_ = 0;
  bool announce_;
};

class CountingSink final : public http::BodySink {
 public:
  explicit CountingSink(std::optional<uint64_t> verify_seed) : seed_(verify_seed) {}
  Status Write(const char* data, size_t len) override {
    if (seed_ && mismatch_ < 0) {
      expect_.resize(len);
      FillPattern(*seed_, bytes_, expect_.data(), len);
      if (std::memcmp(expect_.data(), data, len) != 0) {
        for (size_t i = 0; i < len; ++i) {
          if (expect_[i] != data[i]) {
            mismatch_ = static_cast<int64_t>(bytes_ + i);
            break;
          }
        }
      }
    }
    bytes_ += len;
    return Status::Ok();
  }
  Status Finish() override { return Status::Ok(); }
  uint64_t bytes() const { return bytes_; }
  int64_t mismatch() const { return mismatch_; }

 private:
  std::optional<uint64_t> seed_;
  uint64_t bytes_ = 0;
  int64_t mismatch_ = -1;
  std::string expect_;
};

}  // namespace

void FillPattern(uint64_t seed, uint64_t offset, char* out, size_t len) {
  while (len > 0) {
    uint64_t word = SplitMix64(seed + offset / 8);
    size_t in_word = static_cast<size_t>(offset % 8);
    size_t n = std::min<size_t>(len, 8 - in_word);
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(word >> (8 * i));
    std::memcpy(out, bytes + in_word, n);
    out += n;
    offset += n;
    len -= n;
  }
}

namespace {

std::string PlanJson(const blob::FaultPlan* p) {
  if (!p) return "null";
  return fmt::format("{{\"fired\":{},\"points\":{}}}", p->fired(), p->points());
}

}  // namespace

void RegisterTestRoutes(http::Router& router, TestHooks hooks) {
  const http::Router* table = &router;
  router.Add("GET", "/_test/routes", [table](http::Request&) {
    std::string j = "{\"routes\":[";
    bool first = true;
    table->ForEach([&](const http::Endpoint& e) {
      const char* access = e.options.access == http::Access::kPublic    ? "public"
                           : e.options.access == http::Access::kAdmin   ? "admin"
                           : e.options.access == http::Access::kAccount ? "account"
                           : e.options.access == http::Access::kLink    ? "link"
                                                                        : "user";
      j += fmt::format("{}{{\"method\":{},\"pattern\":{},\"access\":\"{}\"}}", first ? "" : ",",
                       JsonQuote(e.method), JsonQuote(e.pattern), access);
      first = false;
    });
    return http::Response::Json(200, j + "]}\n");
  });
  router.Add(
      "POST", "/_test/faults",
      [hooks](http::Request& req) {
        auto f = api::ParseObject(req.body, {{"target", api::JsonType::kString},
                                             {"after", api::JsonType::kInt},
                                             {"fault", api::JsonType::kString},
                                             {"sticky", api::JsonType::kBool}});
        if (!f.ok()) return http::ErrorResponse(f.status());
        const std::string target = f->Get("target").value_or("");
        blob::FaultPlan* plan = target == "chunks" ? hooks.chunk_faults
                                : target == "meta" ? hooks.meta_faults
                                                   : nullptr;
        if (!plan)
          return http::ErrorResponse(Status::InvalidArgument("target must be chunks or meta"));
        const std::string fault = f->Get("fault").value_or("eio");
        blob::FaultPlan::Fault kind = fault == "enospc"  ? blob::FaultPlan::Fault::kEnospc
                                      : fault == "short" ? blob::FaultPlan::Fault::kShortWrite
                                                         : blob::FaultPlan::Fault::kEio;
        plan->Arm(ParseUint64(f->Get("after").value_or("0")).value_or(0), kind,
                  f->Get("sticky").value_or("false") == "true");
        return http::Response::Empty(204);
      },
      {.body = http::BodyPolicy::kBuffered});
  router.Add("DELETE", "/_test/faults", [hooks](http::Request&) {
    if (hooks.chunk_faults) hooks.chunk_faults->Disarm();
    if (hooks.meta_faults) hooks.meta_faults->Disarm();
    return http::Response::Empty(204);
  });
  router.Add("GET", "/_test/faults", [hooks](http::Request&) {
    return http::Response::Json(200, "{\"chunks\":" + PlanJson(hooks.chunk_faults) +
                                         ",\"meta\":" + PlanJson(hooks.meta_faults) + "}\n");
  });
  router.AddStream(
      "PUT", "/_test/sink",
      [](http::Request& req) -> Result<std::unique_ptr<http::BodySink>> {
        std::optional<uint64_t> seed;
        if (auto v = req.Query("verify")) {
          seed = ParseUint64(*v);
          if (!seed) return Status::InvalidArgument("verify must be an integer seed");
        }
        return std::unique_ptr<http::BodySink>(new CountingSink(seed));
      },
      [](http::Request& req) {
        auto* s = static_cast<CountingSink*>(req.sink);
        uint64_t bytes = s ? s->bytes() : 0;
        int64_t mismatch = s ? s->mismatch() : -1;
        return http::Response::Json(
            200, fmt::format("{{\"bytes\":{},\"mismatch_at\":{}}}\n", bytes, mismatch));
      },
      {.blocking = true});
  router.Add(
      "GET", "/_test/source",
      [](http::Request& req) {
        auto bytes = ParseByteSize(req.Query("bytes").value_or("0"));
        auto seed = ParseUint64(req.Query("seed").value_or("1"));
        if (!bytes || !seed) {
          return http::ErrorResponse(Status::InvalidArgument("bytes and seed must be integers"));
        }
        http::Response r;
        r.headers.Set("Content-Type", "application/octet-stream");
        r.source = std::make_unique<PatternSource>(*seed, *bytes, !req.Query("chunked"));
        return r;
      },
      {.blocking = true});
  router.Add("POST", "/_test/echo",
             [](http::Request& req) {
               return http::Response::Json(200, fmt::format("{{\"bytes\":{}}}\n", req.body.size()));
             },
             {.body = http::BodyPolicy::kBuffered});
  router.Add(
      "PUT", "/_test/clock",
      [](http::Request& req) {
        // ?offset_ms=N (may be negative): the wall clock the server uses.
        const std::string v = req.Query("offset_ms").value_or("0");
        const bool neg = !v.empty() && v[0] == '-';
        auto n = ParseUint64(neg ? std::string_view(v).substr(1) : std::string_view(v));
        if (!n || *n > (1ull << 50)) {
          return http::ErrorResponse(Status::InvalidArgument("offset_ms must be an integer"));
        }
        SetClockOffsetForTests(neg ? -static_cast<int64_t>(*n) : static_cast<int64_t>(*n));
        return http::Response::Json(200, fmt::format("{{\"now\":{}}}\n", UnixMillis()));
      },
      {.blocking = true});
  router.Add("GET", "/_test/sleep",
             [](http::Request& req) {
               auto ms = ParseUint64(req.Query("ms").value_or("0"));
               if (!ms || *ms > 600'000) {
                 return http::ErrorResponse(Status::InvalidArgument("ms must be 0..600000"));
               }
               std::this_thread::sleep_for(std::chrono::milliseconds(*ms));
               return http::Response::Json(200, fmt::format("{{\"slept_ms\":{}}}\n", *ms));
             },
             {.blocking = true});
}

}  // namespace nubo::server
