// The groupware DAV trees under /remote.php/dav/ (the layout Nextcloud
// clients know): principals (RFC 3744, RFC 6764 discovery), calendar
// homes (CalDAV, RFC 4791), address-book homes (CardDAV, RFC 6352), with
// sync-collection (RFC 6578) on every calendar and address book, and
// /.well-known/caldav|carddav (RFC 6764 §5; 307 for PROPFIND so the body survives). The files tree
// (/remote.php/dav/files/<user>/) is served by src/dav with the same core.
//
// The method → handler table lives in routes.cc; each method has its own
// file; properties are a table in props.cc; REPORTs dispatch on the body's
// root element (report.cc).
#pragma once

#include <cstdint>

namespace nubo::groupware {
class Collections;
}
namespace nubo::http {
class Router;
}

namespace nubo::groupdav {

struct GroupDavOptions {
  uint64_t max_xml_body = 1 << 20;
};

void RegisterGroupDavRoutes(http::Router& router, groupware::Collections& collections,
                            GroupDavOptions options);

}  // namespace nubo::groupdav
