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
    if (next_ == 0) OpenMultistatus(w);
    const size_t end = std::min(hrefs_.size(), next_ + 200);
    for (; next_ < end; ++next_) NUBO_RETURN_IF_ERROR(One(w, hrefs_[next_]));
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
    const std::string store = StoreHref(*c_.target.owner, *c_.target.collection);
    std::string prefix;
    for (size_t i = 0; i + 1 < segs.size(); ++i) prefix += "/" + dav::EncodeSegment(segs[i]);
    if (segs.empty() || prefix + "/" != store) return "";
    return segs.back();
  }

  Status One(dav::XmlWriter& w, const std::string& href) {
    const std::string name = NameOf(href);
    if (name.empty()) {
      WriteStatusResponse(w, href, 404);
      return Status::Ok();
    }
    auto o = c_.gw.GetObject(c_.who(), *c_.target.collection, name);
    if (!o.ok()) {
      if (o.status().code() != Code::kNotFound) return o.status();
      WriteStatusResponse(w, href, 404);
      return Status::Ok();
    }
    const Res store = IsObject(c_.target.kind) ? Res::kCalendar : c_.target.kind;
    const Res member = c_.target.kind == Res::kCard ? Res::kCard : MemberKind(store);
    WriteResponse(w, MemberEnv(c_, member, *o), pr_);
    return Status::Ok();
  }

  const GContext c_;
  PropRequest pr_;
  std::vector<std::string> hrefs_;
  size_t next_ = 0;
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
