// What every WebDAV handler receives: the caller, the resolved target and
// the shared checks done once before dispatch (HOUSE_STYLE: cross-cutting
// work happens once): the If header evaluated (RFC 4918 §10.4), the HTTP
// preconditions evaluated (RFC 9110 §13.2), and both carried to the files
// domain as Conditions, which checks locks and the pinned ETag inside the
// change's transaction. Internal to src/dav. Not thread-safe; one context
// per request.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "auth/principal.h"
#include "dav/dav.h"
#include "dav/if_header.h"
#include "files/files.h"
#include "http/body.h"
#include "http/request.h"
#include "http/response.h"
#include "meta/meta_store.h"

namespace nubo::dav {

struct DavContext {
  files::Files& files;
  const DavOptions& opt;
  http::Request& req;
  auth::PrincipalPtr principal;  // the caller (shared: PROPFIND's body outlives the handler)
  std::string mount;             // "/dav", "/webdav", "/dav-drives/<id>" or "/public.php/webdav"
  std::string drive;             // /dav-drives/<id>: the shared drive's id
  std::string share_root;        // /dav-shares/<id>: the shared node's id
  std::vector<std::string> segments;  // decoded, below the mount
  files::Resolved target;
  std::optional<IfHeader> if_header;  // parsed, already evaluated true
  // Submitted lock tokens and, when the request had preconditions and the
  // target exists, the target's ETag they were evaluated against.
  files::Conditions cond;
  http::BodySink* upload = nullptr;  // PUT: the sink that took the body
  // Set by a handler whose answer depends on nothing but the request, the
  // caller and the database (dav/poll_cache.h): it may be kept until the
  // store changes.
  bool poll_cacheable = false;

  const auth::Principal& who() const { return *principal; }

  // The href of a path below the mount (percent-encoded).
  std::string Href(const std::vector<std::string>& segs, bool collection) const;
  std::string TargetHref() const;
};

// Answers a DAV error: status with an optional <D:error><D:condition/>
// body (RFC 4918 §16 preconditions), never a JSON body.
http::Response DavError(int status, std::string_view condition = "", std::string_view href = "");
// Status → DAV response (codes per the HTTP mapping; body is a DAV error).
http::Response DavError(const Status& st);

// How many leading segments of a decoded path name a WebDAV mount: 1 for
// /dav/ and /webdav/ (the caller's drive), 2 for /dav-drives/<id>/ (a
// shared drive), /dav-shares/<id>/ (a node shared with the caller) and
// /public.php/webdav/ (a public link's tree), 0 for none.
size_t MountLength(const std::vector<std::string>& segments);
// Whether a path under another mount (a Destination, an If-header tag)
// names the same tree as the request: a link's tree and an account's
// drive are never the same.
bool SameTree(const std::vector<std::string>& segments, std::string_view request_mount);

http::Response HandleOptions(DavContext& c);
http::Response HandlePropfind(DavContext& c);
http::Response HandleProppatch(DavContext& c);
http::Response HandleMkcol(DavContext& c);
http::Response HandleGet(DavContext& c);
http::Response HandleDelete(DavContext& c);
http::Response HandleCopyMove(DavContext& c);
http::Response HandleLock(DavContext& c);
// REPORT oc:filter-files (favorites) and RFC 6578 DAV:sync-collection on a
// folder, in propfind.cc with the property writers.
http::Response HandleReport(DavContext& c);

// A folder's RFC 6578 sync token: a URI naming the folder and the place in
// its change order the answer reached (complete: its change number alone).
std::string FolderSyncToken(std::string_view folder_public_id, int64_t seq,
                            std::optional<int64_t> id = std::nullopt);
// The position a token names, if it is one of this folder's; a complete
// token resumes after every node stamped with its number.
std::optional<files::SyncPosition> ParseFolderSyncToken(std::string_view token,
                                                        std::string_view folder_public_id);
// The same, signed for the caller ("-" and an HMAC of the caller and the
// token), and its check: a token issued to someone else, or altered, is
// not one (valid-sync-token).
std::string SignedFolderSyncToken(const DavContext& c, std::string_view folder_public_id,
                                  int64_t seq, std::optional<int64_t> id = std::nullopt);
std::optional<files::SyncPosition> VerifyFolderSyncToken(const DavContext& c,
                                                         std::string_view token,
                                                         std::string_view folder_public_id);
http::Response HandleUnlock(DavContext& c);
// PUT streams: the sink opens after the shared checks, the handler answers.
Result<std::unique_ptr<http::BodySink>> OpenPutSink(DavContext& c);
http::Response HandlePut(DavContext& c);
Result<std::unique_ptr<http::BodySink>> OpenPatchSink(DavContext& c);
http::Response HandlePatch(DavContext& c);

}  // namespace nubo::dav
