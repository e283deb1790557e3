// RFC 4918 §9.1 PROPFIND on the groupware trees: the target and, with
// Depth 1, its members. A calendar's or address book's members are read
// page by page while the response streams.
#include "dav/request_headers.h"
#include "dav/xml_reader.h"
#include "groupdav/props.h"
#include "http/status_map.h"

namespace nubo::groupdav {

namespace {

using dav::XmlWriter;

constexpr size_t kPage = 500;

// The fixed members of the roots: (href suffix, kind).
struct Child {
  std::string href;
  Res kind;
};

std::vector<Child> FixedChildren(const GContext& c) {
  const std::string root(kRootPath);
  const std::string& me = c.who().username;
  switch (c.target.kind) {
    case Res::kRoot:
      return {{root + "/principals/", Res::kPrincipals},
              {root + "/calendars/", Res::kCalendars},
              {root + "/addressbooks/", Res::kBooks},
              {root + "/files/", Res::kFiles}};
    case Res::kPrincipals:
      return {{root + "/principals/users/", Res::kPrincipalUsers}};
    case Res::kBooks:
      return {{root + "/addressbooks/users/", Res::kBookUsers}};
    // Only the caller's own entries: listing never enumerates accounts.
    case Res::kPrincipalUsers:
      return {{PrincipalHref(me), Res::kPrincipal}};
    case Res::kCalendars:
      return {{CalendarHomeHref(me), Res::kCalendarHome}};
    case Res::kBookUsers:
      return {{BookHomeHref(me), Res::kBookHome}};
    default:
      return {};
  }
}

class Propfind {
 public:
  Propfind(const GContext& c, PropRequest pr, bool members)
      : c_(c), pr_(std::move(pr)), members_(members) {}

  Result<bool> Produce(XmlWriter& w) {
    if (!started_) {
      started_ = true;
      OpenMultistatus(w);
      NUBO_RETURN_IF_ERROR(WriteTarget(w));
      if (!members_ || !ListsObjects()) {
        NUBO_RETURN_IF_ERROR(WriteFixedMembers(w));
        w.Close();
        return true;
      }
      return false;
    }
    // A store's objects, one page per call.
    if (store_href_.empty()) store_href_ = StoreHref(*c_.target.owner, *c_.target.collection);
    NUBO_ASSIGN_OR_RETURN(
        size_t seen, c_.gw.ScanObjects(c_.who(), *c_.target.collection, after_, kPage,
                                       NeedsData(pr_), [&](const meta::DavObjectRow& o) {
                                         WriteResponse(
                                             w, MemberEnv(c_, ObjectKind(), o, store_href_), pr_);
                                         after_ = o.name;
                                         return Status::Ok();
                                       }));
    if (seen < kPage) {
      w.Close();
      return true;
    }
    return false;
  }

 private:
  bool ListsObjects() const { return IsStore(c_.target.kind); }
  Res ObjectKind() const { return MemberKind(c_.target.kind); }

  Status WriteTarget(XmlWriter& w) {
    const Target& t = c_.target;
    PropEnv env{c_, t.kind, TargetHref(c_)};
    if (t.owner) env.owner = &*t.owner;
    if (t.collection) env.collection = &*t.collection;
    if (t.object) env.object = &*t.object;
    std::vector<meta::DavDeadProp> dead;
    if (IsStore(t.kind)) {
      NUBO_ASSIGN_OR_RETURN(dead, c_.gw.DeadProps(c_.who(), *t.collection));
      env.dead = &dead;
    }
    WriteResponse(w, env, pr_);
    return Status::Ok();
  }

  Status WriteFixedMembers(XmlWriter& w) {
    if (!members_) return Status::Ok();
    if (IsHome(c_.target.kind)) {
      NUBO_ASSIGN_OR_RETURN(auto stores, c_.gw.List(c_.who(), *c_.target.owner, c_.store_kind()));
      for (const auto& s : stores) {
        PropEnv env{c_, c_.target.kind == Res::kCalendarHome ? Res::kCalendar : Res::kBook,
                    StoreHref(*c_.target.owner, s)};
        env.owner = &*c_.target.owner;
        env.collection = &s;
        NUBO_ASSIGN_OR_RETURN(auto dead, c_.gw.DeadProps(c_.who(), s));
        env.dead = &dead;
        WriteResponse(w, env, pr_);
      }
      if (c_.target.kind != Res::kCalendarHome) return Status::Ok();
      // RFC 6638 §2: the schedule inbox and outbox live in the calendar home.
      for (auto kind : {groupware::Kind::kInbox, groupware::Kind::kOutbox}) {
        NUBO_ASSIGN_OR_RETURN(auto box, c_.gw.Box(c_.who(), *c_.target.owner, kind));
        PropEnv env{c_, kind == groupware::Kind::kInbox ? Res::kInbox : Res::kOutbox,
                    StoreHref(*c_.target.owner, box)};
        env.owner = &*c_.target.owner;
        env.collection = &box;
        WriteResponse(w, env, pr_);
      }
      return Status::Ok();
    }
    std::optional<meta::UserRow> me;
    for (const Child& ch : FixedChildren(c_)) {
      PropEnv env{c_, ch.kind, ch.href};
      if (ch.kind == Res::kPrincipal || IsHome(ch.kind)) {
        if (!me) {
          NUBO_ASSIGN_OR_RETURN(me, c_.gw.Home(c_.who(), c_.who().username));
        }
        env.owner = &*me;
      }
      WriteResponse(w, env, pr_);
    }
    return Status::Ok();
  }

  const GContext c_;  // a copy: the body is read after the handler returned
  PropRequest pr_;
  const bool members_;
  bool started_ = false;
  std::string after_;
  std::string store_href_;
};

}  // namespace

http::Response HandlePropfind(GContext& c) {
  if (!c.target.exists) return http::Response::Text(404, "no such collection or object\n");
  auto depth = dav::ParseDepth(c.req.headers.Get("Depth"), dav::Depth::kInfinity);
  if (!depth.ok()) return http::Response::Text(400, "bad Depth header\n");
  if (*depth == dav::Depth::kInfinity) {
    return Precondition(403, dav::kDavNs, "propfind-finite-depth");
  }
  PropRequest pr;
  if (!c.req.body.empty()) {
    auto doc = dav::ParseXml(c.req.body);
    if (!doc.ok()) return http::Response::Text(400, doc.status().message() + "\n");
    if (doc->ns != dav::kDavNs || doc->name != "propfind") {
      return http::Response::Text(400, "the body must be a DAV:propfind\n");
    }
    auto r = ReadPropRequest(*doc);
    if (!r.ok()) return http::Response::Text(400, r.status().message() + "\n");
    pr = std::move(*r);
  }
  auto state = std::make_shared<Propfind>(c, std::move(pr), *depth == dav::Depth::kOne);
  http::Response r = MultistatusResponse([state](XmlWriter& w) { return state->Produce(w); });
  if (*depth == dav::Depth::kZero || IsObject(c.target.kind)) {
    // One response (a client's poll of a collection's ctag): written here,
    // already on the blocking pool, and sent whole.
    auto body = static_cast<PagedSource*>(r.source.get())->Drain();
    if (!body.ok()) {
      return http::Response::Text(http::HttpStatusFor(body.status().code()),
                                  body.status().message() + "\n");
    }
    r.source.reset();
    r.body = std::move(*body);
  }
  return r;
}

}  // namespace nubo::groupdav
