// Chunked upload v2 (docs/nextcloud.md), the way Nextcloud clients send
// big files: MKCOL an upload folder of their own naming, PUT numbered
// chunks into it (any order, retried at will), then MOVE its ".file" onto
// the destination. Each chunk is an upload session of its own (files/
// upload_sessions.h): its bytes are cut, hashed and stored as they arrive,
// referenced so GC leaves them alone, and the folder's part list is a row
// per chunk in the MetaStore, so any node continues any upload and a
// restart loses nothing. Assembling joins the parts' chunk lists in
// numeric order into the file's manifest: no byte is copied and no
// memory grows with the file.
//
// Upload folders belong to their account (anyone else: NotFound, as for a
// folder that does not exist) and expire with the upload-session TTL.
// Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "auth/principal.h"
#include "files/files.h"
#include "files/upload_sessions.h"
#include "http/body.h"
#include "meta/meta_store.h"

namespace nubo::nc {

// At most this many chunks per upload (Nextcloud's own limit).
inline constexpr int64_t kMaxChunks = 10000;

struct AssembleRequest {
  std::string parent_id;  // the destination folder (public id)
  std::string name;
  std::optional<std::string> if_match;  // the replaced file's ETag
  bool overwrite = true;
  std::optional<int64_t> mtime_ms;
  std::optional<uint64_t> total_length;  // OC-Total-Length, checked against the parts
  std::string checksum;                  // OC-Checksum ("SHA1:<hex>"): verified, then kept
};

class ChunkedUploads {
 public:
  ChunkedUploads(meta::MetaStore& meta, files::Files& files, files::UploadSessions& sessions)
      : meta_(meta), files_(files), sessions_(sessions) {}

  // MKCOL: AlreadyExists when the caller has an upload of that name.
  Status Create(const auth::Principal& who, std::string_view name, std::string_view destination);
  Result<meta::NcUploadRow> Get(const auth::Principal& who, std::string_view name);
  // The parts received, by number.
  Result<std::vector<meta::NcUploadPart>> Parts(const auth::Principal& who, std::string_view name);
  // A chunk's body: its bytes become part `chunk` once the body arrived
  // whole (a part sent again replaces the earlier one). `length`: the
  // Content-Length when sent.
  Result<std::unique_ptr<http::BodySink>> PutChunk(const auth::Principal& who,
                                                   std::string_view name, std::string_view chunk,
                                                   std::optional<uint64_t> length);
  // MOVE .file: the parts, complete and numbered without gaps, become the
  // file; the upload folder ends.
  Result<files::UploadResult> Assemble(const auth::Principal& who, std::string_view name,
                                       const AssembleRequest& req);
  // DELETE: ends the upload and releases what its parts hold.
  Status Abort(const auth::Principal& who, std::string_view name);
  // Maintenance: ends expired upload folders. Returns how many.
  Result<int64_t> Expire(int64_t now_ms);

  files::Files& files() { return files_; }

 private:
  Status EndUpload(const auth::Principal& who, const meta::NcUploadRow& u);

  meta::MetaStore& meta_;
  files::Files& files_;
  files::UploadSessions& sessions_;
};

// A chunk name: decimal digits (v2 numbers them from 1; older clients pad
// with zeros). nullopt for anything else.
std::optional<int64_t> ParseChunkNumber(std::string_view name);

}  // namespace nubo::nc
