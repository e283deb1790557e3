// What every groupware DAV handler receives: the caller and the resolved
// target (which tree, whose home, which collection and object), resolved
// once before dispatch. Internal to src/groupdav. One per request.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/principal.h"
#include "groupdav/groupdav.h"
#include "groupware/collections.h"
#include "http/request.h"
#include "http/response.h"
#include "meta/meta_store.h"

namespace nubo::dav {
struct XmlElement;
}  // namespace nubo::dav

namespace nubo::groupdav {

inline constexpr std::string_view kCalNs = "urn:ietf:params:xml:ns:caldav";
inline constexpr std::string_view kCardNs = "urn:ietf:params:xml:ns:carddav";
inline constexpr std::string_view kCsNs = "http://calendarserver.org/ns/";
inline constexpr std::string_view kAppleNs = "http://apple.com/ns/ical/";
inline constexpr std::string_view kOcNs = "http://owncloud.org/ns";
inline constexpr std::string_view kRootPath = "/remote.php/dav";

enum class Res {
  kRoot,            // /remote.php/dav/
  kPrincipals,      // principals/
  kPrincipalUsers,  // principals/users/
  kPrincipal,       // principals/users/NAME/
  kCalendars,       // calendars/
  kCalendarHome,    // calendars/NAME/
  kCalendar,        // calendars/NAME/CAL/
  kCalendarObject,  // calendars/NAME/CAL/OBJ
  kBooks,           // addressbooks/
  kBookUsers,       // addressbooks/users/
  kBookHome,        // addressbooks/users/NAME/
  kBook,            // addressbooks/users/NAME/BOOK/
  kCard,            // addressbooks/users/NAME/BOOK/CARD
  kFiles,           // files/ (the caller's files tree below it is src/dav's)
  kInbox,           // calendars/NAME/inbox/ (RFC 6638 §2.2 schedule inbox)
  kOutbox,          // calendars/NAME/outbox/ (§2.1 schedule outbox)
  kBoxObject,       // a message in either
};

bool IsCollection(Res r);
bool IsHome(Res r);
bool IsStore(Res r);  // a calendar or an address book
bool IsObject(Res r);
// The kind of a store's members (kCalendarObject, kCard or kBoxObject).
Res MemberKind(Res store);

struct Target {
  Res kind = Res::kRoot;
  bool exists = true;
  std::optional<meta::UserRow> owner;                // homes and below
  std::optional<meta::DavCollectionRow> collection;  // kCalendar/kBook and below
  std::string name;                                  // the last segment (collection or object)
  std::optional<meta::DavObjectRow> object;          // objects, when they exist (with data)
};

struct GContext {
  groupware::Collections& gw;
  const GroupDavOptions& opt;
  http::Request& req;
  auth::PrincipalPtr principal;
  Target target;

  const auth::Principal& who() const { return *principal; }
  groupware::Kind store_kind() const;
};

// ASCII upper case (iCalendar and vCard names are ASCII, case-insensitive).
std::string UpperAscii(std::string_view s);

// hrefs (percent-encoded, collections end in "/").
std::string PrincipalHref(std::string_view user);
std::string CalendarHomeHref(std::string_view user);
std::string BookHomeHref(std::string_view user);
std::string StoreHref(const meta::UserRow& owner, const meta::DavCollectionRow& c);
// A member's href below a store's (StoreHref), for listings that compute
// the store's once.
std::string MemberHref(std::string_view store_href, std::string_view name);
std::string ObjectHref(const meta::UserRow& owner, const meta::DavCollectionRow& c,
                       std::string_view name);
std::string TargetHref(const GContext& c);

// RFC 6578 §3.2: a sync token is a URI. It names the collection (so a token
// of a deleted and re-created collection is refused) and a sequence number.
std::string SyncToken(const meta::DavCollectionRow& c);
std::string SyncTokenAt(const meta::DavCollectionRow& c, int64_t seq);
// The sequence number, or nullopt for a token of another collection or a
// malformed one.
std::optional<int64_t> ParseSyncToken(std::string_view token, const meta::DavCollectionRow& c);

// Resolves the decoded path (segments after "remote.php", "dav").
Result<Target> Resolve(groupware::Collections& gw, const auth::Principal& who,
                       const std::vector<std::string>& segs);

// <D:error><ns:condition/></D:error> with `status`; an optional href inside.
http::Response Precondition(int status, std::string_view ns, std::string_view condition,
                            std::string_view href = "");

// HTTP preconditions of a write on an object, from the request headers.
groupware::ObjectConditions ObjectConditionsOf(const http::Request& req);

http::Response HandleOptions(GContext& c);
http::Response HandlePropfind(GContext& c);
http::Response HandleProppatch(GContext& c);
http::Response HandleMkcol(GContext& c);  // MKCOL and MKCALENDAR
http::Response HandleGet(GContext& c);
http::Response HandlePut(GContext& c);
http::Response HandleDelete(GContext& c);
http::Response HandleReport(GContext& c);
// RFC 6638 §5: free-busy through the outbox; oc:share on a calendar or an
// address book (share.cc).
http::Response HandlePost(GContext& c);
http::Response HandleShare(GContext& c, const dav::XmlElement& root);
// A sharee named in an oc:share body: "principal:principals/users/NAME"
// (or groups/NAME), or that principal's path below /remote.php/dav/, its
// "%XX" escapes decoded; nullopt for anything else.
struct ShareeRef {
  bool is_group = false;
  std::string name;
};
std::optional<ShareeRef> ParseShareeHref(std::string_view href);

}  // namespace nubo::groupdav
