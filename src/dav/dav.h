// WebDAV (RFC 4918, class 1, 2 and 3) over the files domain: the caller's
// personal drive at /dav/ (alias /webdav/), a shared drive at
// /dav-drives/<id>/, a node shared with the caller at /dav-shares/<node id>/
// a public link's tree at /public.php/webdav/ (the token as the Basic
// user name), and the Nextcloud layout's files trees: /remote.php/webdav/
// and /remote.php/dav/files/<the caller's name>/. The prefixes keep /dav/ a plain file tree whose
// first segment is always a name of the user's own.
//
// The method → handler table lives in routes.cc (OPTIONS' Allow comes from
// it); each method is in its own file; properties are a table in props.cc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "api/download_meter.h"

namespace nubo::auth {
class TokenSigner;
}
namespace nubo::authz {
class Perms;
}
namespace nubo::files {
class Files;
}
namespace nubo::http {
class Router;
struct Response;
}  // namespace nubo::http
namespace nubo::meta {
struct NodeRow;
}

namespace nubo::dav {

class PollCache;

struct DavOptions {
  bool allow_depth_infinity = false;  // PROPFIND Depth: infinity (streamed) instead of 403
  uint64_t max_xml_body = 1 << 20;
  uint64_t max_lock_timeout_s = 7 * 24 * 3600;
  uint64_t default_lock_timeout_s = 3600;
  // A GET through a public link's tree takes one of its downloads, exactly
  // as over REST (api::ContentResponse says which requests count).
  api::DownloadMeter on_download;
  // Signs the files trees' sync tokens for the caller they were issued to
  // (a token names a place in a folder's change order; unsigned, anyone
  // could ask for removals from before they were given access). Null:
  // tokens go unsigned (tests of the DAV layer alone).
  const auth::TokenSigner* signer = nullptr;
  // Members a PROPFIND reads per read transaction. Each page costs a few
  // statements (the folder's access check, the children); over a network
  // database those are round trips, so a server on PostgreSQL reads
  // bigger pages. Memory stays one page whatever the folder's size.
  size_t listing_page = 200;
  // Answers to sync clients' polls, kept while the store has not changed
  // (dav/poll_cache.h). Null: every poll is read from the store (an
  // engine without MetaStore::ChangeStamp).
  std::shared_ptr<PollCache> poll_cache;
};

void RegisterDavRoutes(http::Router& router, files::Files& files, DavOptions options);

// The headers Nextcloud clients read after a change (OC-FileId, OC-ETag and
// ETag): harmless to other clients, so every tree that changes a node sends
// them.
void SetNodeHeaders(http::Response& r, const meta::NodeRow& n);

// oc:id: the file id padded to eight digits and the instance id, as
// Nextcloud clients expect ("00000042" + instance).
std::string OcId(int64_t file_id);
// oc:permissions letters for a node (Nextcloud's: S shared, R shareable,
// M mounted, G readable, D deletable, N renamable, V movable, W writable
// file, C/K create files/folders in a folder).
std::string OcPermissions(const meta::NodeRow& node, authz::Perms p);

}  // namespace nubo::dav
