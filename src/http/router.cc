#include "http/router.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <stdexcept>

#include "http/status_map.h"
#include "util/strings.h"

namespace nubo::http {

// A trie over path segments. Each node has literal children, at most one
// single-segment capture and at most one rest capture.
struct Router::Node {
  std::map<std::string, std::unique_ptr<Node>, std::less<>> literal;
  std::unique_ptr<Node> capture;
  std::string capture_name;
  std::unique_ptr<Node> rest;
  std::string rest_name;
  std::string pattern;
  std::vector<Endpoint> endpoints;  // by method
};

Router::Router() : root_(std::make_unique<Node>()) {}
Router::~Router() = default;

bool Router::KnownMethod(std::string_view m) {
  static constexpr std::string_view kKnown[] = {
      "GET",   "HEAD",      "POST",       "PUT",    "DELETE", "OPTIONS", "PATCH",
      "TRACE", "CONNECT",   "PROPFIND",   "PROPPATCH", "MKCOL", "COPY", "MOVE",
      "LOCK",  "UNLOCK",    "REPORT",     "MKCALENDAR", "SEARCH", "ACL", "BIND"};
  return std::find(std::begin(kKnown), std::end(kKnown), m) != std::end(kKnown);
}

Router::Node* Router::NodeFor(std::string_view pattern) {
  Node* n = root_.get();
  auto parts = Split(pattern, '/');
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string_view p = parts[i];
    if (p.empty()) continue;
    if (p.size() > 2 && p.front() == '{' && p.back() == '}') {
      std::string_view name = p.substr(1, p.size() - 2);
      if (name.ends_with("...")) {
        if (i + 1 != parts.size()) throw std::logic_error("rest capture must be last");
        name.remove_suffix(3);
        if (!n->rest) n->rest = std::make_unique<Node>();
        n->rest_name = std::string(name);
        n = n->rest.get();
      } else {
        if (!n->capture) n->capture = std::make_unique<Node>();
        else if (n->capture_name != name) throw std::logic_error("conflicting capture names");
        n->capture_name = std::string(name);
        n = n->capture.get();
      }
    } else {
      auto& child = n->literal[std::string(p)];
      if (!child) child = std::make_unique<Node>();
      n = child.get();
    }
  }
  n->pattern = std::string(pattern);
  return n;
}

void Router::Insert(Endpoint ep) {
  Node* n = NodeFor(ep.pattern);
  for (const auto& e : n->endpoints) {
    if (e.method == ep.method) throw std::logic_error("duplicate route " + ep.method + " " + ep.pattern);
  }
  n->endpoints.push_back(std::move(ep));
}

void Router::Add(std::string_view method, std::string_view pattern, Handler handler,
                 RouteOptions options) {
  assert(options.body != BodyPolicy::kStream && "use AddStream");
  Insert(Endpoint{std::string(method), std::string(pattern), std::move(handler), nullptr, options});
}

void Router::AddStream(std::string_view method, std::string_view pattern, SinkOpener open,
                       Handler handler, RouteOptions options) {
  options.body = BodyPolicy::kStream;
  Insert(Endpoint{std::string(method), std::string(pattern), std::move(handler), std::move(open),
                  options});
}

namespace {

using Params = std::vector<std::pair<std::string, std::string>>;

}  // namespace

// Depth-first match preferring literal, then capture, then rest.
static const Router::Node* Match(const Router::Node* n, const std::vector<std::string>& segs,
                                 size_t i, Params& params) {
  if (i == segs.size()) {
    if (!n->endpoints.empty()) return n;
    // "{rest...}" also matches zero segments.
    if (n->rest && !n->rest->endpoints.empty()) {
      params.emplace_back(n->rest_name, "");
      return n->rest.get();
    }
    return nullptr;
  }
  if (auto it = n->literal.find(segs[i]); it != n->literal.end()) {
    if (auto* m = Match(it->second.get(), segs, i + 1, params)) return m;
  }
  if (n->capture) {
    params.emplace_back(n->capture_name, segs[i]);
    if (auto* m = Match(n->capture.get(), segs, i + 1, params)) return m;
    params.pop_back();
  }
  if (n->rest && !n->rest->endpoints.empty()) {
    std::string joined;
    for (size_t k = i; k < segs.size(); ++k) {
      if (k > i) joined += '/';
      joined += segs[k];
    }
    params.emplace_back(n->rest_name, std::move(joined));
    return n->rest.get();
  }
  return nullptr;
}

static void Walk(const Router::Node* n, const std::function<void(const Endpoint&)>& fn) {
  for (const auto& e : n->endpoints) fn(e);
  for (const auto& [k, child] : n->literal) Walk(child.get(), fn);
  if (n->capture) Walk(n->capture.get(), fn);
  if (n->rest) Walk(n->rest.get(), fn);
}

void Router::ForEach(const std::function<void(const Endpoint&)>& fn) const { Walk(root_.get(), fn); }

RouteMatch Router::Resolve(std::string_view method, const std::vector<std::string>& segments) const {
  RouteMatch out;
  const Node* n = Match(root_.get(), segments, 0, out.params);
  if (!n) {
    out.params.clear();
    out.response = ErrorResponse(404, Code::kNotFound, "no such resource");
    return out;
  }
  out.pattern = n->pattern;
  const Endpoint* get = nullptr;
  for (const auto& e : n->endpoints) {
    if (e.method == method) {
      out.endpoint = &e;
      return out;
    }
    if (e.method == "GET") get = &e;
  }
  if (method == "HEAD" && get) {
    out.endpoint = get;
    return out;
  }
  // RFC 9110 §10.2.1: Allow lists what the resource supports.
  std::vector<std::string> allow;
  for (const auto& e : n->endpoints) allow.push_back(e.method);
  if (get && std::find(allow.begin(), allow.end(), "HEAD") == allow.end()) allow.push_back("HEAD");
  if (std::find(allow.begin(), allow.end(), "OPTIONS") == allow.end()) allow.push_back("OPTIONS");
  std::sort(allow.begin(), allow.end());
  std::string allow_value;
  for (const auto& m : allow) {
    if (!allow_value.empty()) allow_value += ", ";
    allow_value += m;
  }
  if (method == "OPTIONS") {
    out.response = Response::Empty(204);
  } else if (KnownMethod(method)) {
    out.response = ErrorResponse(405, Code::kUnsupported,
                                 "method " + std::string(method) + " is not allowed here");
  } else {
    out.response = ErrorResponse(501, Code::kUnsupported,
                                 "method " + std::string(method) + " is not implemented");
  }
  out.response.headers.Set("Allow", allow_value);
  return out;
}

}  // namespace nubo::http
