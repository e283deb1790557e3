#include "groupdav/props.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "dav/request_headers.h"
#include "http/status_map.h"
#include "util/time.h"

namespace nubo::groupdav {

struct LiveProp {
  std::string_view ns;
  std::string_view name;
  bool in_allprop;
  bool (*applies)(const PropEnv&);
  void (*write)(dav::XmlWriter&, const PropEnv&);
};

namespace {

using dav::kDavNs;
using dav::XmlElement;
using dav::XmlWriter;

bool IsCalendarSide(Res r) {
  return r == Res::kCalendarHome || r == Res::kCalendar || r == Res::kCalendarObject ||
         r == Res::kInbox || r == Res::kOutbox || r == Res::kBoxObject;
}

void Href(XmlWriter& w, std::string_view ns, std::string_view name, const std::string& href) {
  w.Open(ns, name);
  w.Leaf(kDavNs, "href", href);
  w.Close();
}

bool Always(const PropEnv&) { return true; }
bool OnStore(const PropEnv& e) { return IsStore(e.kind); }
bool OnCalendar(const PropEnv& e) { return e.kind == Res::kCalendar; }
bool OnBook(const PropEnv& e) { return e.kind == Res::kBook; }
bool OnObject(const PropEnv& e) { return IsObject(e.kind) && e.object; }
bool OnPrincipal(const PropEnv& e) { return e.kind == Res::kPrincipal && e.owner; }
bool HasOwner(const PropEnv& e) { return e.owner != nullptr && e.kind != Res::kPrincipal; }
// A store or object the caller reaches through a share (not its own).
bool Shared(const PropEnv& e) { return e.collection && !e.collection->mount_name.empty(); }
bool OwnStore(const PropEnv& e) {
  return IsStore(e.kind) && e.collection && e.collection->user_id == e.c.who().user_id &&
         (e.kind == Res::kCalendar || e.kind == Res::kBook);
}
bool NamedStoreOrPrincipal(const PropEnv& e) { return IsStore(e.kind) || OnPrincipal(e); }

std::string PrincipalName(const meta::UserRow& u) {
  return u.display_name.empty() ? u.username : u.display_name;
}

void WriteResourceType(XmlWriter& w, const PropEnv& e) {
  if (IsObject(e.kind)) {
    w.Empty(kDavNs, "resourcetype");
    return;
  }
  w.Open(kDavNs, "resourcetype");
  if (e.kind == Res::kPrincipal) {
    w.Empty(kDavNs, "principal");
  } else {
    w.Empty(kDavNs, "collection");
  }
  if (e.kind == Res::kCalendar) w.Empty(kCalNs, "calendar");
  if (e.kind == Res::kBook) w.Empty(kCardNs, "addressbook");
  if (e.kind == Res::kInbox) w.Empty(kCalNs, "schedule-inbox");
  if (e.kind == Res::kOutbox) w.Empty(kCalNs, "schedule-outbox");
  w.Close();
}

void WriteDisplayName(XmlWriter& w, const PropEnv& e) {
  if (e.kind == Res::kPrincipal) {
    w.Leaf(kDavNs, "displayname", PrincipalName(*e.owner));
    return;
  }
  const auto& c = *e.collection;
  w.Leaf(kDavNs, "displayname", c.display_name.empty() ? c.name : c.display_name);
}

// RFC 3744 §5.4: what the caller may do, from authz (owners hold all).
void WritePrivileges(XmlWriter& w, const PropEnv& e) {
  w.Open(kDavNs, "current-user-privilege-set");
  auto priv = [&](std::string_view ns, std::string_view name) {
    w.Open(kDavNs, "privilege");
    w.Empty(ns, name);
    w.Close();
  };
  priv(kDavNs, "read");
  priv(kDavNs, "read-current-user-privilege-set");
  if (Shared(e)) {
    // A share gives the objects, read-write or read-only; the collection's
    // properties and its deletion stay the owner's.
    if (!e.collection->shared_read_only) {
      priv(kDavNs, "write-content");
      priv(kDavNs, "bind");
      priv(kDavNs, "unbind");
    }
    if (IsCalendarSide(e.kind)) priv(kCalNs, "read-free-busy");
    w.Close();
    return;
  }
  const bool writable = e.owner && e.owner->id == e.c.who().user_id && e.kind != Res::kPrincipal;
  if (writable) {
    priv(kDavNs, "all");
    priv(kDavNs, "write");
    priv(kDavNs, "write-properties");
    priv(kDavNs, "write-content");
    priv(kDavNs, "bind");
    priv(kDavNs, "unbind");
  }
  if (IsCalendarSide(e.kind)) priv(kCalNs, "read-free-busy");
  w.Close();
}

void WriteInvite(XmlWriter& w, const PropEnv& e) {
  w.Open(kOcNs, "invite");
  auto shares = e.c.gw.Shares(e.c.who(), *e.collection);
  if (shares.ok()) {
    for (const meta::DavShareRow& s : *shares) {
      w.Open(kOcNs, "user");
      // The name percent-encoded as in a principal's path (a group's may
      // hold spaces); share.cc decodes it back.
      w.Leaf(kDavNs, "href",
             std::string("principal:principals/") + (s.is_group ? "groups/" : "users/") +
                 dav::EncodeSegment(s.grantee_name));
      w.Leaf(kOcNs, "common-name", s.display_name.empty() ? s.grantee_name : s.display_name);
      w.Empty(kOcNs, "invite-accepted");
      w.Open(kOcNs, "access");
      w.Empty(kOcNs, s.read_only ? "read" : "read-write");
      w.Close();
      w.Close();
    }
  }
  w.Close();
}

void WriteReports(XmlWriter& w, const PropEnv& e) {
  w.Open(kDavNs, "supported-report-set");
  auto report = [&](std::string_view ns, std::string_view name) {
    w.Open(kDavNs, "supported-report");
    w.Open(kDavNs, "report");
    w.Empty(ns, name);
    w.Close();
    w.Close();
  };
  if (e.kind == Res::kCalendar) {
    report(kCalNs, "calendar-query");
    report(kCalNs, "calendar-multiget");
    report(kCalNs, "free-busy-query");
  }
  if (e.kind == Res::kBook) {
    report(kCardNs, "addressbook-query");
    report(kCardNs, "addressbook-multiget");
  }
  if (e.kind == Res::kInbox) report(kCalNs, "calendar-multiget");
  if (IsStore(e.kind)) report(kDavNs, "sync-collection");
  w.Close();
}

void WriteComponents(XmlWriter& w, const PropEnv& e) {
  w.Open(kCalNs, "supported-calendar-component-set");
  const uint32_t bits = e.collection->components;
  const std::pair<uint32_t, const char*> all[] = {{groupware::kCompEvent, "VEVENT"},
                                                  {groupware::kCompTodo, "VTODO"},
                                                  {groupware::kCompJournal, "VJOURNAL"},
                                                  {groupware::kCompFreeBusy, "VFREEBUSY"}};
  // The writer has no attributes; the multistatus binds the "C" prefix
  // (OpenMultistatus), and the names are ours.
  for (const auto& [bit, name] : all) {
    if ((bits & bit) != 0) w.Raw(std::string("<C:comp name=\"") + name + "\"/>");
  }
  w.Close();
}

void WriteCalendarData(XmlWriter& w, const PropEnv& e);
void WriteAddressData(XmlWriter& w, const PropEnv& e) {
  w.Leaf(kCardNs, "address-data", e.object->data);
}

std::string ContentType(const PropEnv& e) { return ObjectContentType(e.kind, e.object->component); }

const std::vector<LiveProp>& Table() {
  static const std::vector<LiveProp> kProps = {
      {kDavNs, "resourcetype", true, Always, WriteResourceType},
      {kDavNs, "displayname", true, NamedStoreOrPrincipal, WriteDisplayName},
      {kDavNs, "current-user-principal", false, Always,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kDavNs, "current-user-principal", PrincipalHref(e.c.who().username));
       }},
      {kDavNs, "principal-URL", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kDavNs, "principal-URL", PrincipalHref(e.owner->username));
       }},
      {kDavNs, "principal-collection-set", false, Always,
       [](XmlWriter& w, const PropEnv&) {
         Href(w, kDavNs, "principal-collection-set", std::string(kRootPath) + "/principals/");
       }},
      {kDavNs, "owner", false, HasOwner,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kDavNs, "owner",
              PrincipalHref(Shared(e) ? e.collection->owner_name : e.owner->username));
       }},
      // Nextcloud's sharing properties: who the owner shares a collection
      // with (oc:invite), and whose a shared one is (oc:owner-principal).
      {kOcNs, "invite", false, OwnStore, WriteInvite},
      {kOcNs, "owner-principal", false, Shared,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kOcNs, "owner-principal", "principals/users/" + e.collection->owner_name);
       }},
      {kDavNs, "current-user-privilege-set", false, Always, WritePrivileges},
      {kDavNs, "supported-report-set", false, Always, WriteReports},
      {kCalNs, "calendar-home-set", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kCalNs, "calendar-home-set", CalendarHomeHref(e.owner->username));
       }},
      {kCardNs, "addressbook-home-set", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kCardNs, "addressbook-home-set", BookHomeHref(e.owner->username));
       }},
      {kCalNs, "calendar-user-address-set", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv& e) {
         w.Open(kCalNs, "calendar-user-address-set");
         if (e.owner->email && !e.owner->email->empty()) {
           w.Leaf(kDavNs, "href", "mailto:" + *e.owner->email);
         }
         w.Leaf(kDavNs, "href", PrincipalHref(e.owner->username));
         w.Close();
       }},
      // RFC 6638 §2.1, §2.2, §9.2.
      {kCalNs, "schedule-inbox-URL", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kCalNs, "schedule-inbox-URL", CalendarHomeHref(e.owner->username) + "inbox/");
       }},
      {kCalNs, "schedule-outbox-URL", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kCalNs, "schedule-outbox-URL", CalendarHomeHref(e.owner->username) + "outbox/");
       }},
      {kCalNs, "schedule-default-calendar-URL", false,
       [](const PropEnv& e) { return e.kind == Res::kInbox && e.owner; },
       [](XmlWriter& w, const PropEnv& e) {
         Href(w, kCalNs, "schedule-default-calendar-URL",
              CalendarHomeHref(e.owner->username) +
                  dav::EncodeSegment(e.c.gw.options().default_calendar) + "/");
       }},
      {kCalNs, "calendar-user-type", false, OnPrincipal,
       [](XmlWriter& w, const PropEnv&) { w.Leaf(kCalNs, "calendar-user-type", "INDIVIDUAL"); }},
      {kCalNs, "supported-calendar-component-set", false, OnCalendar, WriteComponents},
      {kCalNs, "supported-calendar-data", false, OnCalendar,
       [](XmlWriter& w, const PropEnv&) {
         w.Open(kCalNs, "supported-calendar-data");
         w.Raw("<C:calendar-data content-type=\"text/calendar\" version=\"2.0\"/>");
         w.Close();
       }},
      {kCardNs, "supported-address-data", false, OnBook,
       [](XmlWriter& w, const PropEnv&) {
         w.Open(kCardNs, "supported-address-data");
         w.Raw(
             "<CR:address-data-type content-type=\"text/vcard\" version=\"3.0\"/>"
             "<CR:address-data-type content-type=\"text/vcard\" version=\"4.0\"/>");
         w.Close();
       }},
      {kCalNs, "max-resource-size", false, OnCalendar,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kCalNs, "max-resource-size", std::to_string(e.c.gw.options().max_object_size));
       }},
      {kCardNs, "max-resource-size", false, OnBook,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kCardNs, "max-resource-size", std::to_string(e.c.gw.options().max_object_size));
       }},
      {kCalNs, "calendar-description", false, OnCalendar,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kCalNs, "calendar-description", e.collection->description);
       }},
      {kCardNs, "addressbook-description", false, OnBook,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kCardNs, "addressbook-description", e.collection->description);
       }},
      {kCalNs, "calendar-timezone", false,
       [](const PropEnv& e) { return OnCalendar(e) && !e.collection->timezone.empty(); },
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kCalNs, "calendar-timezone", e.collection->timezone);
       }},
      {kAppleNs, "calendar-color", false,
       [](const PropEnv& e) { return OnCalendar(e) && !e.collection->color.empty(); },
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kAppleNs, "calendar-color", e.collection->color);
       }},
      {kAppleNs, "calendar-order", false, OnCalendar,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kAppleNs, "calendar-order", std::to_string(e.collection->sort_order));
       }},
      {kCsNs, "getctag", false, OnStore,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kCsNs, "getctag", "\"" + std::to_string(e.collection->sync_seq) + "\"");
       }},
      {kDavNs, "sync-token", false, OnStore,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kDavNs, "sync-token", SyncToken(*e.collection));
       }},
      {kDavNs, "getetag", true, OnObject,
       [](XmlWriter& w, const PropEnv& e) { w.Leaf(kDavNs, "getetag", e.object->etag); }},
      {kDavNs, "getcontenttype", true, OnObject,
       [](XmlWriter& w, const PropEnv& e) { w.Leaf(kDavNs, "getcontenttype", ContentType(e)); }},
      {kDavNs, "getcontentlength", true, OnObject,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kDavNs, "getcontentlength", std::to_string(e.object->size));
       }},
      {kDavNs, "getlastmodified", true, OnObject,
       [](XmlWriter& w, const PropEnv& e) {
         w.Leaf(kDavNs, "getlastmodified",
                FormatHttpDate(static_cast<std::time_t>(e.object->mtime_ms / 1000)));
       }},
      {kCalNs, "calendar-data", false,
       [](const PropEnv& e) {
         return (e.kind == Res::kCalendarObject || e.kind == Res::kBoxObject) && e.object;
       },
       WriteCalendarData},
      {kCardNs, "address-data", false,
       [](const PropEnv& e) { return e.kind == Res::kCard && e.object; }, WriteAddressData},
  };
  return kProps;
}

