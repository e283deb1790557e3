// RFC 4791 §7.8 calendar-query: the objects of a calendar matching a
// filter (§9.7), with the properties asked for. The outermost time range
// narrows the candidates through the index of instance spans (an index
// scan); each candidate is then checked exactly, recurrences expanded.
#include "groupdav/props.h"
#include "groupdav/report.h"

namespace nubo::groupdav {

namespace {

using dav::kDavNs;
using dav::XmlElement;
using groupware::Collation;

constexpr size_t kPage = 500;

Result<groupware::TimeRange> ReadTimeRange(const XmlElement& el) {
  groupware::TimeRange r;
  for (const auto& [k, v] : el.attrs) {
    auto t = groupware::ParseUtcDateTime(v);
    if (!t) return Status::InvalidArgument("valid-filter");
    if (k == "start") r.start_ms = *t;
    if (k == "end") r.end_ms = *t;
  }
  // §9.9: at least one of start and end.
  if (!r.start_ms && !r.end_ms) return Status::InvalidArgument("valid-filter");
  return r;
}

Result<groupware::ParamFilter> ReadParamFilter(const XmlElement& el) {
  groupware::ParamFilter f;
  for (const auto& [k, v] : el.attrs) {
    if (k == "name") f.name = UpperAscii(v);
  }
  for (const XmlElement& ch : el.children) {
    if (ch.ns != kCalNs) continue;
    if (ch.name == "is-not-defined") f.is_not_defined = true;
    if (ch.name == "text-match") {
      NUBO_ASSIGN_OR_RETURN(f.text, ReadTextMatch(ch, Collation::kAsciiCasemap));
    }
  }
  return f;
}

Result<groupware::PropFilter> ReadPropFilter(const XmlElement& el) {
  groupware::PropFilter f;
  for (const auto& [k, v] : el.attrs) {
    if (k == "name") f.name = UpperAscii(v);
  }
  for (const XmlElement& ch : el.children) {
    if (ch.ns != kCalNs) continue;
    if (ch.name == "is-not-defined") f.is_not_defined = true;
    if (ch.name == "time-range") {
      NUBO_ASSIGN_OR_RETURN(f.time_range, ReadTimeRange(ch));
    }
    if (ch.name == "text-match") {
      NUBO_ASSIGN_OR_RETURN(f.text, ReadTextMatch(ch, Collation::kAsciiCasemap));
    }
    if (ch.name == "param-filter") {
      NUBO_ASSIGN_OR_RETURN(auto p, ReadParamFilter(ch));
      f.params.push_back(std::move(p));
    }
  }
  return f;
}

Result<groupware::CompFilter> ReadCompFilter(const XmlElement& el, int depth) {
  if (depth > 8) return Status::InvalidArgument("valid-filter");
  groupware::CompFilter f;
  for (const auto& [k, v] : el.attrs) {
    if (k == "name") f.name = UpperAscii(v);
  }
  if (f.name.empty()) return Status::InvalidArgument("valid-filter");
  for (const XmlElement& ch : el.children) {
    if (ch.ns != kCalNs) continue;
    if (ch.name == "is-not-defined") f.is_not_defined = true;
    if (ch.name == "time-range") {
      NUBO_ASSIGN_OR_RETURN(f.time_range, ReadTimeRange(ch));
    }
    if (ch.name == "prop-filter") {
      NUBO_ASSIGN_OR_RETURN(auto p, ReadPropFilter(ch));
      f.props.push_back(std::move(p));
    }
    if (ch.name == "comp-filter") {
      NUBO_ASSIGN_OR_RETURN(auto sub, ReadCompFilter(ch, depth + 1));
      f.comps.push_back(std::move(sub));
    }
  }
  return f;
}

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
    PropEnv env{c_, Res::kCalendarObject,
                ObjectHref(*c_.target.owner, *c_.target.collection, o.name)};
    env.owner = &*c_.target.owner;
    env.collection = &*c_.target.collection;
    env.object = &o;
    WriteResponse(w, env, pr_);
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
  const XmlElement* filter = root.Child(kCalNs, "filter");
  const XmlElement* comp = filter ? filter->Child(kCalNs, "comp-filter") : nullptr;
  // §9.7: exactly one comp-filter, on VCALENDAR.
  if (!comp) return Precondition(403, kCalNs, "valid-filter");
  auto f = ReadCompFilter(*comp, 0);
  if (!f.ok()) return Precondition(403, kCalNs, f.status().message());
  if (f->name != "VCALENDAR") return Precondition(403, kCalNs, "valid-filter");
  auto q = std::make_shared<Query>(c, std::move(*pr), std::move(*f));
  return MultistatusResponse([q](dav::XmlWriter& w) { return q->Produce(w); });
}

}  // namespace nubo::groupdav
