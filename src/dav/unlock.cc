// RFC 4918 §9.11 UNLOCK: removes the lock named by Lock-Token if it covers
// the request URI; otherwise 409 with lock-token-matches-request-uri.
// Another user's lock is 403.
#include "dav/context.h"
#include "util/strings.h"

namespace nubo::dav {

http::Response HandleUnlock(DavContext& c) {
  auto v = c.req.headers.Get("Lock-Token");
  if (!v) return DavError(400);
  std::string_view token = Trim(*v);
  if (token.size() < 2 || token.front() != '<' || token.back() != '>') return DavError(400);
  token = token.substr(1, token.size() - 2);
  Status st = c.files.Unlock(c.who(), c.target, std::string(token));
  if (st.code() == Code::kNotFound && c.target.node) {
    return DavError(409, "lock-token-matches-request-uri");
  }
  if (!st.ok()) return DavError(st);
  return http::Response::Empty(204);
}

}  // namespace nubo::dav
