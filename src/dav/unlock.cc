// RFC 4918 §9.11 UNLOCK: removes the lock named by Lock-Token if it covers
// the request URI; otherwise 409 with lock-token-matches-request-uri.
#include "dav/context.h"
#include "util/strings.h"

namespace nubo::dav {

http::Response HandleUnlock(DavContext& c) {
  auto v = c.req.headers.Get("Lock-Token");
  if (!v) return DavError(400);
  std::string_view token = Trim(*v);
  if (token.size() < 2 || token.front() != '<' || token.back() != '>') return DavError(400);
  token = token.substr(1, token.size() - 2);
  auto locks = CoveringLocks(c.files, c.target.drive_id, c.target.path_key);
  if (!locks.ok()) return DavError(locks.status());
  for (const auto& l : *locks) {
    if (l.token != token) continue;
    if (l.user_id != c.user) return DavError(403);
    Status st = c.files.meta().Write([&](meta::WriteTxn& w) { return w.DeleteDavLock(l.token); });
    if (!st.ok()) return DavError(st);
    return http::Response::Empty(204);
  }
  return DavError(409, "lock-token-matches-request-uri");
}

}  // namespace nubo::dav
