#include "http/target.h"

#include <boost/url/parse.hpp>
#include <boost/url/parse_query.hpp>
#include <boost/url/url_view.hpp>

#include "http/request.h"

namespace nubo::http {

namespace urls = boost::urls;

Result<Target> ParseTarget(std::string_view raw) {
  Target t;
  if (raw == "*") return t;
  urls::url_view u;
  if (!raw.empty() && raw.front() == '/') {
    auto r = urls::parse_origin_form(raw);
    if (!r) return Status::InvalidArgument("malformed request target");
    u = *r;
  } else {
    auto r = urls::parse_absolute_uri(raw);
    if (!r) return Status::InvalidArgument("malformed request target");
    u = *r;
  }
  std::string_view enc_path = u.encoded_path();
  t.trailing_slash = enc_path.size() > 1 && enc_path.back() == '/';
  for (auto seg : u.encoded_segments()) {
    if (seg.empty()) continue;
    std::string s = seg.decode();
    if (s == "." || s == "..") return Status::InvalidArgument("path contains a dot segment");
    if (s.find('/') != std::string::npos || s.find('\0') != std::string::npos) {
      return Status::InvalidArgument("path segment contains an encoded '/' or NUL");
    }
    t.segments.push_back(std::move(s));
  }
  if (u.has_query()) t.query = std::string(u.encoded_query());
  return t;
}

std::optional<std::string> QueryParam(std::string_view raw_query, std::string_view key) {
  // Boost.URL 1.81's parse_query builds its result with strlen() over the
  // view's data pointer, reading past a buffer that is not NUL-terminated
  // (found by fuzz/fuzz_target.cc; corpus files "empty-query" and
  // "star-unterminated"). A NUL-terminated copy keeps it inside bounds.
  if (raw_query.empty()) return std::nullopt;
  const std::string terminated(raw_query);
  auto r = urls::parse_query(terminated);
  if (!r) return std::nullopt;
  for (auto p : *r) {
    // params_encoded_view yields encoded pieces; decode with '+' as space.
    urls::encoding_opts opts;
    opts.space_as_plus = true;
    if (p.key.decode(opts) == key) {
      if (!p.has_value) return std::string();
      return p.value.decode(opts);
    }
  }
  return std::nullopt;
}

std::string ClientIp(std::string_view peer_ip, std::optional<std::string_view> forwarded_for,
                     const std::vector<std::string>& trusted_proxies) {
  auto trusted = [&](std::string_view ip) {
    for (const auto& t : trusted_proxies) {
      if (t == ip) return true;
    }
    return false;
  };
  if (!trusted(peer_ip) || !forwarded_for) return std::string(peer_ip);
  std::string_view list = *forwarded_for;
  while (!list.empty()) {
    size_t comma = list.rfind(',');
    std::string_view hop = comma == std::string_view::npos ? list : list.substr(comma + 1);
    while (!hop.empty() && (hop.front() == ' ' || hop.front() == '\t')) hop.remove_prefix(1);
    while (!hop.empty() && (hop.back() == ' ' || hop.back() == '\t')) hop.remove_suffix(1);
    if (!hop.empty() && !trusted(hop)) return std::string(hop);
    if (comma == std::string_view::npos) break;
    list = list.substr(0, comma);
  }
  return std::string(peer_ip);
}

std::string JoinPath(const std::vector<std::string>& segments) {
  if (segments.empty()) return "/";
  std::string out;
  for (const auto& s : segments) {
    out += '/';
    out += s;
  }
  return out;
}

std::string_view Request::Param(std::string_view name) const {
  for (const auto& [k, v] : params) {
    if (k == name) return v;
  }
  return {};
}

std::optional<std::string> Request::Query(std::string_view key) const {
  return QueryParam(query, key);
}

}  // namespace nubo::http
