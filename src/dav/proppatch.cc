// RFC 4918 §9.2 PROPPATCH: sets and removes dead properties in document
// order, all or nothing (§9.2: one failure fails them all; the others
// answer 424). Live properties are protected (403,
// cannot-modify-protected-property). Property bytes count against the
// owner's quota (507 insufficient storage, §9.2.1).
#include "dav/context.h"
#include "dav/props.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"

namespace nubo::dav {

namespace {

struct Op {
  bool set;
  std::string ns, name, value;
  bool is_protected = false;
  const LiveProp* live = nullptr;  // a live property clients may set
};

}  // namespace

http::Response HandleProppatch(DavContext& c) {
  const files::Resolved& t = c.target;
  if (!t.node) return DavError(404);
  XmlLimits limits;
  limits.max_bytes = c.opt.max_xml_body;
  auto root = ParseXml(c.req.body, limits);
  if (!root.ok()) return DavError(root.status());
  if (root->ns != kDavNs || root->name != "propertyupdate") return DavError(400);
  std::vector<Op> ops;
  for (const XmlElement& e : root->children) {
    if (e.ns != kDavNs || (e.name != "set" && e.name != "remove")) continue;
    const XmlElement* prop = e.Child(kDavNs, "prop");
    if (!prop) return DavError(400);
    for (const XmlElement& p : prop->children) {
      Op op{e.name == "set", p.ns, p.name, e.name == "set" ? p.InnerXml() : std::string()};
      const LiveProp* live = FindLiveProp(p.ns, p.name);
      if (live && live->patch) {
        op.live = live;
        op.value = p.text;
      } else {
        op.is_protected = live != nullptr;
      }
      ops.push_back(std::move(op));
    }
  }
  if (ops.empty()) return DavError(400);
  const bool any_protected =
      std::any_of(ops.begin(), ops.end(), [](const Op& o) { return o.is_protected; });
  int failed = 0;  // the status every property answers when the whole patch failed
  if (!any_protected) {
    std::vector<files::PropOp> patch;
    patch.reserve(ops.size());
    for (const Op& op : ops) {
      if (!op.live) patch.push_back({op.set, meta::DeadProp{op.ns, op.name, op.value}});
    }
    Status applied =
        patch.empty() ? Status::Ok() : c.files.PatchDeadProps(c.who(), *t.node, patch, c.cond);
    // Settable live properties follow the dead ones (each its own change).
    for (const Op& op : ops) {
      if (!applied.ok()) break;
      if (op.live) applied = op.live->patch(c, *t.node, op.set, op.value);
    }
    if (applied.code() == Code::kQuotaExceeded) {
      failed = 507;  // §9.2.1: per property, in the multistatus
    } else if (!applied.ok()) {
      return DavError(applied);
    }
  }
  XmlWriter w;
  w.Open(kDavNs, "multistatus", {{"d", std::string(kDavNs)}});
  w.Open(kDavNs, "response");
  w.Leaf(kDavNs, "href", c.TargetHref());
  // One propstat per outcome: 200 (all applied), or 403 for protected
  // properties and 424 for the rest.
  for (int code : {200, 403, 424, 507}) {
    std::vector<const Op*> group;
    for (const Op& op : ops) {
      int got = failed ? failed : !any_protected ? 200 : op.is_protected ? 403 : 424;
      if (got == code) group.push_back(&op);
    }
    if (group.empty()) continue;
    w.Open(kDavNs, "propstat");
    w.Open(kDavNs, "prop");
    for (const Op* op : group) w.Empty(op->ns, op->name);
    w.Close();
    w.Leaf(kDavNs, "status",
           code == 200   ? "HTTP/1.1 200 OK"
           : code == 403 ? "HTTP/1.1 403 Forbidden"
           : code == 507 ? "HTTP/1.1 507 Insufficient Storage"
                         : "HTTP/1.1 424 Failed Dependency");
    if (code == 403) {
      w.Open(kDavNs, "error");
      w.Empty(kDavNs, "cannot-modify-protected-property");
      w.Close();
    }
    w.Close();
  }
  w.Close();
  w.Close();
  return http::Response::Text(207, std::move(w.buffer()), "application/xml; charset=utf-8");
}

}  // namespace nubo::dav
