// RFC 6578 sync-collection on a calendar or an address book: the members
// changed or removed since a sync token, oldest change first, and the new
// token. The token is the sequence number of the last change reported, so
// a response cut by DAV:limit (§3.6, then 507 on the request URI) or read
// page by page resumes exactly where it stopped; an empty token is the
// initial sync (members only, §3.8).
#include "groupdav/props.h"
#include "groupdav/report.h"
#include "util/strings.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;
using dav::XmlElement;

constexpr size_t kPage = 500;

class Sync {
 public:
  Sync(const GContext& c, PropRequest pr, int64_t since, std::optional<size_t> limit)
      : c_(c), pr_(std::move(pr)), since_(since), initial_(since == 0), limit_(limit) {
    need_data_ = NeedsData(pr_);
    store_href_ = StoreHref(*c_.target.owner, *c_.target.collection);
  }

  Result<bool> Produce(dav::XmlWriter& w) {
    if (!started_) {
      started_ = true;
      OpenMultistatus(w);
    }
    if (initial_ && !limit_) return ProduceInitial(w);
    const size_t want = limit_ ? std::min(kPage, *limit_ - sent_ + 1) : kPage;
    NUBO_ASSIGN_OR_RETURN(auto page, c_.gw.Changes(c_.who(), *c_.target.collection, since_, want));
    for (const auto& ch : page) {
      if (limit_ && sent_ == *limit_) {
        WriteStatusResponse(w, TargetHref(c_), 507);
        return Finish(w);
      }
      since_ = ch.modseq;
      if (ch.deleted) {
        if (initial_) continue;
        WriteStatusResponse(w, MemberHref(store_href_, ch.name), 404);
        ++sent_;
        continue;
      }
      NUBO_RETURN_IF_ERROR(Member(w, ch));
      ++sent_;
    }
    if (page.size() < want) return Finish(w);
    return false;
  }

 private:
  // An initial sync without a limit lists the members by name, the way a
  // PROPFIND does (one index, no sort by change number), and answers the
  // token the collection had when the request was resolved: what changes
  // later has a larger number and comes with the next sync; a member
  // listed in a state newer than the token is merely sent again then.
  Result<bool> ProduceInitial(dav::XmlWriter& w) {
    NUBO_ASSIGN_OR_RETURN(
        size_t seen,
        c_.gw.ScanObjects(c_.who(), *c_.target.collection, after_, kPage, need_data_,
                          [&](const meta::DavObjectRow& o) {
                            after_ = o.name;
                            WriteResponse(
                                w, MemberEnv(c_, MemberKind(c_.target.kind), o, store_href_), pr_);
                            return Status::Ok();
                          }));
    if (seen == kPage) return false;
    since_ = c_.target.collection->sync_seq;
    return Finish(w);
  }

  Result<bool> Finish(dav::XmlWriter& w) {
    w.Leaf(kDavNs, "sync-token", SyncTokenAt(*c_.target.collection, since_));
    w.Close();
    return true;
  }

  Status Member(dav::XmlWriter& w, const meta::DavChange& ch) {
    meta::DavObjectRow& o = member_;  // reused: its strings keep their storage
    if (need_data_) {
      auto got = c_.gw.GetObject(c_.who(), *c_.target.collection, ch.name);
      if (!got.ok()) return got.status();
      o = std::move(*got);
    } else {
      o.name = ch.name;
      o.etag = ch.etag;
      o.size = ch.size;
      o.modseq = ch.modseq;
      o.component = ch.component;
      o.mtime_ms = ch.mtime_ms;
    }
    WriteResponse(w, MemberEnv(c_, MemberKind(c_.target.kind), o, store_href_), pr_);
    return Status::Ok();
  }

  const GContext c_;
  PropRequest pr_;
  int64_t since_;
  const bool initial_;
  std::optional<size_t> limit_;
  bool need_data_ = false;
  bool started_ = false;
  size_t sent_ = 0;
  std::string after_;  // the initial listing's position
  std::string store_href_;
  meta::DavObjectRow member_;
};

}  // namespace

http::Response SyncCollection(GContext& c, const XmlElement& root) {
  auto pr = ReadPropRequest(root);
  if (!pr.ok()) return http::Response::Text(400, pr.status().message() + "\n");
  const XmlElement* level = root.Child(kDavNs, "sync-level");
  if (level && Trim(level->text) != "1" && Trim(level->text) != "infinite") {
    return http::Response::Text(400, "sync-level must be 1 or infinite\n");
  }
  int64_t since = 0;
  const XmlElement* token = root.Child(kDavNs, "sync-token");
  if (token && !Trim(token->text).empty()) {
    auto seq = ParseSyncToken(token->text, *c.target.collection);
    if (!seq) return Precondition(403, kDavNs, "valid-sync-token");
    since = *seq;
  }
  // The token must be answerable now (not newer than the collection);
  // an initial sync only needs the collection visible (no change read).
  auto check = c.gw.Changes(c.who(), *c.target.collection, since, since == 0 ? 0 : 1);
  if (!check.ok()) {
    if (check.status().code() == Code::kInvalidArgument) {
      return Precondition(403, kDavNs, "valid-sync-token");
    }
    return http::Response::Text(404, "no such collection or object\n");
  }
  std::optional<size_t> limit;
  if (const XmlElement* l = root.Child(kDavNs, "limit")) {
    const XmlElement* n = l->Child(kDavNs, "nresults");
    if (n) {
      limit = static_cast<size_t>(std::strtoull(std::string(Trim(n->text)).c_str(), nullptr, 10));
    }
  }
  auto s = std::make_shared<Sync>(c, std::move(*pr), since, limit);
  return MultistatusResponse([s](dav::XmlWriter& w) { return s->Produce(w); });
}

}  // namespace nubo::groupdav
