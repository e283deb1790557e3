// What every WebDAV handler receives: the resolved target and the shared
// checks (If header, locks) done once before dispatch (HOUSE_STYLE:
// cross-cutting work happens once). Internal to src/dav. Not thread-safe;
// one context per request.
#pragma once

#include <optional>
#include <string>
#include <vector>

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
  int64_t user = 0;
  std::string mount;                  // "/dav" or "/webdav"
  std::vector<std::string> segments;  // decoded, below the mount
  files::Resolved target;
  std::optional<IfHeader> if_header;  // parsed, already evaluated true
  std::vector<std::string> submitted_tokens;
  http::BodySink* upload = nullptr;  // PUT: the sink that took the body

  // The href of a path below the mount (percent-encoded).
  std::string Href(const std::vector<std::string>& segs, bool collection) const;
  std::string TargetHref() const;
};

// Answers a DAV error: status with an optional <D:error><D:condition/>
// body (RFC 4918 §16 preconditions), never a JSON body.
http::Response DavError(int status, std::string_view condition = "", std::string_view href = "");
// Status → DAV response (codes per the HTTP mapping; body is a DAV error).
http::Response DavError(const Status& st);

// RFC 4918 §6-7 write-lock check for a change at `path_key` (and, when
// `recursive`, everything below it): each covering lock's token must have
// been submitted. `membership`: the change adds or removes a member of the
// parent, which a lock on the parent (any depth) also protects. Locked (423)
// names the first lock's root.
Status CheckLocks(DavContext& c, int64_t drive_id, const std::string& path_key, bool recursive,
                  bool membership);
// Lock tokens whose scope covers `path_key` (for the If evaluator and
// lockdiscovery), unexpired.
Result<std::vector<meta::DavLockRow>> CoveringLocks(files::Files& files, int64_t drive_id,
                                                    const std::string& path_key);
// True for the first path segment of a WebDAV mount ("dav", "webdav").
bool IsDavMount(std::string_view first_segment);

// The parent's path key ("/a/b" → "/a"; "/a" → "/").
std::string ParentKey(const std::string& path_key);
// `path_key` and each ancestor's key, nearest first, ending with "/": the
// places a lock covering it can be on.
std::vector<std::string> SelfAndAncestors(const std::string& path_key);

http::Response HandleOptions(DavContext& c);
http::Response HandlePropfind(DavContext& c);
http::Response HandleProppatch(DavContext& c);
http::Response HandleMkcol(DavContext& c);
http::Response HandleGet(DavContext& c);
http::Response HandleDelete(DavContext& c);
http::Response HandleCopyMove(DavContext& c);
http::Response HandleLock(DavContext& c);
http::Response HandleUnlock(DavContext& c);
// PUT streams: the sink opens after the shared checks, the handler answers.
Result<std::unique_ptr<http::BodySink>> OpenPutSink(DavContext& c);
http::Response HandlePut(DavContext& c);
Result<std::unique_ptr<http::BodySink>> OpenPatchSink(DavContext& c);
http::Response HandlePatch(DavContext& c);

}  // namespace nubo::dav
