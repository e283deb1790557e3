// RFC 4791 §5.3.1 MKCALENDAR and RFC 5689 extended MKCOL: a calendar or an
// address book made in the caller's own home, with its initial properties.
// Only stores can be made (a home holds nothing else), so a plain MKCOL in
// an address-book home makes an address book (clients that predate RFC 5689
// do that) and in a calendar home is refused.
#include "dav/xml_reader.h"
#include "groupdav/props.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;
using dav::XmlElement;

// RFC 4791 §5.2.3: the component set a MKCALENDAR asks for.
std::optional<uint32_t> ComponentsOf(const XmlElement& set) {
  uint32_t bits = 0;
  for (const XmlElement& comp : set.children) {
    if (comp.ns != kCalNs || comp.name != "comp") continue;
    for (const auto& [k, v] : comp.attrs) {
      if (k != "name") continue;
      if (v == "VEVENT")
        bits |= groupware::kCompEvent;
      else if (v == "VTODO")
        bits |= groupware::kCompTodo;
      else if (v == "VJOURNAL")
        bits |= groupware::kCompJournal;
      else if (v == "VFREEBUSY")
        bits |= groupware::kCompFreeBusy;
      else
        return std::nullopt;
    }
  }
  if (bits == 0) return std::nullopt;
  return bits;
}

// What the extended MKCOL's resourcetype asks to make.
enum class Wanted { kUnsaid, kCalendar, kBook, kOther };

Wanted ResourceTypeOf(const XmlElement& root) {
  for (const XmlElement& op : root.children) {
    const XmlElement* prop = op.Child(kDavNs, "prop");
    const XmlElement* rt = prop ? prop->Child(kDavNs, "resourcetype") : nullptr;
    if (!rt) continue;
    if (rt->Child(kCalNs, "calendar")) return Wanted::kCalendar;
    if (rt->Child(kCardNs, "addressbook")) return Wanted::kBook;
    return Wanted::kOther;
  }
  return Wanted::kUnsaid;
}

}  // namespace

http::Response HandleMkcol(GContext& c) {
  const bool mkcalendar = c.req.method == "MKCALENDAR";
  const Target& t = c.target;
  if (!IsStore(t.kind)) {
    return Precondition(403, kDavNs, "resource-must-be-null");
  }
  if (t.exists) {
    http::Response r = Precondition(405, kDavNs, "resource-must-be-null");
    return r;
  }
  const bool calendar_home = t.kind == Res::kCalendar;
  std::optional<XmlElement> doc;
  if (!c.req.body.empty()) {
    auto d = dav::ParseXml(c.req.body);
    if (!d.ok()) return http::Response::Text(400, d.status().message() + "\n");
    doc = std::move(*d);
    const bool ok_root = mkcalendar ? (doc->ns == kCalNs && doc->name == "mkcalendar")
                                    : (doc->ns == kDavNs && doc->name == "mkcol");
    if (!ok_root) return http::Response::Text(415, "unexpected request body\n");
  }
  Wanted wanted = doc ? ResourceTypeOf(*doc) : Wanted::kUnsaid;
  if (mkcalendar) wanted = Wanted::kCalendar;
  if (wanted == Wanted::kUnsaid && !calendar_home) wanted = Wanted::kBook;
  if ((calendar_home && wanted != Wanted::kCalendar) ||
      (!calendar_home && wanted != Wanted::kBook)) {
    // RFC 5689 §3.3: a resource type this place cannot hold.
    return Precondition(403, kDavNs, "valid-resourcetype");
  }
  groupware::CollectionProps props;
  std::vector<std::pair<meta::DavDeadProp, bool>> dead;
  std::vector<std::pair<std::string, std::string>> all, refused;
  if (doc) {
    Status st = ReadPropertyUpdate(*doc, calendar_home, props, dead, all, refused);
    if (!st.ok()) return http::Response::Text(400, st.message() + "\n");
    for (const XmlElement& op : doc->children) {
      const XmlElement* prop = op.Child(kDavNs, "prop");
      const XmlElement* set =
          prop ? prop->Child(kCalNs, "supported-calendar-component-set") : nullptr;
      if (!set) continue;
      props.components = ComponentsOf(*set);
      if (!props.components) return Precondition(403, kCalNs, "supported-calendar-component");
    }
  }
  if (!refused.empty()) {
    dav::XmlWriter w;
    WritePropstatResult(w, TargetHref(c), all, refused);
    return http::Response::Text(403, std::move(w.buffer()), "application/xml; charset=utf-8");
  }
  auto made = c.gw.Create(c.who(), *t.owner, c.store_kind(), t.name, props);
  if (!made.ok()) {
    const Code code = made.status().code();
    if (code == Code::kAlreadyExists) return Precondition(405, kDavNs, "resource-must-be-null");
    if (code == Code::kInvalidArgument)
      return http::Response::Text(400, made.status().message() + "\n");
    if (code == Code::kQuotaExceeded)
      return http::Response::Text(507, made.status().message() + "\n");
    if (code == Code::kNotFound) return http::Response::Text(404, made.status().message() + "\n");
    return http::Response::Text(403, made.status().message() + "\n");
  }
  if (!dead.empty()) {
    auto r = c.gw.Update(c.who(), *made, {}, dead);
    if (!r.ok()) return http::Response::Text(500, "internal server error\n");
  }
  http::Response r = http::Response::Empty(201);
  r.headers.Set("Location", StoreHref(*t.owner, *made));
  return r;
}

}  // namespace nubo::groupdav
