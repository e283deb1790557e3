#include "nc/ocs.h"

#include "dav/xml_writer.h"
#include "util/strings.h"

namespace nubo::nc {

namespace {

int OcsCode(OcsVersion v, int http_status) {
  if (v == OcsVersion::kV2) return http_status;
  switch (http_status) {
    case 200:
      return 100;
    case 401:
      return 997;
    case 404:
      return 998;
    case 400:
      return 999;
    case 403:
      return 997;
    default:
      return 996;
  }
}

http::Response Envelope(const http::Request& req, int http_status, std::string_view message,
                        const OcsValue& data) {
  const OcsVersion v = VersionOf(req);
  const int code = OcsCode(v, http_status);
  const bool ok = http_status == 200;
  // v1 always answers 200 (except 401, which clients need to see).
  const int status = v == OcsVersion::kV1 && http_status != 401 ? 200 : http_status;
  OcsValue meta = OcsValue::Object();
  meta.Set("status", ok ? "ok" : "failure")
      .Set("statuscode", code)
      .Set("message", std::string(message))
      .Set("totalitems", "")
      .Set("itemsperpage", "");
  std::string out;
  if (WantsJson(req)) {
    out = "{\"ocs\":{\"meta\":";
    meta.AppendJson(out);
    out += ",\"data\":";
    data.AppendJson(out);
    out += "}}";
    http::Response r = http::Response::Json(status, std::move(out));
    r.headers.Set("Cache-Control", "no-store");
    return r;
  }
  out = "<?xml version=\"1.0\"?>\n<ocs>";
  meta.AppendXml(out, "meta");
  data.AppendXml(out, "data");
  out += "</ocs>\n";
  http::Response r = http::Response::Text(status, std::move(out), "application/xml; charset=utf-8");
  r.headers.Set("Cache-Control", "no-store");
  return r;
}

}  // namespace

void OcsValue::AppendJson(std::string& out) const {
  switch (kind_) {
    case Kind::kNull:
      out += "null";
      return;
    case Kind::kString:
      out += '"';
      AppendJsonEscaped(out, text_);
      out += '"';
      return;
    case Kind::kInt:
      out += std::to_string(num_);
      return;
    case Kind::kBool:
      out += num_ ? "true" : "false";
      return;
    case Kind::kObject: {
      // An empty object is [] in Nextcloud's answers (PHP's empty array);
      // clients accept both, so keep JSON's own {}.
      out += '{';
      bool first = true;
      for (const auto& [k, v] : members_) {
        if (!first) out += ',';
        first = false;
        out += '"';
        AppendJsonEscaped(out, k);
        out += "\":";
        v.AppendJson(out);
      }
      out += '}';
      return;
    }
    case Kind::kArray: {
      out += '[';
      bool first = true;
      for (const auto& [k, v] : members_) {
        if (!first) out += ',';
        first = false;
        v.AppendJson(out);
      }
      out += ']';
      return;
    }
  }
}

void OcsValue::AppendXml(std::string& out, std::string_view name) const {
  out += '<';
  out += name;
  if (kind_ == Kind::kNull ||
      ((kind_ == Kind::kObject || kind_ == Kind::kArray) && members_.empty())) {
    out += "/>";
    return;
  }
  out += '>';
  switch (kind_) {
    case Kind::kNull:
      break;
    case Kind::kString:
      dav::AppendXmlEscaped(out, text_);
      break;
    case Kind::kInt:
      out += std::to_string(num_);
      break;
    case Kind::kBool:
      out += num_ ? "1" : "";
      break;
    case Kind::kObject:
      for (const auto& [k, v] : members_) v.AppendXml(out, k);
      break;
    case Kind::kArray:
      for (const auto& [k, v] : members_) v.AppendXml(out, "element");
      break;
  }
  out += "</";
  out += name;
  out += '>';
}

std::string ServerUrl(const http::Request& req) {
  std::string scheme = "http";
  const std::string peer = req.remote.substr(0, req.remote.rfind(':'));
  if (auto p = req.headers.Get("X-Forwarded-Proto");
      p && IEquals(Trim(*p), "https") && !req.client_ip.empty() && req.client_ip != peer) {
    scheme = "https";
  }
  return scheme + "://" + std::string(req.headers.Get("Host").value_or("localhost"));
}

OcsVersion VersionOf(const http::Request& req) {
  return req.path.rfind("/ocs/v2.php", 0) == 0 ? OcsVersion::kV2 : OcsVersion::kV1;
}

bool WantsJson(const http::Request& req) {
  if (auto f = req.Query("format")) return *f == "json";
  if (auto a = req.headers.Get("Accept")) return a->find("application/json") != std::string::npos;
  return false;
}

http::Response OcsOk(const http::Request& req, OcsValue data) {
  return Envelope(req, 200, "OK", data);
}

http::Response OcsError(const http::Request& req, int http_status, std::string_view message) {
  return Envelope(req, http_status, message, OcsValue::Array());
}

}  // namespace nubo::nc
