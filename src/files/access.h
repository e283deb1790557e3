// Node authorization and transaction helpers shared by the files domain.
//
// Access() is the one authorization check for nodes (ARCHITECTURE.md §4.7):
// every surface resolves a public id through it. Today a caller may act on
// the nodes of drives they own; shares will extend this one function. What
// the caller may not see is NotFound with the same message as what does
// not exist, so the two are indistinguishable. Thread-safe (pure functions
// over the caller's transaction).
#pragma once

#include <string>
#include <string_view>

#include "files/files.h"
#include "meta/meta_store.h"

namespace nubo::files {

enum class Want {
  kLive,  // a live node (not trashed, not inside a trashed folder)
  kAny,   // live or trashed (restore, permanent delete)
};

Status NodeNotFound();

// RFC 9110 §13.1.1 If-Match against a node's current (strong) ETag: "*" or
// a comma-separated list holding that exact tag (weak tags never match).
bool IfMatchMatches(std::string_view header, const std::string& etag);

// The node `public_id` if the caller may act on it in state `want`.
Result<meta::NodeRow> Access(meta::ReadTxn& txn, int64_t user, std::string_view public_id,
                             Want want);
// Access() plus: must be a folder (Conflict otherwise, with `what` named).
Result<meta::NodeRow> AccessFolder(meta::ReadTxn& txn, int64_t user, std::string_view public_id);

// Takes the drive's next change number and stamps it with `size_delta` on
// `from` and every ancestor (the folder rollups behind ETags and usage).
Status Touch(meta::WriteTxn& txn, int64_t drive_id, int64_t from, int64_t size_delta);

// QuotaExceeded unless `extra` more live bytes fit the drive owner's quota.
Status CheckQuota(meta::ReadTxn& txn, int64_t drive_id, int64_t extra);

// The name a new child of `parent` gets under `conflict`: `name` if free,
// else a " (n)" variant (kRename) or AlreadyExists. `existing` receives the
// live sibling holding the name, if any (kOverwrite decides what to do with
// it); `ignore_id` is a node that may keep its own name (renames).
Result<std::string> PlaceName(meta::ReadTxn& txn, const meta::NodeRow& parent,
                              const std::string& name, bool folder, Conflict conflict,
                              std::optional<meta::NodeRow>* existing, int64_t ignore_id = 0);

}  // namespace nubo::files
