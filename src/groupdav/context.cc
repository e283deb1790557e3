// Resolving /remote.php/dav/… paths to groupware resources, and the hrefs
// and sync tokens that name them.
#include <charconv>

#include "auth/authz.h"
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "groupdav/context.h"
#include "util/strings.h"

namespace nubo::groupdav {

using groupware::Kind;

bool IsCollection(Res r) { return !IsObject(r); }
bool IsHome(Res r) { return r == Res::kCalendarHome || r == Res::kBookHome; }
bool IsStore(Res r) {
  return r == Res::kCalendar || r == Res::kBook || r == Res::kInbox || r == Res::kOutbox;
}
bool IsObject(Res r) {
  return r == Res::kCalendarObject || r == Res::kCard || r == Res::kBoxObject;
}
Res MemberKind(Res store) {
  switch (store) {
    case Res::kCalendar:
      return Res::kCalendarObject;
    case Res::kBook:
      return Res::kCard;
    default:
      return Res::kBoxObject;
  }
}

groupware::Kind GContext::store_kind() const {
  switch (target.kind) {
    case Res::kCalendarHome:
    case Res::kCalendar:
    case Res::kCalendarObject:
    case Res::kInbox:
    case Res::kOutbox:
    case Res::kBoxObject:
      return Kind::kCalendar;
    default:
      return Kind::kAddressBook;
  }
}

std::string UpperAscii(std::string_view s) {
  std::string out(s);
  for (char& ch : out) {
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  }
  return out;
}

namespace {

std::string Seg(std::string_view s) { return dav::EncodeSegment(s); }

}  // namespace

std::string PrincipalHref(std::string_view user) {
  return std::string(kRootPath) + "/principals/users/" + Seg(user) + "/";
}
std::string CalendarHomeHref(std::string_view user) {
  return std::string(kRootPath) + "/calendars/" + Seg(user) + "/";
}
std::string BookHomeHref(std::string_view user) {
  return std::string(kRootPath) + "/addressbooks/users/" + Seg(user) + "/";
}
std::string StoreHref(const meta::UserRow& owner, const meta::DavCollectionRow& c) {
  return (c.kind != static_cast<int>(Kind::kAddressBook) ? CalendarHomeHref(owner.username)
                                                         : BookHomeHref(owner.username)) +
         Seg(c.mount_name.empty() ? c.name : c.mount_name) + "/";
}
std::string MemberHref(std::string_view store_href, std::string_view name) {
  std::string out;
  out.reserve(store_href.size() + name.size() + 8);
  out.append(store_href);
  dav::AppendEncodedSegment(out, name);
  return out;
}
std::string ObjectHref(const meta::UserRow& owner, const meta::DavCollectionRow& c,
                       std::string_view name) {
  return MemberHref(StoreHref(owner, c), name);
}

std::string TargetHref(const GContext& c) {
  const Target& t = c.target;
  const std::string root(kRootPath);
  switch (t.kind) {
    case Res::kRoot:
      return root + "/";
    case Res::kPrincipals:
      return root + "/principals/";
    case Res::kPrincipalUsers:
      return root + "/principals/users/";
    case Res::kPrincipal:
      return PrincipalHref(t.owner->username);
    case Res::kCalendars:
      return root + "/calendars/";
    case Res::kCalendarHome:
      return CalendarHomeHref(t.owner->username);
    case Res::kBooks:
      return root + "/addressbooks/";
    case Res::kBookUsers:
      return root + "/addressbooks/users/";
    case Res::kBookHome:
      return BookHomeHref(t.owner->username);
    case Res::kFiles:
      return root + "/files/";
    case Res::kCalendar:
      return CalendarHomeHref(t.owner->username) + Seg(t.name) + "/";
    case Res::kBook:
      return BookHomeHref(t.owner->username) + Seg(t.name) + "/";
    case Res::kInbox:
    case Res::kOutbox:
      return CalendarHomeHref(t.owner->username) + Seg(t.name) + "/";
    case Res::kCalendarObject:
    case Res::kCard:
    case Res::kBoxObject:
      return StoreHref(*t.owner, *t.collection) + Seg(t.name);
  }
  return root + "/";
}

namespace {
constexpr std::string_view kTokenPrefix = "http://nubo.dev/ns/sync/";
}

std::string SyncTokenAt(const meta::DavCollectionRow& c, int64_t seq) {
  return std::string(kTokenPrefix) + c.public_id + "/" + std::to_string(seq);
}
std::string SyncToken(const meta::DavCollectionRow& c) { return SyncTokenAt(c, c.sync_seq); }

std::optional<int64_t> ParseSyncToken(std::string_view token, const meta::DavCollectionRow& c) {
  token = Trim(token);
  if (token.substr(0, kTokenPrefix.size()) != kTokenPrefix) return std::nullopt;
  token.remove_prefix(kTokenPrefix.size());
  const size_t slash = token.find('/');
  if (slash == std::string_view::npos || token.substr(0, slash) != c.public_id) {
    return std::nullopt;
  }
  token.remove_prefix(slash + 1);
  int64_t seq = 0;
  auto [p, ec] = std::from_chars(token.data(), token.data() + token.size(), seq);
  if (ec != std::errc() || p != token.data() + token.size() || seq < 0) return std::nullopt;
  return seq;
}

namespace {

// Below a store: the store and maybe one object.
Status ResolveStore(groupware::Collections& gw, const auth::Principal& who, Target& t, Kind kind,
                    const std::vector<std::string>& rest) {
  auto c = gw.Get(who, *t.owner, kind, rest[0]);
  if (rest.size() == 1) {
    t.kind = kind == Kind::kCalendar ? Res::kCalendar : Res::kBook;
    t.name = rest[0];
    if (!c.ok()) {
      if (c.status().code() != Code::kNotFound) return c.status();
      t.exists = false;
      return Status::Ok();
    }
    t.collection = std::move(*c);
    return Status::Ok();
  }
  if (rest.size() != 2) return authz::CollectionHidden();
  if (!c.ok()) return c.status();
  t.kind = kind == Kind::kCalendar ? Res::kCalendarObject : Res::kCard;
  t.collection = std::move(*c);
  t.name = rest[1];
  auto o = gw.GetObject(who, *t.collection, t.name);
  if (!o.ok()) {
    if (o.status().code() != Code::kNotFound) return o.status();
    t.exists = false;
    return Status::Ok();
  }
  t.object = std::move(*o);
  return Status::Ok();
}

}  // namespace

Result<Target> Resolve(groupware::Collections& gw, const auth::Principal& who,
                       const std::vector<std::string>& segs) {
  Target t;
  const size_t n = segs.size();
  if (n == 0) return t;
  const std::string& top = segs[0];
  auto home = [&](const std::string& name) -> Status {
    NUBO_ASSIGN_OR_RETURN(t.owner, gw.Home(who, name));
    return Status::Ok();
  };
  if (top == "files" && n == 1) {
    t.kind = Res::kFiles;
    return t;
  }
  if (top == "principals") {
    if (n == 1) t.kind = Res::kPrincipals;
    if (n >= 2 && segs[1] != "users") return authz::CollectionHidden();
    if (n == 2) t.kind = Res::kPrincipalUsers;
    if (n == 3) {
      NUBO_RETURN_IF_ERROR(home(segs[2]));
      t.kind = Res::kPrincipal;
    }
    if (n > 3) return authz::CollectionHidden();
    return t;
  }
  if (top == "calendars") {
    t.kind = Res::kCalendars;
    if (n == 1) return t;
    NUBO_RETURN_IF_ERROR(home(segs[1]));
    t.kind = Res::kCalendarHome;
    if (n == 2) return t;
    if (segs[2] == "inbox" || segs[2] == "outbox") {
      const bool inbox = segs[2] == "inbox";
      NUBO_ASSIGN_OR_RETURN(t.collection,
                            gw.Box(who, *t.owner, inbox ? Kind::kInbox : Kind::kOutbox));
      t.kind = inbox ? Res::kInbox : Res::kOutbox;
      t.name = segs[2];
      if (n == 3) return t;
      if (n != 4) return authz::CollectionHidden();
      t.kind = Res::kBoxObject;
      t.name = segs[3];
      auto o = gw.GetObject(who, *t.collection, t.name);
      if (!o.ok()) {
        if (o.status().code() != Code::kNotFound) return o.status();
        t.exists = false;
        return t;
      }
      t.object = std::move(*o);
      return t;
    }
    NUBO_RETURN_IF_ERROR(ResolveStore(gw, who, t, Kind::kCalendar,
                                      std::vector<std::string>(segs.begin() + 2, segs.end())));
    return t;
  }
  if (top == "addressbooks") {
    t.kind = Res::kBooks;
    if (n == 1) return t;
    if (segs[1] != "users") return authz::CollectionHidden();
    t.kind = Res::kBookUsers;
    if (n == 2) return t;
    NUBO_RETURN_IF_ERROR(home(segs[2]));
    t.kind = Res::kBookHome;
    if (n == 3) return t;
    NUBO_RETURN_IF_ERROR(ResolveStore(gw, who, t, Kind::kAddressBook,
                                      std::vector<std::string>(segs.begin() + 3, segs.end())));
    return t;
  }
  return authz::CollectionHidden();
}

http::Response Precondition(int status, std::string_view ns, std::string_view condition,
                            std::string_view href) {
  dav::XmlWriter w;
  w.Open(dav::kDavNs, "error", {{"d", std::string(dav::kDavNs)}});
  if (href.empty()) {
    w.Empty(ns, condition);
  } else {
    w.Open(ns, condition);
    w.Leaf(dav::kDavNs, "href", href);
    w.Close();
  }
  w.Close();
  return http::Response::Text(status, std::move(w.buffer()), "application/xml; charset=utf-8");
}

groupware::ObjectConditions ObjectConditionsOf(const http::Request& req) {
  groupware::ObjectConditions cond;
  if (auto v = req.headers.Get("If-Match")) {
    for (std::string_view part : Split(*v, ',')) {
      part = Trim(part);
      if (!part.empty()) cond.if_match.emplace_back(part);
    }
  }
  if (auto v = req.headers.Get("If-None-Match")) cond.if_none_match_any = Trim(*v) == "*";
  return cond;
}

}  // namespace nubo::groupdav
