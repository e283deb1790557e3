// What a download through a public link costs: one use of the link's
// download limit (share::Sharing::TakeDownload). The file routes and WebDAV
// take it as a hook so neither depends on sharing.
#pragma once

#include <functional>

#include "auth/principal.h"
#include "util/status.h"

namespace nubo::api {

// Charges one download to the caller, or refuses once the link's limit is
// reached; callers that are not links pass.
using DownloadMeter = std::function<Status(const auth::Principal&)>;

}  // namespace nubo::api
