// Upload sessions (docs/versions-and-uploads.md): one machinery for every
// resumable upload — tus, delta uploads, and chunked clients — kept wholly
// in the metadata store, so a session survives a restart and another node
// can continue it.
//
// A session names what it will create (folder and name, or a file to
// replace and its ETag), its length when declared, and holds references to
// the chunks received so far (content/refs.h), so GC never sweeps them
// however long the upload pauses. Bytes are cut by content-defined
// chunking exactly as one uninterrupted stream would be: after each
// request, the complete chunks join the session and the bytes after the
// last boundary are kept as one more chunk (the tail), fed back to the
// chunker when the upload resumes. The whole-content BLAKE3 state is kept
// too, so completing needs no second read of the bytes.
//
// Sessions belong to the account that created them; anyone else gets
// NotFound. The quota holds the declared length from creation on (or what
// arrived so far, growing, when it is deferred). Thread-safe; appends to
// one session are serialized by their expected offset (a second append at
// a stale offset is a Conflict).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "files/files.h"

namespace nubo::files {

class Checksum;

struct SessionSpec {
  // parent_id, name, conflict, if_match, mtime_ms; `checksum` ("<algo>:<hex>",
  // BLAKE3 only) is checked against the whole content at completion.
  UploadRequest target;
  std::optional<uint64_t> length;
  std::string metadata;  // kept as sent (tus Upload-Metadata)
  int kind = 0;          // meta::UploadSessionRow::kind
  // A partial upload (kind 1) whose bytes follow another's: that part's
  // saved hash state, which this session's hashing continues (so the last
  // part's state hashes the concatenation). Empty: a fresh state.
  std::string hasher_seed;
  // Bytes other sessions hold on drive `ending_drive_id` that end in this
  // session's commit (the parts a concatenation joins): the file takes
  // their place, so its reservation's quota check does not count them
  // twice. The commit checks the quota again, with the parts gone.
  int64_t ending_drive_id = 0;
  int64_t ending_bytes = 0;
};

// The bytes one request brings to a session.
class SessionAppend {
 public:
  virtual ~SessionAppend() = default;
  virtual Status Write(const char* data, size_t len) = 0;
  // The request's body arrived whole: its bytes become durable and part of
  // the session (unless its checksum fails: nothing is kept).
  virtual Result<meta::UploadSessionRow> Finish() = 0;
  // The request was cut short: what arrived is kept, so the client resumes
  // from the session's new offset.
  virtual void Keep() = 0;
  // More work for the transaction that makes Finish's bytes part of the
  // session (it sees the session as updated); its failure fails Finish.
  using CommitHook = std::function<Status(meta::WriteTxn&, const meta::UploadSessionRow&)>;
  virtual void OnFinish(CommitHook hook) = 0;
  // Finish failed because the body's checksum did not match.
  virtual bool checksum_failed() const = 0;
};

// Delta uploads: the client cuts the file (ideally with the server's
// FastCDC parameters, so boundaries match), declares the chunks, and sends
// only those the server asks for. A chunk counts as present only when a
// file the caller can read lists it (their own drives, drives they are a
// member of, the file they overwrite): announcing someone else's chunk
// hash teaches nothing, the server asks for its bytes.
struct PlanChunk {
  meta::Digest hash{};
  uint32_t size = 0;
};
inline constexpr uint32_t kMaxPlanChunk = 4 << 20;  // bytes per declared chunk
// Partial uploads one concatenation may join (Nextcloud clients send up
// to 10,000 chunks).
inline constexpr size_t kMaxParts = 10000;

struct DeltaState {
  meta::UploadSessionRow session;
  // Index (in the plan) of the first occurrence of each chunk still needed.
  std::vector<uint32_t> needed;
  uint64_t needed_bytes = 0;
};

struct ConcatResult {
  meta::UploadSessionRow session;  // the final upload (completed)
  UploadResult file;
};

class UploadSessions {
 public:
  UploadSessions(Files& files, int64_t ttl_ms);

