// Node access and transaction helpers shared by the files domain.
//
// Access() is how the domain turns a public id into a node: it loads the
// node and asks authz (auth/authz.h) whether the caller may do `action` on
// it. What the caller may not see is NotFound with the same message as
// what does not exist, so the two are indistinguishable. Thread-safe (pure
// functions over the caller's transaction).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "auth/authz.h"
#include "files/files.h"
#include "meta/meta_store.h"

namespace nubo::files {

class Checksum;

using authz::Action;

enum class Want {
  kLive,  // a live node (not trashed, not inside a trashed folder)
  kAny,   // live or trashed (restore, permanent delete)
};

Status NodeNotFound();

// RFC 9110 §13.1.1 If-Match against a node's current (strong) ETag: "*" or
// a comma-separated list holding that exact tag (weak tags never match).
bool IfMatchMatches(std::string_view header, const std::string& etag);

// The node `public_id` if the caller may do `action` on it in state `want`.
Result<meta::NodeRow> Access(meta::ReadTxn& txn, const Principal& who, std::string_view public_id,
                             Want want, Action action);
// The same through a request's Checker (drive owners memoized).
Result<meta::NodeRow> Access(meta::ReadTxn& txn, authz::Checker& check, std::string_view public_id,
                             Want want, Action action);
// Access() of a live node plus: must be a folder (Conflict otherwise).
Result<meta::NodeRow> AccessFolder(meta::ReadTxn& txn, const Principal& who,
                                   std::string_view public_id, Action action);

// Conditions::expect_etag against the node the write acts on (RFC 9110
// §13.2: a precondition evaluated before dispatch must still hold when the
// change is made).
Status CheckExpected(const Conditions& cond, const meta::NodeRow& n);

// Takes the drive's next change number and stamps it with `size_delta` on
// `from` and every ancestor (the folder rollups behind ETags and usage).
Status Touch(meta::WriteTxn& txn, int64_t drive_id, int64_t from, int64_t size_delta);

// Gives `n` the drive's next change number as its tree_seq, before the row
// is written: RFC 6578 sync-collection reports a folder's children changed
// after a token by it (a folder's own changes below it stamp it through
// Touch; a file, and a node moved or restored, need this).
Status Stamp(meta::WriteTxn& txn, meta::NodeRow& n);

// Records that the name `n` has in its parent leaves that folder (trash,
// delete, rename, move away): sync-collection reports it removed.
Status LeaveTombstone(meta::WriteTxn& txn, const meta::NodeRow& n);

// The drive's usage as quotas count it: live file bytes, WebDAV property
// bytes and what its file versions are charged.
Result<int64_t> DriveUsage(meta::ReadTxn& txn, const meta::DriveRow& d);

// The quota that bounds a drive: a shared drive's own, a personal drive's
// owner's (nullopt: none).
Result<std::optional<int64_t>> DriveQuota(meta::ReadTxn& txn, const meta::DriveRow& d);

// QuotaExceeded unless `extra` more bytes fit the drive's quota
// beside its usage and every live reservation except `own_reservation`.
Status CheckQuota(meta::ReadTxn& txn, int64_t drive_id, int64_t extra, int64_t own_reservation = 0);

// QuotaExceeded when the drive's usage and live reservations already exceed
// its owner's quota (after a change whose full size was known only once
// made, such as a copy's properties).
Status CheckQuotaHolds(meta::ReadTxn& txn, int64_t drive_id);

// The name a new child of `parent` gets under `conflict`: `name` if free,
// else a " (n)" variant (kRename) or AlreadyExists. `existing` receives the
// live sibling holding the name, if any (kOverwrite and kReplace decide
// what to do with it); `ignore_id` is a node that may keep its own name
// (renames).
// "report.pdf" → "report (2).pdf" for k = 2; folders and dot-files keep
// the number at the end ("photos (2)", ".bashrc (2)").
std::string NumberedName(const std::string& name, bool folder, int k);

Result<std::string> PlaceName(meta::ReadTxn& txn, const meta::NodeRow& parent,
                              const std::string& name, bool folder, Conflict conflict,
                              std::optional<meta::NodeRow>* existing, int64_t ignore_id = 0);

// Keeps a verified client checksum (Checksum::Entry) with the manifest
// the upload committed, in the commit's transaction; nothing when the
// checksum is not one clients read back.
Status KeepChecksum(meta::WriteTxn& txn, int64_t manifest_id, const Checksum& c);

}  // namespace nubo::files
