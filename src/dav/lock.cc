// RFC 4918 §9.10 LOCK: creates an exclusive or shared write lock (Depth 0
// or infinity) or, without a body, refreshes the lock named in the If
// header (§9.10.2). Locking an unmapped URL creates an empty file (§7.3,
// 201). Conflicting locks at the resource, above it (depth infinity) or
// below it (for a depth-infinity request) answer 423 no-conflicting-lock.
#include "dav/context.h"
#include "dav/props.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "util/ids.h"
#include "util/time.h"

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
  auto locks = CoveringLocks(c.files, c.target.drive_id, c.target.path_key);
  if (!locks.ok()) return DavError(locks.status());
  for (auto& l : *locks) {
    if (std::find(c.submitted_tokens.begin(), c.submitted_tokens.end(), l.token) == c.submitted_tokens.end()) {
      continue;
    }
    if (l.user_id != c.user) return DavError(403);
    l.timeout_s = static_cast<int64_t>(timeout_s);
    l.expires_at_ms = UnixMillis() + l.timeout_s * 1000;
    Status st = c.files.meta().Write(
        [&](meta::WriteTxn& w) { return w.RefreshDavLock(l.token, l.timeout_s, l.expires_at_ms); });
    if (!st.ok()) return DavError(st);
    http::Response r = LockResponse(200, l);
    r.headers.Remove("Lock-Token");  // §9.10.2: only a new lock returns its token
    return r;
  }
  return DavError(412, "lock-token-matches-request-uri");
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
  // Conflicts: any lock covering the resource, and for Depth infinity any
  // lock below it; shared locks coexist with shared locks only (§6.2).
  auto covering = CoveringLocks(c.files, t.drive_id, t.path_key);
  if (!covering.ok()) return DavError(covering.status());
  std::vector<meta::DavLockRow> conflicts = std::move(*covering);
  if (*depth == Depth::kInfinity) {
    Status st = c.files.meta().Read([&](meta::ReadTxn& r) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto below, r.FindDavLocks(t.drive_id, {}, t.path_key, UnixMillis()));
      for (auto& l : below) conflicts.push_back(std::move(l));
      return Status::Ok();
    });
    if (!st.ok()) return DavError(st);
  }
  for (const auto& l : conflicts) {
    if (exclusive || l.exclusive) return DavError(423, "no-conflicting-lock", l.root_href);
  }
  int status = 200;
  if (!t.node) {
    // §9.10.4: LOCK on an unmapped URL creates an empty resource; the
    // parent's membership changes, so its locks apply.
    if (Status st = CheckLocks(c, t.drive_id, t.path_key, false, true); !st.ok()) return DavError(st);
    files::UploadRequest u;
    u.parent_id = t.parent->public_id;
    u.name = t.name;
    u.conflict = files::Conflict::kFail;
    u.expected_size = 0;
    auto up = c.files.BeginUpload(c.user, u);
    if (!up.ok()) return DavError(up.status());
    auto done = (*up)->Finish();
    if (!done.ok()) return DavError(done.status());
    status = 201;
  }
  meta::DavLockRow l;
  l.token = "urn:uuid:" + NewUuidV7();
  l.drive_id = t.drive_id;
  l.path = t.path_key;
  l.depth_infinity = *depth == Depth::kInfinity;
  l.exclusive = exclusive;
  l.owner_xml = owner ? owner->InnerXml() : std::string();
  l.user_id = c.user;
  l.timeout_s = static_cast<int64_t>(timeout_s);
  l.expires_at_ms = UnixMillis() + l.timeout_s * 1000;
  l.root_href = c.Href(c.segments, t.node ? t.node->folder() : false);
  Status st = c.files.meta().Write([&](meta::WriteTxn& w) { return w.InsertDavLock(l); });
  if (!st.ok()) return DavError(st);
  return LockResponse(status, l);
}

}  // namespace nubo::dav
