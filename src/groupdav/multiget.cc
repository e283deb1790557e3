// RFC 4791 §7.9 calendar-multiget and RFC 6352 §8.7 addressbook-multiget:
// the objects named by hrefs, each answered on its own (404 for a name the
// collection does not hold, and for an href outside it — which is how a
// second user's objects answer too).
#include "dav/request_headers.h"
#include "groupdav/props.h"
#include "groupdav/report.h"
#include "util/strings.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;
using dav::XmlElement;

// RFC 4791 §7.9: at most this many hrefs in one request (the body limit
// bounds it too); clients ask in batches of tens to hundreds.
constexpr size_t kMaxHrefs = 10000;

class Multi {
 public:
  Multi(const GContext& c, PropRequest pr, std::vector<std::string> hrefs)
      : c_(c), pr_(std::move(pr)), hrefs_(std::move(hrefs)) {}

  Result<bool> Produce(dav::XmlWriter& w) {
    if (next_ == 0) {
      OpenMultistatus(w);
      store_href_ = StoreHref(*c_.target.owner, *c_.target.collection);
    }
    // A batch of hrefs is looked up in one read.
    const size_t end = std::min(hrefs_.size(), next_ + 200);
    std::vector<std::string> names;
    names.reserve(end - next_);
    for (size_t i = next_; i < end; ++i) names.push_back(NameOf(hrefs_[i]));
    const Res store = IsObject(c_.target.kind) ? Res::kCalendar : c_.target.kind;
    const Res member = c_.target.kind == Res::kCard ? Res::kCard : MemberKind(store);
    Status st = c_.gw.GetObjects(c_.who(), *c_.target.collection, names,
                                 [&](size_t i, const meta::DavObjectRow* o) {
                                   if (o) {
                                     WriteResponse(w, MemberEnv(c_, member, *o, store_href_), pr_);
                                   } else {
                                     WriteStatusResponse(w, hrefs_[next_ + i], 404);
                                   }
                                   return Status::Ok();
                                 });
    if (st.code() == Code::kNotFound) {
      // Not the caller's collection (any more): every href answers 404.
      for (size_t i = next_; i < end; ++i) WriteStatusResponse(w, hrefs_[i], 404);
    } else if (!st.ok()) {
      return st;
    }
    next_ = end;
    if (next_ < hrefs_.size()) return false;
    w.Close();
    return true;
  }

 private:
  // The object name an href names inside the target's store, or "".
  std::string NameOf(const std::string& href) const {
    auto d = dav::ParseDestination(href, c_.req.headers.Get("Host").value_or(""));
    if (!d.ok()) return "";
    const auto& segs = d->segments;
    std::string prefix;
    for (size_t i = 0; i + 1 < segs.size(); ++i) {
      prefix += '/';
      dav::AppendEncodedSegment(prefix, segs[i]);
    }
    prefix += '/';
    if (segs.empty() || prefix != store_href_) return "";
    return segs.back();
  }

  const GContext c_;
  PropRequest pr_;
  std::vector<std::string> hrefs_;
  size_t next_ = 0;
  std::string store_href_;
};

}  // namespace

http::Response Multiget(GContext& c, const XmlElement& root) {
  auto pr = ReadPropRequest(root);
  if (!pr.ok()) return http::Response::Text(400, pr.status().message() + "\n");
  std::vector<std::string> hrefs;
  for (const XmlElement& ch : root.children) {
    if (ch.ns == kDavNs && ch.name == "href") hrefs.emplace_back(Trim(ch.text));
  }
  if (hrefs.size() > kMaxHrefs) return http::Response::Text(413, "too many hrefs\n");
  auto m = std::make_shared<Multi>(c, std::move(*pr), std::move(hrefs));
  return MultistatusResponse([m](dav::XmlWriter& w) { return m->Produce(w); });
}

}  // namespace nubo::groupdav