  Result<meta::UploadSessionRow> Create(const Principal& who, SessionSpec spec);
  // Create, then Append from offset 0, with one commit instead of two: the
  // session's row is written by the commit that makes its bytes durable
  // (Finish or Keep). Until then nobody else can see the session (`row`
  // says what it will be); an append that ends without a commit leaves
  // nothing behind. Unlike Append's, a long body is not committed in
  // stretches as it arrives (a Nextcloud chunk is sent again whole when it
  // was cut, so a stretch would be of no use, and each such commit waits
  // for the disk while the body waits behind it).
  Result<std::unique_ptr<SessionAppend>> CreateAndAppend(const Principal& who, SessionSpec spec,
                                                         meta::UploadSessionRow& row);
  // `settle`: first wait (a few seconds at most) for an append to it that
  // this process is still running (what a client asking where to resume
  // wants; see WaitIdle).
  Result<meta::UploadSessionRow> Get(const Principal& who, std::string_view id,
                                     bool settle = false);
  // Deferred length, declared once (Conflict if already known or below
  // the offset).
  Status DeclareLength(const Principal& who, std::string_view id, uint64_t length);
  // Bytes for the session from `offset`, which must be its current offset
  // (Conflict otherwise). `body_checksum`: the request body's checksum.
  Result<std::unique_ptr<SessionAppend>> Append(const Principal& who, std::string_view id,
                                                uint64_t offset,
                                                std::unique_ptr<Checksum> body_checksum);
  // Creates the file from a session whose every byte arrived; the session
  // stays, completed, until it expires (completing again answers the same
  // file).
  Result<UploadResult> Complete(const Principal& who, std::string_view id);
  // Joins complete partial sessions (kind 1) in order into one file
  // without copying their chunks; the parts end. `whole_hash`: the
  // concatenation's BLAKE3 when the caller knows it (from hash states
  // continued part to part); otherwise the parts' bytes are read to hash.
  // `checksum`: a client's whole-content checksum, verified before anything
  // is committed (its bytes read when it is not BLAKE3) and kept with the
  // content (KeepChecksum). `also`: more writes for the same commit (which
  // may run more than once, as any write callback). One read and one
  // commit, however many parts.
  using WriteHook = std::function<Status(meta::WriteTxn&)>;
  Result<ConcatResult> Concat(const Principal& who, SessionSpec spec,
                              const std::vector<std::string>& part_ids,
                              std::optional<meta::Digest> whole_hash = std::nullopt,
                              Checksum* checksum = nullptr, const WriteHook& also = nullptr);
  // A delta upload of `plan` (whose sizes add up to spec.length; the
  // whole-content BLAKE3 is spec.target.checksum, required).
  Result<DeltaState> CreateDelta(const Principal& who, SessionSpec spec,
                                 const std::vector<PlanChunk>& plan);
  Result<DeltaState> DeltaStatus(const Principal& who, std::string_view id);
  // The bytes of a chunk the plan declares (checked against its hash).
  Status PutDeltaChunk(const Principal& who, std::string_view id, const meta::Digest& hash,
                       std::string_view bytes);

  // Ends a session and releases what it holds.
  Status Cancel(const Principal& who, std::string_view id);
  // Maintenance: ends expired sessions. Returns how many.
  Result<int64_t> Expire(int64_t now_ms);

  int64_t ttl_ms() const { return ttl_ms_; }

 private:
  friend class SessionAppendImpl;
  // Everything Create checks and reserves, without writing the row.
  Result<meta::UploadSessionRow> Prepare(const Principal& who, SessionSpec spec);
  // Appends running in this process, by session: a HEAD or a new append
  // waits a moment for the one in progress, so a client that reconnects
  // right after its connection was cut learns the offset that includes
  // what the cut request delivered (the server notices the cut and stores
  // those bytes a few milliseconds after the client does). Only a wait:
  // correctness rests on the offsets checked in the metadata store.
  void WaitIdle(const std::string& id);
  void Enter(const std::string& id);
  void Leave(const std::string& id);

  Files& files_;
  int64_t ttl_ms_;
  std::mutex busy_mu_;
  std::condition_variable busy_cv_;
  std::multiset<std::string> busy_;
};

// Inside a drive's deletion: ends its upload sessions.
Status DropDriveUploads(meta::WriteTxn& t, int64_t drive_id, int64_t now_ms);

}  // namespace nubo::files
