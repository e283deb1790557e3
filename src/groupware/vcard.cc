// vCard parsing (RFC 6350 for 4.0, RFC 2426 for 3.0) and CardDAV filters
// (RFC 6352 §10.5). A hand-written scanner rather than a library: the
// grammar is small, and owning it lets every loop be bounded by the input
// (total size is capped before anything else runs, so every logical line
// is bounded by VCardLimits::max_bytes as well).
#include "groupware/vcard.h"

#include <string>
#include <utility>

namespace nubo::groupware {
namespace {

char AsciiUpper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiUpper(a[i]) != AsciiUpper(b[i])) return false;
  }
  return true;
}

std::string ToUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiUpper(c);
  return out;
}

// RFC 6350 §3.3: group, name and param-name are 1*(ALPHA / DIGIT / "-").
bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

// Splits the input into logical lines (RFC 6350 §3.2, RFC 2426 §2.6):
// CRLF or a bare LF ends a physical line, and a line break followed by one
// space or tab is removed together with that whitespace character. The
// unfolding works on bytes, so a UTF-8 sequence split by a folding client
// comes back whole.
class LineReader {
 public:
  explicit LineReader(std::string_view data) : data_(data) {}

  // The next logical line and the number of its first physical line;
  // false at the end of the input.
  bool Next(std::string* line, size_t* number) {
    if (pos_ >= data_.size()) return false;
    *number = line_no_ + 1;
    line->assign(PhysicalLine());
    while (pos_ < data_.size() && (data_[pos_] == ' ' || data_[pos_] == '\t')) {
      line->append(PhysicalLine().substr(1));
    }
    return true;
  }

 private:
  std::string_view PhysicalLine() {
    size_t end = data_.find('\n', pos_);
    if (end == std::string_view::npos) end = data_.size();
    std::string_view l = data_.substr(pos_, end - pos_);
    pos_ = end < data_.size() ? end + 1 : end;
    ++line_no_;
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    return l;
  }

  std::string_view data_;
  size_t pos_ = 0;
  size_t line_no_ = 0;
};

std::string_view ScanName(std::string_view line, size_t* pos) {
  size_t start = *pos;
  while (*pos < line.size() && IsNameChar(line[*pos])) ++*pos;
  return line.substr(start, *pos - start);
}

// RFC 6868 §3: ^n is a newline, ^^ a caret, ^' a double quote; a caret
// before anything else stays as it is.
std::string DecodeCaret(std::string_view v) {
  std::string out;
  out.reserve(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '^' && i + 1 < v.size()) {
      char n = v[i + 1];
      if (n == 'n') {
        out += '\n';
        ++i;
        continue;
      }
      if (n == '^') {
        out += '^';
        ++i;
        continue;
      }
      if (n == '\'') {
        out += '"';
        ++i;
        continue;
      }
    }
    out += v[i];
  }
  return out;
}

// param-value *("," param-value), RFC 6350 §5: a value is either quoted
// (DQUOTE *QSAFE-CHAR DQUOTE, so ':' ';' ',' may appear inside) or a run of
// SAFE-CHARs (anything but DQUOTE ';' ':' ',' and controls we leave alone).
Status ParseParamValues(std::string_view line, size_t* pos, std::vector<std::string>* values) {
  while (true) {
    if (*pos < line.size() && line[*pos] == '"') {
      size_t close = line.find('"', *pos + 1);
      if (close == std::string_view::npos) {
        return Status::InvalidArgument("unterminated quoted parameter value");
      }
      values->push_back(DecodeCaret(line.substr(*pos + 1, close - *pos - 1)));
      *pos = close + 1;
    } else {
      size_t start = *pos;
      while (*pos < line.size() && line[*pos] != ';' && line[*pos] != ':' && line[*pos] != ',' &&
             line[*pos] != '"') {
        ++*pos;
      }
      if (*pos < line.size() && line[*pos] == '"') {
        return Status::InvalidArgument("double quote inside an unquoted parameter value");
      }
      values->push_back(DecodeCaret(line.substr(start, *pos - start)));
    }
    if (*pos >= line.size() || line[*pos] != ',') return Status::Ok();
    ++*pos;
  }
}

// Adds `values` to the parameter `name`, merging repeats: RFC 2426 §3.2.1
// and §3.3.1 make "TYPE=work;TYPE=voice" the same as "TYPE=work,voice",
// and filters must see every value of a parameter in one place.
void AddParam(VCardProperty* prop, std::string name, std::vector<std::string> values) {
  for (auto& p : prop->params) {
    if (p.name == name) {
      for (auto& v : values) p.values.push_back(std::move(v));
      return;
    }
  }
  prop->params.push_back(VCardParam{std::move(name), std::move(values)});
}

