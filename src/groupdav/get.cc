// RFC 4791 §4 / RFC 6352 §5: GET of a calendar object or a vCard returns
// the text as stored, with its strong ETag. GET of a whole calendar or
// address book exports it (one VCALENDAR with every component, or the
// vCards one after another), streamed page by page.
#include <algorithm>

#include "groupdav/props.h"
#include "http/conditional.h"
#include "util/time.h"

namespace nubo::groupdav {

namespace {

constexpr size_t kPage = 500;

// The lines of a VCALENDAR between its BEGIN and END lines, without the
// properties of the calendar itself (VERSION, PRODID, CALSCALE).
std::string_view Body(std::string_view data) {
  size_t begin = data.find("\n");
  size_t end = data.rfind("END:VCALENDAR");
  if (begin == std::string_view::npos || end == std::string_view::npos || end <= begin) {
    return {};
  }
  return data.substr(begin + 1, end - begin - 1);
}

void AppendComponents(std::string& out, std::string_view data) {
  std::string_view body = Body(data);
  while (!body.empty()) {
    size_t nl = body.find('\n');
    std::string_view line = body.substr(0, nl == std::string_view::npos ? body.size() : nl + 1);
    body.remove_prefix(line.size());
    // Only calendar-level properties are dropped; component lines stay.
    if (line.rfind("VERSION:", 0) == 0 || line.rfind("PRODID:", 0) == 0 ||
        line.rfind("CALSCALE:", 0) == 0) {
      continue;
    }
    out.append(line);
  }
}

http::Response Export(GContext& c) {
  const bool calendar = c.target.kind != Res::kBook;
  auto after = std::make_shared<std::string>();
  auto started = std::make_shared<bool>(false);
  GContext copy = c;
  auto produce = [copy, after, started, calendar](dav::XmlWriter& w) -> Result<bool> {
    std::string& out = w.buffer();
    if (!*started) {
      *started = true;
      if (calendar) out += "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo//export//EN\r\n";
    }
    NUBO_ASSIGN_OR_RETURN(
        auto page, copy.gw.ListObjects(copy.who(), *copy.target.collection, *after, kPage, true));
    for (const auto& o : page) {
      if (calendar) {
        AppendComponents(out, o.data);
      } else {
        out += o.data;
        if (!o.data.empty() && o.data.back() != '\n') out += "\r\n";
      }
    }
    if (page.size() == kPage) {
      *after = page.back().name;
      return false;
    }
    if (calendar) out += "END:VCALENDAR\r\n";
    return true;
  };
  http::Response r;
  r.status = 200;
  r.headers.Set("Content-Type",
                calendar ? "text/calendar; charset=utf-8" : "text/vcard; charset=utf-8");
  // The collection's name as the file name; anything outside a safe set
  // becomes "_" so a name cannot break the header.
  std::string file = c.target.name;
  for (char& ch : file) {
    const bool safe = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                      (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.';
    if (!safe) ch = '_';
  }
  file += calendar ? ".ics" : ".vcf";
  r.headers.Set("Content-Disposition", "attachment; filename=\"" + file + "\"");
  r.source = std::make_unique<PagedSource>(std::move(produce), false);
  return r;
}

}  // namespace

http::Response HandleGet(GContext& c) {
  if (!c.target.exists) return http::Response::Text(404, "no such collection or object\n");
  if (IsStore(c.target.kind)) return Export(c);
  if (!IsObject(c.target.kind)) {
    return http::Response::Text(200,
                                "This is the nubo DAV tree; use a CalDAV or CardDAV client.\n");
  }
  const meta::DavObjectRow& o = *c.target.object;
  http::Validators v;
  v.exists = true;
  v.etag = o.etag;
  v.last_modified = static_cast<std::time_t>(o.mtime_ms / 1000);
  const auto pre = http::EvaluatePreconditions(c.req.method, c.req.headers, v);
  if (pre == http::Precondition::kNotModified) {
    http::Response r = http::Response::Empty(304);
    r.headers.Set("ETag", o.etag);
    return r;
  }
  if (pre == http::Precondition::kFailed) return http::Response::Text(412, "precondition failed\n");
  http::Response r =
      http::Response::Text(200, o.data, ObjectContentType(c.target.kind, o.component));
  r.headers.Set("ETag", o.etag);
  r.headers.Set("Last-Modified", FormatHttpDate(*v.last_modified));
  return r;
}

}  // namespace nubo::groupdav
