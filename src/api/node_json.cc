#include "api/node_json.h"

#include "files/files.h"
#include "util/strings.h"

namespace nubo::api {

std::string NodeJson(const meta::NodeRow& n) {
  std::string j =
      "{\"id\":" + JsonQuote(n.public_id) + ",\"parent_id\":" +
      (n.parent_public_id.empty() ? std::string("null") : JsonQuote(n.parent_public_id)) +
      ",\"name\":" + JsonQuote(n.name) + ",\"kind\":" + (n.folder() ? "\"folder\"" : "\"file\"") +
      ",\"size\":" + std::to_string(n.size) + ",\"mime\":" + JsonQuote(n.mime) +
      ",\"modified\":" + std::to_string(n.mtime_ms) + ",\"created\":" + std::to_string(n.ctime_ms) +
      ",\"etag\":" + JsonQuote(files::NodeETag(n));
  if (!n.folder()) j += ",\"hash\":" + JsonQuote(files::HashHex(n.hash));
  j += std::string(",\"favorite\":") + (n.favorite ? "true" : "false");
  if (n.trashed_at_ms) j += ",\"trashed_at\":" + std::to_string(*n.trashed_at_ms);
  // Live children now; a trashed folder's children are not live.
  if (n.folder() && n.live()) j += ",\"item_count\":" + std::to_string(n.child_count);
  j += "}";
  return j;
}

}  // namespace nubo::api
