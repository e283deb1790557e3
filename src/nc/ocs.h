// OCS responses (the envelope Nextcloud's /ocs/v1.php and /ocs/v2.php
// endpoints answer with), in JSON or XML as the client asks. A small value
// tree, so each endpoint states its data once and both encodings agree.
// Thread-safe (pure).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "http/request.h"
#include "http/response.h"

namespace nubo::nc {

class OcsValue {
 public:
  enum class Kind { kNull, kString, kInt, kBool, kObject, kArray };
  OcsValue() = default;
  OcsValue(std::string s) : kind_(Kind::kString), text_(std::move(s)) {}
  OcsValue(const char* s) : kind_(Kind::kString), text_(s) {}
  OcsValue(int64_t n) : kind_(Kind::kInt), num_(n) {}
  OcsValue(int n) : kind_(Kind::kInt), num_(n) {}
  OcsValue(bool b) : kind_(Kind::kBool), num_(b ? 1 : 0) {}
  static OcsValue Object() {
    OcsValue v;
    v.kind_ = Kind::kObject;
    return v;
  }
  static OcsValue Array() {
    OcsValue v;
    v.kind_ = Kind::kArray;
    return v;
  }
  // Object: adds a member (in order). Returns *this.
  OcsValue& Set(std::string key, OcsValue v) {
    members_.emplace_back(std::move(key), std::move(v));
    return *this;
  }
  // Array: appends an element.
  OcsValue& Push(OcsValue v) {
    members_.emplace_back(std::string(), std::move(v));
    return *this;
  }

  void AppendJson(std::string& out) const;
  // XML: objects become child elements, array items <element>.
  void AppendXml(std::string& out, std::string_view name) const;

 private:
  Kind kind_ = Kind::kNull;
  std::string text_;
  int64_t num_ = 0;
  std::vector<std::pair<std::string, OcsValue>> members_;
};

// The API version the path names: /ocs/v1.php answers status code 100 in
// a 200 response, /ocs/v2.php the HTTP status itself (200).
enum class OcsVersion { kV1, kV2 };
OcsVersion VersionOf(const http::Request& req);

// JSON when `format=json` or the Accept header asks for JSON, else XML.
bool WantsJson(const http::Request& req);

// The server's own URL as the client reached it ("http://host:port"), for
// answers that carry absolute URLs. X-Forwarded-Proto counts only when a
// trusted proxy forwarded the request (the transport then replaced
// client_ip).
std::string ServerUrl(const http::Request& req);

// The envelope around `data` (ok).
http::Response OcsOk(const http::Request& req, OcsValue data);
// An OCS failure: v1 answers HTTP 200 with the OCS status code, v2 the
// HTTP status; `http_status` is one of 400, 401, 403, 404, 500.
http::Response OcsError(const http::Request& req, int http_status, std::string_view message);

}  // namespace nubo::nc
