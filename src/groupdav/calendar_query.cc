// RFC 4791 §7.8 calendar-query: the objects of a calendar matching a
// filter (§9.7), with the properties asked for. The outermost time range
// narrows the candidates through the index of instance spans (an index
// scan); each candidate is then checked exactly, recurrences expanded.
#include "groupdav/filters.h"
#include "groupdav/props.h"
#include "groupdav/report.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;
using dav::XmlElement;

constexpr size_t kPage = 500;

// The range that bounds every match: a time range on a first-level
// comp-filter (VEVENT, VTODO…) that is the only one.
std::optional<groupware::TimeRange> IndexRange(const groupware::CompFilter& root) {
  if (root.comps.size() != 1) return std::nullopt;
  const auto& f = root.comps[0];
  if (f.is_not_defined || !f.time_range) return std::nullopt;
  return f.time_range;
}

class Query {
 public:
  Query(const GContext& c, PropRequest pr, groupware::CompFilter filter)
      : c_(c), pr_(std::move(pr)), filter_(std::move(filter)), range_(IndexRange(filter_)) {}

  Result<bool> Produce(dav::XmlWriter& w) {
    if (!started_) {
      started_ = true;
      OpenMultistatus(w);
      if (c_.target.kind == Res::kCalendarObject) {
        Emit(w, *c_.target.object);
        w.Close();
        return true;
      }
    }
    std::vector<meta::DavObjectRow> page;
    if (range_) {
      NUBO_ASSIGN_OR_RETURN(page,
                            c_.gw.ObjectsInRange(c_.who(), *c_.target.collection, range_->start_ms,
                                                 range_->end_ms, after_, kPage));
    } else {
      NUBO_ASSIGN_OR_RETURN(
          page, c_.gw.ListObjects(c_.who(), *c_.target.collection, after_, kPage, true));
    }
    for (const auto& o : page) Emit(w, o);
    if (page.size() < kPage) {
      w.Close();
      return true;
    }
    after_ = page.back().name;
    return false;
  }

 private:
  void Emit(dav::XmlWriter& w, const meta::DavObjectRow& o) {
    if (!groupware::MatchesCalendarFilter(o.data, filter_, c_.target.collection->timezone)) {
      return;
    }
    WriteResponse(w, MemberEnv(c_, Res::kCalendarObject, o), pr_);
  }

  const GContext c_;
  PropRequest pr_;
  groupware::CompFilter filter_;
  std::optional<groupware::TimeRange> range_;
  bool started_ = false;
  std::string after_;
};

}  // namespace

http::Response CalendarQuery(GContext& c, const XmlElement& root) {
  auto pr = ReadPropRequest(root);
  if (!pr.ok()) return Precondition(400, kCalNs, "valid-filter");
  auto f = ReadCalendarFilter(root);
  if (!f.ok()) return Precondition(403, kCalNs, f.status().message());
  auto q = std::make_shared<Query>(c, std::move(*pr), std::move(*f));
  return MultistatusResponse([q](dav::XmlWriter& w) { return q->Produce(w); });
}

}  // namespace nubo::groupdav
