// RFC 4918 §9.2 PROPPATCH on a calendar or address book: the descriptive
// properties RFC 4791 §5.2 / RFC 6352 §6.2 and clients (Apple's color and
// order) define, dead properties for the rest; protected ones are refused
// and the whole request then fails (§9.2: all or nothing, 424 for the rest).
#include <algorithm>
#include <cstdlib>

#include "dav/xml_reader.h"
#include "groupdav/props.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;
using dav::XmlElement;

struct Change {
  std::string ns;
  std::string name;
  bool remove = false;
  const XmlElement* value = nullptr;
};

bool Protected(std::string_view ns, std::string_view name) {
  static const std::pair<std::string_view, std::string_view> kProtected[] = {
      {kDavNs, "resourcetype"},
      {kDavNs, "getetag"},
      {kDavNs, "sync-token"},
      {kDavNs, "getcontenttype"},
      {kDavNs, "getcontentlength"},
      {kDavNs, "getlastmodified"},
      {kDavNs, "owner"},
      {kDavNs, "current-user-privilege-set"},
      {kDavNs, "supported-report-set"},
      {kCsNs, "getctag"},
      {kCalNs, "supported-calendar-component-set"},
      {kCalNs, "supported-calendar-data"},
      {kCalNs, "max-resource-size"},
      {kCardNs, "supported-address-data"},
      {kCardNs, "max-resource-size"},
  };
  for (const auto& [n, l] : kProtected) {
    if (n == ns && l == name) return true;
  }
  return false;
}

// Maps a live descriptive property onto CollectionProps; false when it is
// not one (a dead property).
bool ApplyLive(const Change& ch, bool calendar, groupware::CollectionProps& p) {
  const std::string text = ch.remove ? "" : ch.value->text;
  if (ch.ns == kDavNs && ch.name == "displayname") {
    p.display_name = text;
  } else if (calendar && ch.ns == kCalNs && ch.name == "calendar-description") {
    p.description = text;
  } else if (!calendar && ch.ns == kCardNs && ch.name == "addressbook-description") {
    p.description = text;
  } else if (calendar && ch.ns == kAppleNs && ch.name == "calendar-color") {
    p.color = text;
  } else if (calendar && ch.ns == kAppleNs && ch.name == "calendar-order") {
    p.sort_order = std::strtoll(text.c_str(), nullptr, 10);
  } else if (calendar && ch.ns == kCalNs && ch.name == "calendar-timezone") {
    p.timezone = text;
  } else {
    return false;
  }
  return true;
}

}  // namespace

// Reads the <D:set>/<D:remove> instructions of a PROPPATCH or the <D:set>
// of an extended MKCOL/MKCALENDAR into collection properties; refuses
// protected ones by name in `refused`.
Status ReadPropertyUpdate(const XmlElement& root, bool calendar, groupware::CollectionProps& props,
                          std::vector<std::pair<meta::DavDeadProp, bool>>& dead,
                          std::vector<std::pair<std::string, std::string>>& all,
                          std::vector<std::pair<std::string, std::string>>& refused) {
  for (const XmlElement& op : root.children) {
    if (op.ns != kDavNs || (op.name != "set" && op.name != "remove")) continue;
    const XmlElement* prop = op.Child(kDavNs, "prop");
    if (!prop) continue;
    for (const XmlElement& v : prop->children) {
      Change ch{v.ns, v.name, op.name == "remove", &v};
      all.emplace_back(v.ns, v.name);
      if (v.ns == kDavNs && v.name == "resourcetype") continue;  // MKCOL's; checked there
      if (calendar && v.ns == kCalNs && v.name == "supported-calendar-component-set") continue;
      if (Protected(v.ns, v.name)) {
        refused.emplace_back(v.ns, v.name);
        continue;
      }
      if (ApplyLive(ch, calendar, props)) continue;
      dead.push_back({meta::DavDeadProp{v.ns, v.name, ch.remove ? "" : v.InnerXml()}, ch.remove});
    }
  }
  return Status::Ok();
}

void WritePropstatResult(dav::XmlWriter& w, std::string_view href,
                         const std::vector<std::pair<std::string, std::string>>& all,
                         const std::vector<std::pair<std::string, std::string>>& refused) {
  OpenMultistatus(w);
  w.Open(kDavNs, "response");
  w.Leaf(kDavNs, "href", href);
  auto group = [&](bool want_refused, const char* status) {
    bool any = false;
    for (const auto& p : all) {
      const bool r = std::find(refused.begin(), refused.end(), p) != refused.end();
      if (r != want_refused) continue;
      if (!any) {
        w.Open(kDavNs, "propstat");
        w.Open(kDavNs, "prop");
        any = true;
      }
      w.Empty(p.first, p.second);
    }
    if (!any) return;
    w.Close();
    w.Leaf(kDavNs, "status", status);
    w.Close();
  };
  if (refused.empty()) {
    group(false, "HTTP/1.1 200 OK");
  } else {
    group(true, "HTTP/1.1 403 Forbidden");
    group(false, "HTTP/1.1 424 Failed Dependency");
  }
  w.Close();
  w.Close();
}

http::Response HandleProppatch(GContext& c) {
  if (!c.target.exists) return http::Response::Text(404, "no such collection or object\n");
  if (c.target.kind != Res::kCalendar && c.target.kind != Res::kBook) {
    return http::Response::Text(403, "no writable properties here\n");
  }
  auto doc = dav::ParseXml(c.req.body);
  if (!doc.ok()) return http::Response::Text(400, doc.status().message() + "\n");
  if (doc->ns != kDavNs || doc->name != "propertyupdate") {
    return http::Response::Text(400, "the body must be a DAV:propertyupdate\n");
  }
  groupware::CollectionProps props;
  std::vector<std::pair<meta::DavDeadProp, bool>> dead;
  std::vector<std::pair<std::string, std::string>> all, refused;
  const bool calendar = c.target.kind == Res::kCalendar;
  Status st = ReadPropertyUpdate(*doc, calendar, props, dead, all, refused);
  if (!st.ok()) return http::Response::Text(400, st.message() + "\n");
  if (refused.empty()) {
    auto r = c.gw.Update(c.who(), *c.target.collection, props, dead);
    if (!r.ok()) {
      return http::Response::Text(r.status().code() == Code::kNotFound ? 404 : 403,
                                  r.status().message() + "\n");
    }
  }
  dav::XmlWriter w;
  WritePropstatResult(w, TargetHref(c), all, refused);
  return http::Response::Text(207, std::move(w.buffer()), "application/xml; charset=utf-8");
}

}  // namespace nubo::groupdav