// One ";param" after the name; *pos is just past the ';'.
Status ParseParam(std::string_view line, size_t* pos, VCardProperty* prop) {
  std::string_view name = ScanName(line, pos);
  if (name.empty()) return Status::InvalidArgument("bad parameter name");
  std::vector<std::string> values;
  if (*pos < line.size() && line[*pos] == '=') {
    ++*pos;
    NUBO_RETURN_IF_ERROR(ParseParamValues(line, pos, &values));
    AddParam(prop, ToUpper(name), std::move(values));
  } else {
    // vCard 2.1 style "TEL;HOME;VOICE:…", still sent by old phones and
    // Outlook exports: a bare word is a TYPE value (RFC 2426 §4 dropped
    // the form, but accepting it costs nothing).
    AddParam(prop, "TYPE", {std::string(name)});
  }
  if (*pos < line.size() && (line[*pos] == ';' || line[*pos] == ':')) return Status::Ok();
  return Status::InvalidArgument("bad character after parameter " + ToUpper(name));
}

// contentline = [group "."] name *(";" param) ":" value (RFC 6350 §3.3).
// The value starts after the first ':' that is not inside a quoted
// parameter value.
Status ParseContentLine(std::string_view line, size_t max_params, VCardProperty* prop) {
  // Said first because it is the commonest breakage (a client that wrapped
  // a long line without the leading space) and the clearest to report.
  if (line.find(':') == std::string_view::npos) {
    return Status::InvalidArgument("line without a colon");
  }
  size_t pos = 0;
  std::string_view name = ScanName(line, &pos);
  if (pos < line.size() && line[pos] == '.') {
    if (name.empty()) return Status::InvalidArgument("empty property group");
    prop->group = std::string(name);
    ++pos;
    name = ScanName(line, &pos);
  }
  if (name.empty()) return Status::InvalidArgument("bad property name");
  prop->name = ToUpper(name);
  size_t params = 0;
  while (pos < line.size() && line[pos] == ';') {
    if (++params > max_params) {
      return Status::InvalidArgument("more than " + std::to_string(max_params) + " parameters on " +
                                     prop->name);
    }
    ++pos;
    NUBO_RETURN_IF_ERROR(ParseParam(line, &pos, prop));
  }
  if (pos >= line.size()) return Status::InvalidArgument("line without a colon");
  if (line[pos] != ':') return Status::InvalidArgument("bad character in property name");
  prop->value = std::string(line.substr(pos + 1));
  return Status::Ok();
}

Status AtLine(size_t number, const Status& st) {
  return st.WithContext("line " + std::to_string(number));
}

// The properties required by RFC 6350 §6.7.9 (VERSION), §6.2.1 (FN, also
// required by RFC 2426 §3.1.1) and RFC 6352 §5.1 (UID).
Status CheckRequired(VCard* card) {
  const VCardProperty* version = nullptr;
  size_t versions = 0, fns = 0, uids = 0;
  const VCardProperty* uid = nullptr;
  for (const auto& p : card->props) {
    if (p.name == "VERSION") {
      version = &p;
      ++versions;
    } else if (p.name == "FN") {
      ++fns;
    } else if (p.name == "UID") {
      uid = &p;
      ++uids;
    }
  }
  if (versions == 0) return Status::InvalidArgument("missing VERSION");
  if (versions > 1) return Status::InvalidArgument("more than one VERSION");
  if (version->value != "3.0" && version->value != "4.0") {
    return Status::InvalidArgument("unsupported VERSION (need 3.0 or 4.0)");
  }
  if (fns == 0) return Status::InvalidArgument("missing FN");
  // CardDAV identifies a card by its UID (RFC 6352 §5.1: exactly one).
  if (uids == 0) return Status::InvalidArgument("missing UID (CardDAV requires one)");
  if (uids > 1) return Status::InvalidArgument("more than one UID");
  if (uid->value.empty()) return Status::InvalidArgument("empty UID");
  card->version = version->value;
  return Status::Ok();
}

bool IsBeginVCard(std::string_view line) {
  VCardProperty p;
  return ParseContentLine(line, 0, &p).ok() && p.name == "BEGIN" &&
         EqualsIgnoreCase(p.value, "VCARD");
}

// Reads the properties after BEGIN:VCARD up to and including END:VCARD,
// then checks that only blank lines follow.
Status ParseBody(LineReader& reader, const VCardLimits& limits, VCard* card) {
  std::string line;
  size_t n = 0;
  bool ended = false;
  while (reader.Next(&line, &n)) {
    // Blank lines carry nothing; tolerated (some exporters put one
    // between cards or at the end) rather than refused.
    if (line.empty()) continue;
    if (ended) {
      if (IsBeginVCard(line)) {
        return AtLine(n, Status::InvalidArgument("more than one vCard in the resource"));
      }
      return AtLine(n, Status::InvalidArgument("data after END:VCARD"));
    }
    VCardProperty prop;
    Status st = ParseContentLine(line, limits.max_params, &prop);
    if (!st.ok()) return AtLine(n, st);
    // A vCard 3.0 AGENT may hold a card, but escaped on one logical line
    // (RFC 2426 §3.5.4), so a BEGIN here is always a nested card.
    if (prop.name == "BEGIN") return AtLine(n, Status::InvalidArgument("nested BEGIN"));
    if (prop.name == "END") {
      if (!EqualsIgnoreCase(prop.value, "VCARD")) {
        return AtLine(n, Status::InvalidArgument("END does not close VCARD"));
      }
      ended = true;
      continue;
    }
    if (card->props.size() >= limits.max_properties) {
      return Status::InvalidArgument("more than " + std::to_string(limits.max_properties) +
                                     " properties");
    }
    card->props.push_back(std::move(prop));
  }
  if (!ended) return Status::InvalidArgument("missing END:VCARD");
  return Status::Ok();
}

