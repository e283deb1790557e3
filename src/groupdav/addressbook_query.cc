// RFC 6352 §8.6 addressbook-query: the vCards of an address book matching
// a filter (§10.5), at most CR:limit of them (§8.6.1: then 507 on the
// request URI says the answer was truncated). A query without a filter
// test that asks no address-data never parses a card.
#include "groupdav/filters.h"
#include "groupdav/props.h"
#include "groupdav/report.h"
#include "groupware/vcard.h"
#include "util/strings.h"

namespace nubo::groupdav {

namespace {

using dav::XmlElement;

constexpr size_t kPage = 1000;

class Query {
 public:
  Query(const GContext& c, PropRequest pr, groupware::CardFilter f, std::optional<size_t> limit)
      : c_(c), pr_(std::move(pr)), filter_(std::move(f)), limit_(limit) {
    need_data_ = NeedsData(pr_) || !filter_.props.empty();
    if (c_.target.kind != Res::kCard)
      store_href_ = StoreHref(*c_.target.owner, *c_.target.collection);
  }

  Result<bool> Produce(dav::XmlWriter& w) {
    if (!started_) {
      started_ = true;
      OpenMultistatus(w);
      if (c_.target.kind == Res::kCard) {
        if (Matches(*c_.target.object)) Write(w, *c_.target.object);
        w.Close();
        return true;
      }
    }
    bool truncated = false;
    auto seen = c_.gw.ScanObjects(c_.who(), *c_.target.collection, after_, kPage, need_data_,
                                  [&](const meta::DavObjectRow& o) {
                                    after_ = o.name;
                                    if (!Matches(o)) return Status::Ok();
                                    if (limit_ && sent_ == *limit_) {
                                      truncated = true;  // the rest is not read
                                      return Status::Aborted("limit reached");
                                    }
                                    Write(w, o);
                                    return Status::Ok();
                                  });
    if (truncated) {
      // §8.6.1: more cards matched than the client's limit.
      WriteStatusResponse(w, TargetHref(c_), 507);
      w.Close();
      return true;
    }
    if (!seen.ok()) return seen.status();
    if (*seen < kPage) {
      w.Close();
      return true;
    }
    return false;
  }

 private:
  bool Matches(const meta::DavObjectRow& o) const {
    if (filter_.props.empty()) return true;
    auto card = groupware::ParseVCard(o.data);
    return card.ok() && groupware::MatchesCardFilter(*card, filter_);
  }

  void Write(dav::XmlWriter& w, const meta::DavObjectRow& o) {
    WriteResponse(w,
                  c_.target.kind == Res::kCard ? MemberEnv(c_, Res::kCard, o)
                                               : MemberEnv(c_, Res::kCard, o, store_href_),
                  pr_);
    ++sent_;
  }

  const GContext c_;
  PropRequest pr_;
  groupware::CardFilter filter_;
  std::optional<size_t> limit_;
  bool need_data_ = false;
  bool started_ = false;
  size_t sent_ = 0;
  std::string after_;
  std::string store_href_;
};

}  // namespace

http::Response AddressbookQuery(GContext& c, const XmlElement& root) {
  auto pr = ReadPropRequest(root);
  if (!pr.ok()) return http::Response::Text(400, pr.status().message() + "\n");
  auto f = ReadCardFilter(root);
  if (!f.ok()) return Precondition(403, kCardNs, f.status().message());
  std::optional<size_t> limit;
  if (const XmlElement* l = root.Child(kCardNs, "limit")) {
    const XmlElement* n = l->Child(kCardNs, "nresults");
    if (n)
      limit = static_cast<size_t>(std::strtoull(std::string(Trim(n->text)).c_str(), nullptr, 10));
  }
  auto q = std::make_shared<Query>(c, std::move(*pr), std::move(*f), limit);
  return MultistatusResponse([q](dav::XmlWriter& w) { return q->Produce(w); });
}

}  // namespace nubo::groupdav
