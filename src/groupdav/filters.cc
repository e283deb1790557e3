#include "groupdav/filters.h"

#include "groupdav/context.h"

namespace nubo::groupdav {

namespace {

using dav::XmlElement;
using groupware::Collation;

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

bool AllOf(const XmlElement& el) {
  for (const auto& [k, v] : el.attrs) {
    if (k == "test") return v == "allof";
  }
  return false;
}

std::string NameAttr(const XmlElement& el) {
  for (const auto& [k, v] : el.attrs) {
    if (k == "name") return UpperAscii(v);
  }
  return "";
}

Result<groupware::CardFilter> ReadFilterElement(const XmlElement* filter) {
  groupware::CardFilter f;
  if (!filter) return f;
  f.all_of = AllOf(*filter);
  for (const XmlElement& pf : filter->children) {
    if (pf.ns != kCardNs || pf.name != "prop-filter") continue;
    groupware::CardPropFilter p;
    p.name = NameAttr(pf);
    p.all_of = AllOf(pf);
    for (const XmlElement& ch : pf.children) {
      if (ch.ns != kCardNs) continue;
      if (ch.name == "is-not-defined") p.is_not_defined = true;
      if (ch.name == "text-match") {
        NUBO_ASSIGN_OR_RETURN(auto m, ReadTextMatch(ch, Collation::kUnicodeCasemap));
        p.texts.push_back(std::move(m));
      }
      if (ch.name == "param-filter") {
        groupware::CardParamFilter q;
        q.name = NameAttr(ch);
        for (const XmlElement& x : ch.children) {
          if (x.ns != kCardNs) continue;
          if (x.name == "is-not-defined") q.is_not_defined = true;
          if (x.name == "text-match") {
            NUBO_ASSIGN_OR_RETURN(q.text, ReadTextMatch(x, Collation::kUnicodeCasemap));
          }
        }
        p.params.push_back(std::move(q));
      }
    }
    f.props.push_back(std::move(p));
  }
  return f;
}

}  // namespace

Result<groupware::TextMatch> ReadTextMatch(const dav::XmlElement& el,
                                           groupware::Collation fallback) {
  groupware::TextMatch m;
  m.text = el.text;
  m.collation = fallback;
  for (const auto& [k, v] : el.attrs) {
    if (k == "collation") {
      auto col = groupware::ParseCollation(v);
      if (!col) return Status::InvalidArgument("supported-collation");
      m.collation = *col;
    } else if (k == "negate-condition") {
      m.negate = v == "yes";
    } else if (k == "match-type") {
      auto mt = groupware::ParseMatchType(v);
      if (!mt) return Status::InvalidArgument("supported-filter");
      m.match = *mt;
    }
  }
  return m;
}

Result<groupware::CompFilter> ReadCalendarFilter(const XmlElement& query) {
  const XmlElement* filter = query.Child(kCalNs, "filter");
  const XmlElement* comp = filter ? filter->Child(kCalNs, "comp-filter") : nullptr;
  if (!comp) return Status::InvalidArgument("valid-filter");
  NUBO_ASSIGN_OR_RETURN(auto f, ReadCompFilter(*comp, 0));
  if (f.name != "VCALENDAR") return Status::InvalidArgument("valid-filter");
  return f;
}

Result<groupware::CardFilter> ReadCardFilter(const XmlElement& query) {
  return ReadFilterElement(query.Child(kCardNs, "filter"));
}

}  // namespace nubo::groupdav
