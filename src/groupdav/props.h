// The groupware trees' live properties (RFC 4918 §15, RFC 3744 §5, RFC 4791
// §5.2 and §6, RFC 6352 §6.2 and §7, RFC 6578 §4, RFC 6638 left for
// scheduling) as one table, the PROPFIND/REPORT property request, and the
// multistatus writer shared by PROPFIND and every REPORT. Internal to
// src/groupdav. Not thread-safe (per request).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dav/xml_reader.h"
#include "dav/xml_writer.h"
#include "groupdav/context.h"
#include "groupware/calendar_data.h"
#include "http/body.h"

namespace nubo::groupdav {

struct LiveProp;  // one computed property (props.cc)

// What a PROPFIND or REPORT asks for (RFC 4918 §14.20, §14.2, §14.21).
struct PropRequest {
  enum class Kind { kAllprop, kPropname, kProp } kind = Kind::kAllprop;
  // The asked properties, each with the computed property it names
  // (nullptr: none), looked up once rather than per member.
  struct Asked {
    std::string ns, name;
    const LiveProp* live = nullptr;
  };
  std::vector<Asked> props;
  // <C:calendar-data> children (RFC 4791 §9.6): expand or limit the
  // recurrence set of what is returned.
  std::optional<groupware::TimeRange> expand;
  std::optional<groupware::TimeRange> limit_recurrence;
};

// Reads <D:allprop/>, <D:propname/> or <D:prop> among `parent`'s children;
// allprop when none is present. InvalidArgument for a bad calendar-data.
Result<PropRequest> ReadPropRequest(const dav::XmlElement& parent);

// One resource of a multistatus: what the properties are computed from.
struct PropEnv {
  const GContext& c;
  Res kind;
  std::string href;
  const meta::UserRow* owner = nullptr;                // homes, stores, objects, principals
  const meta::DavCollectionRow* collection = nullptr;  // stores and objects
  const meta::DavObjectRow* object = nullptr;          // objects (data when loaded)
  const std::vector<meta::DavDeadProp>* dead = nullptr;
  const PropRequest* request = nullptr;  // set by WriteResponse (calendar-data's expand)
};

// The media type of an object: GET's Content-Type and getcontenttype
// (the component names what a calendar object holds, as CalDAV clients
// know it from other servers).
std::string ObjectContentType(Res kind, std::string_view component);

// The environment of `o`, a member of the target's store (or the
// target's own store when the target is an object), as a `kind` resource.
PropEnv MemberEnv(const GContext& c, Res kind, const meta::DavObjectRow& o);
// The same with the store's href (StoreHref) computed once by a caller
// that lists many members.
PropEnv MemberEnv(const GContext& c, Res kind, const meta::DavObjectRow& o,
                  std::string_view store_href);

// Whether answering `pr` needs the objects' texts (calendar-data,
// address-data or allprop on objects does not: they are not in allprop).
bool NeedsData(const PropRequest& pr);

// Writes one <D:response> for `env` with the asked properties: those it has
// in a 200 propstat, the others in a 404 propstat.
void WriteResponse(dav::XmlWriter& w, PropEnv env, const PropRequest& pr);
// <D:response><D:href/><D:status>…</D:status></D:response>
void WriteStatusResponse(dav::XmlWriter& w, std::string_view href, int status);
// Opens <D:multistatus> with the namespaces every response uses.
void OpenMultistatus(dav::XmlWriter& w);

// A multistatus (or any text) written page by page while the client reads:
// `produce` appends the next page to the buffer and returns true when it
// wrote the last one. Memory stays at one page whatever the collection's size.
class PagedSource final : public http::BodySource {
 public:
  using Producer = std::function<Result<bool>(dav::XmlWriter& w)>;
  // `xml`: the body is an XML document (the writer starts with its
  // declaration); otherwise the producer writes raw text with Raw().
  explicit PagedSource(Producer produce, bool xml = true) : produce_(std::move(produce)) {
    if (!xml) w_.buffer().clear();
  }
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  Result<size_t> Read(char* buf, size_t cap) override;
  bool Exhausted() const override { return done_ && pos_ == w_.buffer().size(); }
  // Runs to the end (small answers are sent whole).
  Result<std::string> Drain();

 private:
  Producer produce_;
  dav::XmlWriter w_;
  size_t pos_ = 0;
  bool done_ = false;
};

// Reads the <D:set>/<D:remove> instructions of a PROPPATCH (or the <D:set>
// of an extended MKCOL / MKCALENDAR) into collection properties and dead
// properties; `all` lists every property named, `refused` the protected
// ones (RFC 4918 §9.2: then nothing is applied).
Status ReadPropertyUpdate(const dav::XmlElement& root, bool calendar,
                          groupware::CollectionProps& props,
                          std::vector<std::pair<meta::DavDeadProp, bool>>& dead,
                          std::vector<std::pair<std::string, std::string>>& all,
                          std::vector<std::pair<std::string, std::string>>& refused);
// The multistatus of a PROPPATCH: 200 for all, or 403 for the refused and
// 424 for the others.
void WritePropstatResult(dav::XmlWriter& w, std::string_view href,
                         const std::vector<std::pair<std::string, std::string>>& all,
                         const std::vector<std::pair<std::string, std::string>>& refused);

// A 207 response streaming `produce`.
http::Response MultistatusResponse(PagedSource::Producer produce);

}  // namespace nubo::groupdav
