// Sharing a calendar or an address book the way Nextcloud's clients and
// its calendar app do: POST to the collection an oc:share body,
//
//   <o:share xmlns:d="DAV:" xmlns:o="http://owncloud.org/ns">
//     <o:set><d:href>principal:principals/users/bob</d:href><o:read-write/></o:set>
//     <o:remove><d:href>principal:principals/groups/Team</d:href></o:remove>
//   </o:share>
//
// (no o:read-write: read-only). Sharees are users or groups, named by a
// "principal:principals/{users,groups}/NAME" URI or the principal's path.
// The whole body is applied in order; the first refusal answers.
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "groupdav/props.h"
#include "http/status_map.h"
#include "util/strings.h"

namespace nubo::groupdav {

std::optional<ShareeRef> ParseShareeHref(std::string_view href) {
  href = Trim(href);
  constexpr std::string_view kUri = "principal:principals/";
  const std::string path_prefix = std::string(kRootPath) + "/principals/";
  if (href.substr(0, kUri.size()) == kUri) {
    href.remove_prefix(kUri.size());
  } else if (href.substr(0, path_prefix.size()) == path_prefix) {
    href.remove_prefix(path_prefix.size());
  } else {
    return std::nullopt;
  }
  if (!href.empty() && href.back() == '/') href.remove_suffix(1);
  ShareeRef s;
  if (href.substr(0, 6) == "users/") {
    href.remove_prefix(6);
  } else if (href.substr(0, 7) == "groups/") {
    href.remove_prefix(7);
    s.is_group = true;
  } else {
    return std::nullopt;
  }
  if (href.empty() || href.find('/') != std::string_view::npos) return std::nullopt;
  auto name = dav::DecodeSegment(href);
  if (!name || name->empty()) return std::nullopt;
  s.name = std::move(*name);
  return s;
}

http::Response HandleShare(GContext& c, const dav::XmlElement& root) {
  if (c.target.kind != Res::kCalendar && c.target.kind != Res::kBook) {
    return http::Response::Text(403, "only calendars and address books are shared\n");
  }
  if (!c.target.exists) return http::Response::Text(404, "no such collection or object\n");
  const auto& col = *c.target.collection;
  if (!col.mount_name.empty()) {
    return http::Response::Text(403, "only the owner shares a collection\n");
  }
  for (const dav::XmlElement& e : root.children) {
    if (e.ns != kOcNs || (e.name != "set" && e.name != "remove")) continue;
    const dav::XmlElement* href = e.Child(dav::kDavNs, "href");
    auto who = href ? ParseShareeHref(href->text) : std::nullopt;
    if (!who) {
      return http::Response::Text(
          400, "name a sharee as principal:principals/users/NAME or .../groups/NAME\n");
    }
    Status st = e.name == "set" ? c.gw.Share(c.who(), col, who->is_group, who->name,
                                             e.Child(kOcNs, "read-write") == nullptr)
                                : c.gw.Unshare(c.who(), col, who->is_group, who->name);
    if (!st.ok()) {
      const int code = http::HttpStatusFor(st.code());
      if (code == 404 && st.message() != "no such collection or object") {
        // An unknown sharee is the request's fault, not a missing target.
        return http::Response::Text(400, st.message() + "\n");
      }
      return http::Response::Text(
          code, code == 500 ? std::string("internal server error\n") : st.message() + "\n");
    }
  }
  return http::Response::Empty(200);
}

}  // namespace nubo::groupdav