const LiveProp* Find(std::string_view ns, std::string_view name) {
  for (const LiveProp& p : Table()) {
    if (p.ns == ns && p.name == name) return &p;
  }
  return nullptr;
}

const meta::DavDeadProp* FindDead(const PropEnv& e, std::string_view ns, std::string_view name) {
  if (!e.dead) return nullptr;
  for (const auto& d : *e.dead) {
    if (d.ns == ns && d.name == name) return &d;
  }
  return nullptr;
}

void WriteDead(XmlWriter& w, const meta::DavDeadProp& d) {
  w.Open(d.ns, d.name);
  w.Raw(d.value);
  w.Close();
}

const char* StatusLine(int status) {
  switch (status) {
    case 200:
      return "HTTP/1.1 200 OK";
    case 403:
      return "HTTP/1.1 403 Forbidden";
    case 404:
      return "HTTP/1.1 404 Not Found";
    case 424:
      return "HTTP/1.1 424 Failed Dependency";
    case 507:
      return "HTTP/1.1 507 Insufficient Storage";
    default:
      return "HTTP/1.1 500 Internal Server Error";
  }
}

void WriteCalendarData(XmlWriter& w, const PropEnv& e) {
  const PropRequest* pr = e.request;
  if (pr && pr->expand) {
    auto x = groupware::ExpandCalendarObject(e.object->data, *pr->expand,
                                             e.collection ? e.collection->timezone : "");
    if (x.ok()) {
      w.Leaf(kCalNs, "calendar-data", *x);
      return;
    }
  }
  if (pr && pr->limit_recurrence) {
    auto x = groupware::LimitRecurrenceSet(e.object->data, *pr->limit_recurrence);
    if (x.ok()) {
      w.Leaf(kCalNs, "calendar-data", *x);
      return;
    }
  }
  w.Leaf(kCalNs, "calendar-data", e.object->data);
}

