// RFC 4918 §9.10 LOCK: creates an exclusive or shared write lock (Depth 0
// or infinity) or, without a body, refreshes the lock named in the If
// header (§9.10.2). Locking an unmapped URL creates an empty file (§7.3,
// 201). Conflicting locks at the resource, above it (depth infinity) or
// below it (for a depth-infinity request) answer 423 no-conflicting-lock.
// The conflict check and the insert are one transaction in the files
// domain, so two exclusive locks can never both be granted.
#include "dav/context.h"
#include "dav/props.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"

namespace nubo::dav {

namespace {

http::Response LockResponse(int status, const meta::DavLockRow& l) {
  XmlWriter w;
  w.Open(kDavNs, "prop", {{"d", std::string(kDavNs)}});
  w.Open(kDavNs, "lockdiscovery");
  WriteActiveLock(w, l);
  w.Close();
  w.Close();
  http::Response r = http::Response::Text(status, std::move(w.buffer()), "application/xml; charset=utf-8");
  r.headers.Set("Lock-Token", "<" + l.token + ">");
  return r;
}

http::Response Refresh(DavContext& c, uint64_t timeout_s) {
  auto l = c.files.RefreshLock(c.who(), c.target, c.cond.lock_tokens,
                               static_cast<int64_t>(timeout_s));
  if (!l.ok()) {
    if (l.status().code() == Code::kNotFound) return DavError(412, "lock-token-matches-request-uri");
    return DavError(l.status());
  }
  http::Response r = LockResponse(200, *l);
  r.headers.Remove("Lock-Token");  // §9.10.2: only a new lock returns its token
  return r;
}

}  // namespace

http::Response HandleLock(DavContext& c) {
  const uint64_t timeout_s = ParseTimeout(c.req.headers.Get("Timeout"), c.opt.default_lock_timeout_s,
                                          c.opt.max_lock_timeout_s);
  if (c.req.body.empty()) return Refresh(c, timeout_s);
  XmlLimits limits;
  limits.max_bytes = c.opt.max_xml_body;
  auto root = ParseXml(c.req.body, limits);
  if (!root.ok()) return DavError(root.status());
  if (root->ns != kDavNs || root->name != "lockinfo") return DavError(400);
  const XmlElement* scope = root->Child(kDavNs, "lockscope");
  const XmlElement* type = root->Child(kDavNs, "locktype");
  if (!scope || !type || !type->Child(kDavNs, "write")) return DavError(400);
  const bool exclusive = scope->Child(kDavNs, "exclusive") != nullptr;
  if (!exclusive && !scope->Child(kDavNs, "shared")) return DavError(400);
  const XmlElement* owner = root->Child(kDavNs, "owner");
  auto depth = ParseDepth(c.req.headers.Get("Depth"), Depth::kInfinity);
  if (!depth.ok() || *depth == Depth::kOne) return DavError(400);  // §9.10.3

  const files::Resolved& t = c.target;
  if (!t.node && !t.parent) return DavError(409);
  files::LockRequest lr;
  lr.exclusive = exclusive;
  lr.depth_infinity = *depth == Depth::kInfinity;
  lr.owner_xml = owner ? owner->InnerXml() : std::string();
  lr.timeout_s = static_cast<int64_t>(timeout_s);
  lr.root_href = c.Href(c.segments, t.node ? t.node->folder() : false);
  auto got = c.files.Lock(c.who(), t, lr, c.cond);
  if (!got.ok()) return DavError(got.status());
  if (got->conflict_href) return DavError(423, "no-conflicting-lock", *got->conflict_href);
  return LockResponse(got->created ? 201 : 200, got->lock);
}

}  // namespace nubo::dav