// RFC 6352 §10.5.2 param-filter on one property instance. Negation applies
// to "some value matches", not to each value, so "TYPE does not contain
// work" is false for TYPE=home,work.
bool ParamFilterMatches(const VCardProperty& prop, const CardParamFilter& f) {
  const VCardParam* param = nullptr;
  for (const auto& p : prop.params) {
    if (EqualsIgnoreCase(p.name, f.name)) {
      param = &p;
      break;
    }
  }
  if (f.is_not_defined) return param == nullptr;
  if (param == nullptr) return false;
  if (!f.text) return true;
  TextMatch m = *f.text;
  m.negate = false;
  bool any = false;
  for (const auto& v : param->values) {
    if (TextMatches(v, m)) {
      any = true;
      break;
    }
  }
  return any != f.text->negate;
}

// §10.5.1: test="anyof"/"allof" combines the text-match and param-filter
// children; both are evaluated against one property instance, so allof
// needs a single EMAIL satisfying every condition, not two different ones.
bool InstanceMatches(const VCardProperty& prop, const CardPropFilter& f) {
  bool all = true, any = false;
  std::string text = prop.Text();
  for (const auto& t : f.texts) {
    bool ok = TextMatches(text, t);
    all = all && ok;
    any = any || ok;
  }
  for (const auto& pf : f.params) {
    bool ok = ParamFilterMatches(prop, pf);
    all = all && ok;
    any = any || ok;
  }
  return f.all_of ? all : any;
}

// §10.5.1 prop-filter. The group prefix is not part of the name (an
// Apple-style item1.EMAIL is an EMAIL).
bool PropFilterMatches(const VCard& card, const CardPropFilter& f) {
  bool defined = false;
  for (const auto& p : card.props) {
    if (!EqualsIgnoreCase(p.name, f.name)) continue;
    defined = true;
    if (f.is_not_defined) return false;
    // No children: the property existing is the whole test.
    if (f.texts.empty() && f.params.empty()) return true;
    if (InstanceMatches(p, f)) return true;
  }
  return f.is_not_defined && !defined;
}

}  // namespace

// RFC 6350 §3.4 (and RFC 2426 §4 for 3.0): \n or \N is a newline, \, \;
// and \\ stand for themselves. A backslash before anything else is kept
// with its character: clients write Windows paths and stray escapes.
std::string VCardProperty::Text() const {
  std::string out;
  out.reserve(value.size());
  for (size_t i = 0; i < value.size(); ++i) {
    if (value[i] == '\\' && i + 1 < value.size()) {
      char n = value[i + 1];
      if (n == 'n' || n == 'N') {
        out += '\n';
        ++i;
        continue;
      }
      if (n == ',' || n == ';' || n == '\\') {
        out += n;
        ++i;
        continue;
      }
    }
    out += value[i];
  }
  return out;
}

std::string VCardProperty::Param(std::string_view param_name) const {
  for (const auto& p : params) {
    if (EqualsIgnoreCase(p.name, param_name)) return p.values.empty() ? "" : p.values.front();
  }
  return "";
}

const VCardProperty* VCard::Find(std::string_view name) const {
  for (const auto& p : props) {
    if (EqualsIgnoreCase(p.name, name)) return &p;
  }
  return nullptr;
}

Result<VCard> ParseVCard(std::string_view data, const VCardLimits& limits) {
  if (data.size() > limits.max_bytes) {
    return Status::InvalidArgument("vCard larger than " + std::to_string(limits.max_bytes) +
                                   " bytes");
  }
  LineReader reader(data);
  std::string line;
  size_t n = 0;
  if (!reader.Next(&line, &n) || !IsBeginVCard(line)) {
    return Status::InvalidArgument("the data does not start with BEGIN:VCARD");
  }
  VCard card;
  NUBO_RETURN_IF_ERROR(ParseBody(reader, limits, &card));
  NUBO_RETURN_IF_ERROR(CheckRequired(&card));
  return card;
}

bool MatchesCardFilter(const VCard& card, const CardFilter& filter) {
  if (filter.props.empty()) return true;
  for (const auto& pf : filter.props) {
    bool ok = PropFilterMatches(card, pf);
    if (filter.all_of && !ok) return false;
    if (!filter.all_of && ok) return true;
  }
  return filter.all_of;
}

}  // namespace nubo::groupware