Result<groupware::TimeRange> ReadRange(const XmlElement& el) {
  groupware::TimeRange r;
  for (const auto& [k, v] : el.attrs) {
    auto t = groupware::ParseUtcDateTime(v);
    if (!t) return Status::InvalidArgument("a time range needs UTC date-times");
    if (k == "start") r.start_ms = *t;
    if (k == "end") r.end_ms = *t;
  }
  if (!r.start_ms || !r.end_ms) {
    return Status::InvalidArgument("expand and limit-recurrence-set need start and end");
  }
  return r;
}

}  // namespace

std::string ObjectContentType(Res kind, std::string_view component) {
  if (kind == Res::kCard) return "text/vcard; charset=utf-8";
  std::string out = "text/calendar; charset=utf-8; component=";
  for (char ch : component) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

PropEnv MemberEnv(const GContext& c, Res kind, const meta::DavObjectRow& o) {
  return MemberEnv(c, kind, o, StoreHref(*c.target.owner, *c.target.collection));
}

PropEnv MemberEnv(const GContext& c, Res kind, const meta::DavObjectRow& o,
                  std::string_view store_href) {
  PropEnv env{c, kind, MemberHref(store_href, o.name)};
  env.owner = &*c.target.owner;
  env.collection = &*c.target.collection;
  env.object = &o;
  return env;
}

bool NeedsData(const PropRequest& pr) {
  for (const auto& [ns, name, live] : pr.props) {
    if ((ns == kCalNs && name == "calendar-data") || (ns == kCardNs && name == "address-data")) {
      return true;
    }
  }
  return false;
}

Result<PropRequest> ReadPropRequest(const XmlElement& parent) {
  PropRequest pr;
  for (const XmlElement& ch : parent.children) {
    if (ch.ns != kDavNs) continue;
    if (ch.name == "allprop") pr.kind = PropRequest::Kind::kAllprop;
    if (ch.name == "propname") pr.kind = PropRequest::Kind::kPropname;
    if (ch.name != "prop") continue;
    pr.kind = PropRequest::Kind::kProp;
    for (const XmlElement& p : ch.children) {
      pr.props.push_back({p.ns, p.name, Find(p.ns, p.name)});
      if (p.ns != kCalNs || p.name != "calendar-data") continue;
      if (const XmlElement* x = p.Child(kCalNs, "expand")) {
        NUBO_ASSIGN_OR_RETURN(pr.expand, ReadRange(*x));
      }
      if (const XmlElement* x = p.Child(kCalNs, "limit-recurrence-set")) {
        NUBO_ASSIGN_OR_RETURN(pr.limit_recurrence, ReadRange(*x));
      }
    }
  }
  return pr;
}

void OpenMultistatus(XmlWriter& w) {
  w.Open(kDavNs, "multistatus",
         {{"d", std::string(kDavNs)},
          {"C", std::string(kCalNs)},
          {"CR", std::string(kCardNs)},
          {"cs", std::string(kCsNs)},
          {"oc", std::string(kOcNs)}});
}

void WriteStatusResponse(XmlWriter& w, std::string_view href, int status) {
  w.Open(kDavNs, "response");
  w.Leaf(kDavNs, "href", href);
  w.Leaf(kDavNs, "status", StatusLine(status));
  w.Close();
}

void WriteResponse(XmlWriter& w, PropEnv env, const PropRequest& pr) {
  env.request = &pr;
  // Every member of a listing has the same frame around its properties:
  // where the multistatus bound "d" to DAV: (OpenMultistatus), it is
  // written as text, the same bytes the elements one by one would give.
  static const std::string kOkEnd =
      std::string("</d:prop><d:status>") + StatusLine(200) + "</d:status></d:propstat>";
  const bool framed = w.Bound("d", kDavNs);
  if (framed) {
    w.Raw("<d:response><d:href>");
    dav::AppendXmlEscaped(w.buffer(), env.href);
    w.Raw("</d:href><d:propstat><d:prop>");
  } else {
    w.Open(kDavNs, "response");
    w.Leaf(kDavNs, "href", env.href);
    w.Open(kDavNs, "propstat");
    w.Open(kDavNs, "prop");
  }
  std::vector<std::pair<std::string_view, std::string_view>> missing;
  if (pr.kind == PropRequest::Kind::kProp) {
    for (const auto& [ns, name, p] : pr.props) {
      if (p && p->applies(env)) {
        p->write(w, env);
      } else if (const meta::DavDeadProp* d = FindDead(env, ns, name); d && !p) {
        WriteDead(w, *d);
      } else {
        missing.emplace_back(ns, name);
      }
    }
  } else {
    const bool names = pr.kind == PropRequest::Kind::kPropname;
    for (const LiveProp& p : Table()) {
      if (!p.applies(env) || (!names && !p.in_allprop)) continue;
      if (names) {
        w.Empty(p.ns, p.name);
      } else {
        p.write(w, env);
      }
    }
    if (env.dead) {
      for (const auto& d : *env.dead) {
        if (names) {
          w.Empty(d.ns, d.name);
        } else {
          WriteDead(w, d);
        }
      }
    }
  }
  if (framed) {
    w.Raw(kOkEnd);
  } else {
    w.Close();
    w.Leaf(kDavNs, "status", StatusLine(200));
    w.Close();
  }
  if (!missing.empty()) {
    w.Open(kDavNs, "propstat");
    w.Open(kDavNs, "prop");
    for (const auto& [ns, name] : missing) w.Empty(ns, name);
    w.Close();
    w.Leaf(kDavNs, "status", StatusLine(404));
    w.Close();
  }
  if (framed) {
    w.Raw("</d:response>");
  } else {
    w.Close();
  }
}

Result<size_t> PagedSource::Read(char* buf, size_t cap) {
  std::string& out = w_.buffer();
  size_t n = 0;
  while (n < cap) {
    if (pos_ == out.size()) {
      out.clear();
      pos_ = 0;
      if (done_) break;
      NUBO_ASSIGN_OR_RETURN(done_, produce_(w_));
      continue;
    }
    const size_t take = std::min(cap - n, out.size() - pos_);
    std::memcpy(buf + n, out.data() + pos_, take);
    n += take;
    pos_ += take;
  }
  return n;
}

Result<std::string> PagedSource::Drain() {
  while (!done_) {
    NUBO_ASSIGN_OR_RETURN(done_, produce_(w_));
  }
  return std::move(w_.buffer());
}

http::Response MultistatusResponse(PagedSource::Producer produce) {
  http::Response r;
  r.status = 207;
  r.headers.Set("Content-Type", "application/xml; charset=utf-8");
  r.source = std::make_unique<PagedSource>(std::move(produce));
  return r;
}

}  // namespace nubo::groupdav
