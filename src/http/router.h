// The route table: path pattern → per-method endpoint, with path parameters.
//
// Patterns are "/"-separated; a segment "{name}" captures one path segment
// and a final "{name...}" captures the rest (zero or more segments, joined
// by "/"). Literal segments win over captures at the same position, so
// "/api/files/recent" beats "/api/files/{id}" whatever the order of Add.
//
// Build the table before serving; afterwards Resolve is const and safe to
// call from any thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "http/request.h"
#include "http/response.h"
#include "util/status.h"

namespace nubo::http {

enum class BodyPolicy {
  kNone,      // no body expected; one that arrives anyway is refused (413)
  kBuffered,  // read into Request::body, up to RouteOptions::max_body
  kStream,    // pushed into the sink the route opens
};

// Who may call a route, decided by the guard before any body byte is read.
// The credential's scope counts, not only the account: an app password
// reaches kUser routes only (auth/principal.h).
enum class Access {
  kPublic,   // anyone
  kUser,     // an authenticated, active account, with the files scope
  kAccount,  // the account itself (credentials, sessions, profile): a session
             // or the account password, never an app password
  kAdmin,    // an authenticated, active administrator, not through an app password
  kLink,     // a public link's bearer: the token in the {token} path parameter or
             // as the Basic user name (WebDAV), plus its password when it has one
};

struct RouteOptions {
  Access access = Access::kPublic;
  BodyPolicy body = BodyPolicy::kNone;
  // kBuffered: limit in bytes (0: the server's default JSON/XML limit).
  // kStream: hard cap (0: unlimited; quotas are enforced by the sink).
  uint64_t max_body = 0;
  // Run the handler, sink and source on the blocking pool instead of an I/O
  // thread: for anything that may wait on disk, Argon2, fsync or a database.
  bool blocking = false;
  // How this route answers an error the transport meets on its behalf
  // (opening the sink, reading or finishing the streamed body): WebDAV
  // answers RFC 4918 error bodies, the REST API JSON. Null: ErrorResponse.
  Response (*errors)(const Status&) = nullptr;
  // The body is JSON: a body sent with another Content-Type is refused
  // (415) before it is parsed, so a cross-site form (text/plain) can never
  // pass for a JSON request.
  bool json = false;
  // The route is meant to be called from other sites (a public link's
  // drop box): unsafe methods from a cross-site page are not refused.
  bool cross_site = false;
  // A blocking route's request that this says is cheap (a sync client's
  // PROPFIND Depth: 0 poll) runs its guard and handler on the network
  // thread when the guard can authenticate it from its caches: no hop to
  // the blocking pool and back. Its reads are of the metadata store, which
  // answers them from memory. Null: never.
  bool (*inline_when)(const Request&) = nullptr;
};

using Handler = std::function<Response(Request&)>;
// Opens the sink of a streaming route. Runs after the headers and the guard
// passed and before any body byte is read (so before "100 Continue"). An
// error is the response; the body is then never read.
using SinkOpener = std::function<Result<std::unique_ptr<BodySink>>(Request&)>;
// Runs before any body byte is read, for every route whose access is not
// kPublic, on the blocking pool (it may verify a password): authentication
// and authorization that must answer before "100 Continue". It sets
// Request::caller; nullopt: go on.
struct Endpoint;
using Guard = std::function<std::optional<Response>(Request&, const Endpoint&)>;

struct Endpoint {
  std::string method;
  std::string pattern;
  Handler handler;
  SinkOpener open_sink;  // set iff options.body == kStream
  RouteOptions options;
};

// The outcome of routing one request.
struct RouteMatch {
  const Endpoint* endpoint = nullptr;  // null: answer `response` instead
  std::vector<std::pair<std::string, std::string>> params;
  std::string pattern;
  Response response;  // 404, 405/501 with Allow, or the automatic OPTIONS answer
};

class Router {
 public:
  Router();
  ~Router();
  Router(const Router&) = delete;
  Router& operator=(const Router&) = delete;

  void Add(std::string_view method, std::string_view pattern, Handler handler,
           RouteOptions options = {});
  void AddStream(std::string_view method, std::string_view pattern, SinkOpener open,
                 Handler handler, RouteOptions options = {});
  void SetGuard(Guard guard) { guard_ = std::move(guard); }
  const Guard& guard() const { return guard_; }

  // HEAD falls back to GET (the transport drops the body); OPTIONS without
  // an endpoint answers 204 with Allow; a path without the method answers
  // 405 (a method the server knows) or 501 (one it does not), both with
  // Allow; no path, 404.
  RouteMatch Resolve(std::string_view method, const std::vector<std::string>& segments) const;

  // Visits every endpoint (for documentation checks).
  void ForEach(const std::function<void(const Endpoint&)>& fn) const;

  // True for methods some surface of nubo implements (HTTP, WebDAV, CalDAV).
  static bool KnownMethod(std::string_view method);

  struct Node;  // trie node, defined in router.cc

 private:
  Node* NodeFor(std::string_view pattern);
  void Insert(Endpoint ep);

  std::unique_ptr<Node> root_;
  Guard guard_;
};

}  // namespace nubo::http
