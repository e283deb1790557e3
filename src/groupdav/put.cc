// RFC 4791 §5.3.2 / RFC 6352 §6.3.2 PUT of a calendar object or a vCard:
// validated before it is stored, refused with the RFC's precondition
// element (valid-calendar-data, no-uid-conflict, …), never stored in part.
// The ETag is returned because the stored text is byte-identical to the
// body (RFC 4791 §5.3.4).
#include "groupdav/props.h"
#include "util/strings.h"

namespace nubo::groupdav {

namespace {

// The media type without parameters, lower case.
std::string MediaType(std::string_view v) {
  const size_t semi = v.find(';');
  return AsciiLowerCopy(Trim(v.substr(0, semi)));
}

}  // namespace

http::Response HandlePut(GContext& c) {
  const Target& t = c.target;
  if (IsStore(t.kind) && !t.exists) {
    // RFC 4918 §9.7.1: the parent must exist.
    return http::Response::Text(409, "no such calendar or address book\n");
  }
  if (!IsObject(t.kind)) return http::Response::Text(405, "only objects can be written\n");
  const bool calendar = t.kind != Res::kCard;
  const std::string type = MediaType(c.req.headers.Get("Content-Type").value_or(""));
  if (calendar && type != "text/calendar") {
    return Precondition(403, kCalNs, "supported-calendar-data");
  }
  if (!calendar && type != "text/vcard" && type != "text/x-vcard") {
    return Precondition(403, kCardNs, "supported-address-data");
  }
  groupware::Refusal refusal;
  auto out = c.gw.PutObject(c.who(), *t.collection, t.name, std::move(c.req.body),
                            ObjectConditionsOf(c.req), &refusal);
  if (!out.ok()) {
    const Status& st = out.status();
    if (!refusal.condition.empty()) {
      std::string href;
      if (!refusal.conflicting_name.empty()) {
        href = ObjectHref(*t.owner, *t.collection, refusal.conflicting_name);
      }
      const std::string_view ns = calendar ? kCalNs : kCardNs;
      // Stored and shown to the client: the reason goes in a header too.
      http::Response r = Precondition(403, ns, refusal.condition, href);
      r.headers.Set("X-Nubo-Reason", refusal.reason.substr(0, 200));
      return r;
    }
    switch (st.code()) {
      case Code::kPreconditionFailed:
        return http::Response::Text(412, st.message() + "\n");
      case Code::kNotFound:
        return http::Response::Text(404, st.message() + "\n");
      case Code::kInvalidArgument:
        return http::Response::Text(400, st.message() + "\n");
      case Code::kPermissionDenied:
        return http::Response::Text(403, st.message() + "\n");
      default:
        return http::Response::Text(500, "internal server error\n");
    }
  }
  http::Response r = http::Response::Empty(out->created ? 201 : 204);
  r.headers.Set("ETag", out->object.etag);
  return r;
}

}  // namespace nubo::groupdav
