// Upload sessions: see upload_sessions.h. Chunk-store I/O happens outside
// metadata transactions; each transaction re-reads the session and checks
// that it is still where the request found it.
#include "files/upload_sessions.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "content/fastcdc.h"
#include "content/in_flight.h"
#include "content/ingest.h"
#include "content/reader.h"
#include "content/refs.h"
#include "files/access.h"
#include "files/checksum.h"
#include "files/mime.h"
#include "files/names.h"
#include "util/ids.h"
#include "util/time.h"

namespace nubo::files {

using meta::ManifestChunk;
using meta::UploadSessionRow;

namespace {

constexpr uint64_t kStep = 64 << 20;          // quota reservation growth of a deferred length
constexpr uint64_t kPersistEvery = 64 << 20;  // bytes of one request between session commits
constexpr size_t kHeadBytes = 4096;           // what MIME sniffing looks at

Status NoSuchUpload() { return Status::NotFound("no such upload"); }

// The caller's session `id`; anyone else's answers NotFound.
Result<UploadSessionRow> LoadSession(meta::ReadTxn& t, const Principal& who, std::string_view id) {
  if (id.empty() || id.size() > 64) return NoSuchUpload();
  NUBO_ASSIGN_OR_RETURN(auto row, t.GetUploadSession(std::string(id)));
  if (!row || row->user_id != who.user_id || who.link()) return NoSuchUpload();
  if (row->expires_at_ms <= UnixMillis()) return NoSuchUpload();
  return std::move(*row);
}

// Every reference a session holds: its chunk rows and its tail.
Result<std::vector<meta::Digest>> HeldChunks(meta::ReadTxn& t, const UploadSessionRow& s) {
  NUBO_ASSIGN_OR_RETURN(auto rows, t.UploadSessionChunks(s.id));
  std::vector<meta::Digest> out;
  out.reserve(rows.size() + 1);
  for (const auto& c : rows) out.push_back(c.hash);
  if (s.tail_hash) out.push_back(*s.tail_hash);
  return out;
}

// Deletes a session's reservation and its row (with its chunk rows) inside
// `t`; the references it held are the caller's to release.
Status DropSession(meta::WriteTxn& t, const UploadSessionRow& s) {
  if (s.reservation_id) {
    Status st = t.DeleteReservation(s.reservation_id);
    if (!st.ok() && st.code() != Code::kNotFound) return st;
  }
  return t.DeleteUploadSession(s.id);
}

// Ends a session inside `t`: its references, its reservation and its row.
Status EndSession(meta::WriteTxn& t, const UploadSessionRow& s, int64_t now) {
  NUBO_ASSIGN_OR_RETURN(auto held, HeldChunks(t, s));
  NUBO_RETURN_IF_ERROR(content::ReleaseChunks(t, held, now));
  return DropSession(t, s);
}

// A chunk stored outside the transaction that is about to reference it:
// unless something references it already, it must still be on disk (GC
// deletes unreferenced files inside its own write transaction, so this
// check cannot interleave with it).
Status StillStored(meta::ReadTxn& t, blob::ChunkStore& chunks, const meta::Digest& h,
                   uint64_t size) {
  NUBO_ASSIGN_OR_RETURN(auto row, t.GetChunk(h));
  if (row && row->refs > 0) return Status::Ok();
  auto info = chunks.Stat(h);
  if (!info.ok() || info->size != size) {
    return Status::Aborted("chunk " + DigestHex(h) + " vanished before commit; retry");
  }
  return Status::Ok();
}

UploadRequest TargetOf(const UploadSessionRow& s) {
  UploadRequest r;
  r.parent_id = s.parent_public_id;
  r.name = s.name;
  r.conflict = static_cast<Conflict>(s.conflict);
  r.if_match = s.if_match;
  r.mtime_ms = s.mtime_ms;
  if (s.length) r.expected_size = static_cast<uint64_t>(*s.length);
  return r;
}

// Pins chunks against GC while they have no row (content/in_flight.h).
class Pins {
 public:
  ~Pins() {
    for (const auto& h : held_) content::InFlightChunks::Instance().Unpin(h);
  }
  void Add(const meta::Digest& h) {
    content::InFlightChunks::Instance().Pin(h);
    held_.push_back(h);
  }

 private:
  std::vector<meta::Digest> held_;
};

// The session's complete chunk list: its rows, then its tail cut as the
// end of a stream (the boundaries one uninterrupted upload would have),
// storing the pieces (pinned until the caller's commit).
// The session's tail cut as the end of a stream, appended to `list` (its
// rows), the pieces stored and pinned until the caller's commit.
Status CutTail(blob::ChunkStore& chunks, const UploadSessionRow& s,
               std::vector<ManifestChunk>& list, Pins& pins) {
  if (!s.tail_hash || s.tail_size == 0) return Status::Ok();
  std::string tail(static_cast<size_t>(s.tail_size), '\0');
  NUBO_RETURN_IF_ERROR(chunks.Read(*s.tail_hash, 0, tail.size(), tail.data()));
  uint64_t offset = static_cast<uint64_t>(s.offset - s.tail_size);
  content::FastCdc cdc;
  auto emit = [&](std::string_view piece) -> Status {
    ManifestChunk c;
    c.seq = static_cast<uint32_t>(list.size());
    c.hash = Blake3::Hash(piece);
    c.offset = offset;
    c.size = static_cast<uint32_t>(piece.size());
    pins.Add(c.hash);
    NUBO_RETURN_IF_ERROR(chunks.Put(c.hash, piece));
    offset += piece.size();
    list.push_back(c);
    return Status::Ok();
  };
  NUBO_RETURN_IF_ERROR(cdc.Update(tail.data(), tail.size(), emit));
  return cdc.Finish(emit);
}

Result<std::vector<ManifestChunk>> FinalChunks(meta::MetaStore& meta, blob::ChunkStore& chunks,
                                               const UploadSessionRow& s, Pins& pins) {
  std::vector<ManifestChunk> list;
  NUBO_RETURN_IF_ERROR(meta.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(list, t.UploadSessionChunks(s.id));
    return Status::Ok();
  }));
  NUBO_RETURN_IF_ERROR(CutTail(chunks, s, list, pins));
  return list;
}

// BLAKE3 of the content `list` describes, read back from the store (a
// hash state saved by another build, or parts joined by concatenation).
// `also`: fed the same bytes (a client checksum to verify).
Result<meta::Digest> HashChunks(blob::ChunkStore& chunks, const std::vector<ManifestChunk>& list,
                                Checksum* also = nullptr) {
  Blake3 h;
  std::string buf;
  for (const auto& c : list) {
    buf.resize(c.size);
    NUBO_RETURN_IF_ERROR(content::ReadChunk(chunks, c, 0, c.size, buf.data()));
    h.Update(buf);
    if (also) also->Update(buf.data(), buf.size());
  }
  return h.Final();
}

// The first bytes of the content, for MIME sniffing.
std::string Head(blob::ChunkStore& chunks, const std::vector<ManifestChunk>& list) {
  std::string head;
  for (const auto& c : list) {
    if (head.size() >= kHeadBytes) break;
    const size_t want = std::min<size_t>(c.size, kHeadBytes - head.size());
    std::string piece(want, '\0');
    if (!content::ReadChunk(chunks, c, 0, want, piece.data()).ok()) break;
    head += piece;
  }
  return head;
}

std::string EncodePlan(const std::vector<PlanChunk>& plan) {
  std::string out;
  out.reserve(plan.size() * 36);
  for (const PlanChunk& c : plan) {
    out.append(reinterpret_cast<const char*>(c.hash.data()), c.hash.size());
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((c.size >> (8 * i)) & 0xff));
  }
  return out;
}

std::vector<PlanChunk> DecodePlan(const std::string& blob) {
  std::vector<PlanChunk> out(blob.size() / 36);
  for (size_t i = 0; i < out.size(); ++i) {
    const char* p = blob.data() + i * 36;
    std::memcpy(out[i].hash.data(), p, 32);
    uint32_t size = 0;
    for (int b = 0; b < 4; ++b)
      size |= static_cast<uint32_t>(static_cast<uint8_t>(p[32 + b])) << (8 * b);
    out[i].size = size;
  }
  return out;
}

// The plan's rows: seq = index, offsets from the sizes before it.
std::vector<ManifestChunk> PlanRows(const std::vector<PlanChunk>& plan,
                                    const std::vector<uint32_t>& indexes) {
  std::vector<uint64_t> offsets(plan.size());
  uint64_t off = 0;
  for (size_t i = 0; i < plan.size(); ++i) {
    offsets[i] = off;
    off += plan[i].size;
  }
  std::vector<ManifestChunk> out;
  out.reserve(indexes.size());
  for (uint32_t i : indexes)
    out.push_back(ManifestChunk{i, plan[i].hash, offsets[i], plan[i].size});
  return out;
}

// First index of each distinct chunk the session does not hold yet.
DeltaState Needed(const UploadSessionRow& s, const std::vector<PlanChunk>& plan,
                  const std::vector<ManifestChunk>& held) {
  DeltaState out;
  out.session = s;
  std::vector<bool> have(plan.size());
  for (const auto& c : held) {
    if (c.seq < have.size()) have[c.seq] = true;
  }
  std::set<meta::Digest> asked;
  for (uint32_t i = 0; i < plan.size(); ++i) {
    if (have[i] || !asked.insert(plan[i].hash).second) continue;
    out.needed.push_back(i);
    out.needed_bytes += plan[i].size;
  }
  return out;
}

std::vector<std::pair<meta::Digest, uint32_t>> Sized(const std::vector<ManifestChunk>& list) {
  std::vector<std::pair<meta::Digest, uint32_t>> out;
  out.reserve(list.size());
  for (const auto& c : list) out.emplace_back(c.hash, c.size);
  return out;
}

}  // namespace

// ---- Appending ----

class SessionAppendImpl final : public SessionAppend {
 public:
  SessionAppendImpl(UploadSessions& owner, Principal who, UploadSessionRow s,
                    std::unique_ptr<Checksum> checksum)
      : owner_(owner),
        files_(owner.files_),
        who_(std::move(who)),
        s_(std::move(s)),
        start_(s_.offset),
        checksum_(std::move(checksum)),
        ingest_(files_.chunks()) {}

  ~SessionAppendImpl() override {
    // Neither finished nor kept: the request failed on our side (over the
    // length, quota, a bad checksum): what it stored goes at once.
    if (!done_) ingest_.Discard(files_.meta());
    // A session whose row was never written holds its reservation alone.
    if (unsaved_) files_.Unreserve(s_.reservation_id);
    owner_.Leave(s_.public_id);
  }

  // The session's row is not in the store yet: the first commit of its
  // bytes writes it (UploadSessions::CreateAndAppend).
  void set_unsaved() { unsaved_ = true; }
  // Kept whole or not at all: no commit while the body arrives.
  void set_whole() { whole_ = true; }

  Status Start(std::string_view tail) {
    Status st = ingest_.Resume(s_.hasher, tail, static_cast<uint64_t>(s_.offset),
                               static_cast<uint32_t>(chunk_count_));
    if (st.ok() || unsaved_) return st;
    // A hash state from another build: hash the received bytes again.
    std::vector<ManifestChunk> list;
    NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(list, t.UploadSessionChunks(s_.id));
      return Status::Ok();
    }));
    Blake3 h;
    std::string buf;
    for (const auto& c : list) {
      buf.resize(c.size);
      NUBO_RETURN_IF_ERROR(content::ReadChunk(files_.chunks(), c, 0, c.size, buf.data()));
      h.Update(buf);
    }
    h.Update(tail);
    s_.hasher = h.SaveState();
    return ingest_.Resume(s_.hasher, tail, static_cast<uint64_t>(s_.offset),
                          static_cast<uint32_t>(chunk_count_));
  }
  void set_chunk_count(size_t n) { chunk_count_ = n; }

  Status Write(const char* data, size_t len) override {
    const uint64_t total = static_cast<uint64_t>(start_) + received_ + len;
    if (s_.length && total > static_cast<uint64_t>(*s_.length)) {
      return Status::InvalidArgument("the body goes past the upload's declared length");
    }
    const uint64_t max = files_.options().max_upload;
    if (max && total > max) {
      return Status::TooLarge("file is larger than the server's upload limit of " +
                              std::to_string(max) + " bytes");
    }
    NUBO_RETURN_IF_ERROR(Budget(total));
    if (checksum_) {
      checksum_->Update(data, len);
      body_hash_.Update(data, len);
    }
    NUBO_RETURN_IF_ERROR(ingest_.Write(data, len));
    received_ += len;  // only bytes the ingest took count as received
    // A long request becomes durable part of the session as it goes, so a
    // crash loses at most the last stretch (not with a body checksum: its
    // bytes count only once the whole body matched; nor for a body kept
    // whole or not at all, see set_whole).
    if (!checksum_ && !whole_ && received_ >= kPersistEvery) {
      NUBO_RETURN_IF_ERROR(Persist().status());
    }
    return Status::Ok();
  }

  Result<UploadSessionRow> Finish() override {
    if (checksum_) {
      if (Status st = checksum_->Verify(body_hash_.Final()); !st.ok()) {
        checksum_failed_ = true;
        return st;
      }
    }
    auto r = Persist(on_finish_);
    if (r.ok()) done_ = true;
    return r;
  }

  bool checksum_failed() const override { return checksum_failed_; }

  void Keep() override {
    if (done_) return;
    // A body cut short has no checksum to trust (tus §checksum: the bytes
    // of a PATCH whose checksum cannot be verified are not kept).
    if (checksum_ || received_ == 0) return;
    if (Persist().ok()) done_ = true;
  }

 private:
  // Deferred length with a quota: the reservation grows by steps as bytes
  // arrive, and the upload stops with 507 when the quota cannot hold more.
  Status Budget(uint64_t total) {
    if (!s_.reservation_id || s_.length) return Status::Ok();
    if (static_cast<int64_t>(total) <= reserved_) return Status::Ok();
    // A step ahead, or exactly what arrived when the quota is that tight.
    int64_t want = static_cast<int64_t>(total + kStep);
    auto id = files_.Reserve(s_.drive_id, s_.reservation_id, want, true, s_.expires_at_ms);
    if (!id.ok() && id.status().code() == Code::kQuotaExceeded) {
      want = static_cast<int64_t>(total);
      id = files_.Reserve(s_.drive_id, s_.reservation_id, want, true, s_.expires_at_ms);
    }
    if (!id.ok()) return id.status();
    s_.reservation_id = *id;
    reserved_ = want;
    return Status::Ok();
  }

  void OnFinish(CommitHook hook) override { on_finish_ = std::move(hook); }

  Result<UploadSessionRow> Persist(const CommitHook& hook = nullptr) {
    // The bytes after the last boundary are kept as a chunk of their own
    // (the tail), durable in the same batch commit as the chunks before.
    NUBO_ASSIGN_OR_RETURN(auto flushed, ingest_.FlushWithTail());
    const std::vector<ManifestChunk>& fresh = flushed.chunks;
    const std::optional<meta::Digest>& tail_hash = flushed.tail;
    const size_t tail_size = ingest_.Pending().size();
    const int64_t now = UnixMillis();
    UploadSessionRow out;
    NUBO_RETURN_IF_ERROR(files_.meta().Write([&](meta::WriteTxn& t) -> Status {
      if (unsaved_) NUBO_RETURN_IF_ERROR(t.InsertUploadSession(s_));
      NUBO_ASSIGN_OR_RETURN(out, LoadSession(t, who_, s_.public_id));
      if (out.offset != start_ || !out.result_node.empty()) {
        return Status::Conflict("another request appended to this upload meanwhile");
      }
      for (const auto& c : fresh) {
        NUBO_RETURN_IF_ERROR(StillStored(t, files_.chunks(), c.hash, c.size));
      }
      if (tail_hash) NUBO_RETURN_IF_ERROR(StillStored(t, files_.chunks(), *tail_hash, tail_size));
      auto add = Sized(fresh);
      if (tail_hash) add.emplace_back(*tail_hash, static_cast<uint32_t>(tail_size));
      NUBO_RETURN_IF_ERROR(content::AcquireChunks(t, add));
      if (out.tail_hash) NUBO_RETURN_IF_ERROR(content::ReleaseChunks(t, {*out.tail_hash}, now));
      NUBO_RETURN_IF_ERROR(t.AppendUploadSessionChunks(out.id, fresh));
      out.offset = start_ + static_cast<int64_t>(received_);
      out.received_bytes += static_cast<int64_t>(received_);
      out.hasher = ingest_.SaveHasher();
      out.tail_hash = tail_hash;
      out.tail_size = static_cast<int64_t>(tail_size);
      out.reservation_id = s_.reservation_id;
      NUBO_RETURN_IF_ERROR(t.UpdateUploadSession(out));
      return hook ? hook(t, out) : Status::Ok();
    }));
    unsaved_ = false;
    start_ = out.offset;
    received_ = 0;
    return out;
  }

  UploadSessions& owner_;
  Files& files_;
  Principal who_;
  UploadSessionRow s_;
  int64_t start_;
  std::unique_ptr<Checksum> checksum_;
  Blake3 body_hash_;
  content::Ingest ingest_;
  size_t chunk_count_ = 0;
  uint64_t received_ = 0;
  int64_t reserved_ = 0;
  bool done_ = false;
  bool checksum_failed_ = false;
  bool unsaved_ = false;
  bool whole_ = false;
  CommitHook on_finish_;
};

// ---- Sessions ----

UploadSessions::UploadSessions(Files& files, int64_t ttl_ms) : files_(files), ttl_ms_(ttl_ms) {}

void UploadSessions::WaitIdle(const std::string& id) {
  std::unique_lock lock(busy_mu_);
  busy_cv_.wait_for(lock, std::chrono::seconds(3), [&] { return busy_.count(id) == 0; });
}

void UploadSessions::Enter(const std::string& id) {
  std::lock_guard lock(busy_mu_);
  busy_.insert(id);
}

void UploadSessions::Leave(const std::string& id) {
  {
    std::lock_guard lock(busy_mu_);
    auto it = busy_.find(id);
    if (it != busy_.end()) busy_.erase(it);
  }
  busy_cv_.notify_all();
}

Result<UploadSessionRow> UploadSessions::Prepare(const Principal& who, SessionSpec spec) {
  if (who.link()) return Status::PermissionDenied("resumable uploads need an account");
  UploadRequest& req = spec.target;
  NUBO_ASSIGN_OR_RETURN(req.name, ValidateName(req.name));
  if (!req.checksum.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto c, Checksum::Parse(req.checksum));
    (void)c;
    if (req.checksum.rfind("blake3:", 0) != 0 && req.checksum.rfind("BLAKE3:", 0) != 0) {
      return Status::InvalidArgument("an upload's whole-content checksum must be BLAKE3");
    }
  }
  const uint64_t max = files_.options().max_upload;
  if (max && spec.length && *spec.length > max) {
    return Status::TooLarge("file is larger than the server's upload limit of " +
                            std::to_string(max) + " bytes");
  }
  NUBO_RETURN_IF_ERROR(files_.CheckFreeSpace(spec.length.value_or(0)));
  Files::UploadTarget target;
  if (spec.kind == 1) {
    // A tus partial upload only holds bytes for a later concatenation,
    // which checks the real target; its quota is the caller's drive's.
    NUBO_ASSIGN_OR_RETURN(DriveInfo d, files_.PersonalDrive(who));
    target.drive_id = d.drive.id;
    target.quota = d.usage.quota_bytes.has_value();
  } else {
    NUBO_ASSIGN_OR_RETURN(target, files_.CheckUploadTarget(who, req));
  }
  const int64_t now = UnixMillis();
  UploadSessionRow s;
  s.public_id = RandomHex(16);
  s.user_id = who.user_id;
  s.drive_id = target.drive_id;
  s.parent_public_id = req.parent_id;
  s.name = req.name;
  s.conflict = static_cast<int>(req.conflict);
  s.if_match = req.if_match;
  if (spec.length) s.length = static_cast<int64_t>(*spec.length);
  s.mtime_ms = req.mtime_ms;
  s.metadata = spec.metadata;
  s.kind = spec.kind;
  s.hasher = spec.kind == 1 && !spec.hasher_seed.empty() ? spec.hasher_seed : Blake3().SaveState();
  s.checksum = req.checksum;
  s.created_at_ms = now;
  s.expires_at_ms = now + ttl_ms_;
  if (target.quota) {
    // The declared length (beyond the file it replaces) from now on; a
    // deferred length reserves as bytes arrive.
    const int64_t bytes =
        spec.length ? std::max<int64_t>(0, static_cast<int64_t>(*spec.length) - target.credit) : 0;
    const int64_t ending = spec.ending_drive_id == s.drive_id ? spec.ending_bytes : 0;
    NUBO_ASSIGN_OR_RETURN(s.reservation_id,
                          files_.Reserve(s.drive_id, 0, bytes, true, s.expires_at_ms, ending));
  }
  return s;
}

Result<UploadSessionRow> UploadSessions::Create(const Principal& who, SessionSpec spec) {
  NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, Prepare(who, std::move(spec)));
  Status st = files_.meta().Write([&](meta::WriteTxn& t) { return t.InsertUploadSession(s); });
  if (!st.ok()) {
    files_.Unreserve(s.reservation_id);
    return st;
  }
  return s;
}

Result<std::unique_ptr<SessionAppend>> UploadSessions::CreateAndAppend(const Principal& who,
                                                                       SessionSpec spec,
                                                                       UploadSessionRow& row) {
  NUBO_ASSIGN_OR_RETURN(row, Prepare(who, std::move(spec)));
  Enter(row.public_id);  // left by the append's destructor
  auto append = std::make_unique<SessionAppendImpl>(*this, who, row, nullptr);
  append->set_unsaved();  // from here on the append owns the reservation
  append->set_whole();
  NUBO_RETURN_IF_ERROR(append->Start(""));
  return std::unique_ptr<SessionAppend>(std::move(append));
}

Result<UploadSessionRow> UploadSessions::Get(const Principal& who, std::string_view id,
                                             bool settle) {
  if (settle && !id.empty() && id.size() <= 64) WaitIdle(std::string(id));
  UploadSessionRow out;
  NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(out, LoadSession(t, who, id));
    return Status::Ok();
  }));
  return out;
}

Status UploadSessions::DeclareLength(const Principal& who, std::string_view id, uint64_t length) {
  const uint64_t max = files_.options().max_upload;
  if (max && length > max) {
    return Status::TooLarge("file is larger than the server's upload limit of " +
                            std::to_string(max) + " bytes");
  }
  return files_.meta().Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, LoadSession(t, who, id));
    if (s.length) return Status::Conflict("the upload's length is already known");
    if (static_cast<int64_t>(length) < s.offset) {
      return Status::Conflict("the declared length is below the bytes already received");
    }
    s.length = static_cast<int64_t>(length);
    if (s.reservation_id) {
      NUBO_RETURN_IF_ERROR(CheckQuota(t, s.drive_id, s.length.value(), s.reservation_id));
      NUBO_RETURN_IF_ERROR(t.UpdateReservation(s.reservation_id, *s.length, s.expires_at_ms));
    }
    return t.UpdateUploadSession(s);
  });
}

Result<std::unique_ptr<SessionAppend>> UploadSessions::Append(
    const Principal& who, std::string_view id, uint64_t offset,
    std::unique_ptr<Checksum> body_checksum) {
  if (!id.empty() && id.size() <= 64) WaitIdle(std::string(id));
  UploadSessionRow s;
  size_t count = 0;
  NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(s, LoadSession(t, who, id));
    NUBO_ASSIGN_OR_RETURN(auto rows, t.UploadSessionChunks(s.id));
    count = rows.size();
    return Status::Ok();
  }));
  if (!s.result_node.empty()) return Status::Conflict("the upload is complete");
  if (s.kind == 2) return Status::Conflict("a delta upload takes chunks, not a byte stream");
  if (static_cast<int64_t>(offset) != s.offset) {
    return Status::Conflict("the upload is at offset " + std::to_string(s.offset) + ", not " +
                            std::to_string(offset));
  }
  std::string tail;
  if (s.tail_hash && s.tail_size > 0) {
    tail.resize(static_cast<size_t>(s.tail_size));
    NUBO_RETURN_IF_ERROR(files_.chunks().Read(*s.tail_hash, 0, tail.size(), tail.data()));
  }
  Enter(s.public_id);  // left by the append's destructor
  auto append = std::make_unique<SessionAppendImpl>(*this, who, s, std::move(body_checksum));
  append->set_chunk_count(count);
  NUBO_RETURN_IF_ERROR(append->Start(tail));
  return std::unique_ptr<SessionAppend>(std::move(append));
}

Result<UploadResult> UploadSessions::Complete(const Principal& who, std::string_view id) {
  NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, Get(who, id));
  if (!s.result_node.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto n, files_.Get(who, s.result_node));
    return UploadResult{std::move(n), false};
  }
  if (!s.length) return Status::Conflict("the upload's length is not known yet");
  if (s.offset != *s.length && s.kind != 2) {
    return Status::Conflict("the upload has " + std::to_string(s.offset) + " of " +
                            std::to_string(*s.length) + " bytes");
  }
  Pins pins;
  NUBO_ASSIGN_OR_RETURN(auto list, FinalChunks(files_.meta(), files_.chunks(), s, pins));
  content::ManifestDraft draft;
  draft.size = static_cast<uint64_t>(s.offset);
  draft.chunks = list;
  Blake3 state;
  if (s.kind == 2) {
    // Chunks that came from the client's plan: the content is what they
    // hash to together, checked against the declared whole-file hash.
    if (list.size() != s.plan.size() / 36) {
      return Status::Conflict(std::to_string(s.plan.size() / 36 - list.size()) +
                              " chunks of the upload are still missing");
    }
    NUBO_ASSIGN_OR_RETURN(draft.hash, HashChunks(files_.chunks(), list));
  } else if (state.RestoreState(s.hasher)) {
    draft.hash = state.Final();
  } else {
    NUBO_ASSIGN_OR_RETURN(draft.hash, HashChunks(files_.chunks(), list));
  }
  if (!s.checksum.empty()) {
    NUBO_ASSIGN_OR_RETURN(auto c, Checksum::Parse(s.checksum));
    NUBO_RETURN_IF_ERROR(c->Verify(draft.hash));
  }
  const std::string mime = DetectMime(s.name, Head(files_.chunks(), list));
  const int64_t now = UnixMillis();
  UploadResult out;
  NUBO_RETURN_IF_ERROR(files_.meta().Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(UploadSessionRow cur, LoadSession(t, who, id));
    if (cur.offset != s.offset || !cur.result_node.empty()) {
      return Status::Conflict("another request completed this upload meanwhile");
    }
    for (const auto& c : list)
      NUBO_RETURN_IF_ERROR(StillStored(t, files_.chunks(), c.hash, c.size));
    NUBO_ASSIGN_OR_RETURN(int64_t manifest, content::AcquireManifest(t, draft, now));
    NUBO_ASSIGN_OR_RETURN(auto held, HeldChunks(t, cur));
    NUBO_RETURN_IF_ERROR(content::ReleaseChunks(t, held, now));
    NUBO_RETURN_IF_ERROR(t.ClearUploadSessionChunks(cur.id));
    NUBO_ASSIGN_OR_RETURN(out, files_.AttachFile(t, who, TargetOf(cur), manifest, draft.size, mime,
                                                 cur.reservation_id));
    if (cur.reservation_id) {
      Status st = t.DeleteReservation(cur.reservation_id);
      if (!st.ok() && st.code() != Code::kNotFound) return st;
    }
    cur.reservation_id = 0;
    cur.tail_hash.reset();
    cur.tail_size = 0;
    cur.result_node = out.node.public_id;
    return t.UpdateUploadSession(cur);
  }));
  files_.NoteRecent(who.user_id, out.node.id);
  return out;
}

Result<ConcatResult> UploadSessions::Concat(const Principal& who, SessionSpec spec,
                                            const std::vector<std::string>& part_ids,
                                            std::optional<meta::Digest> whole_hash,
                                            Checksum* checksum, const WriteHook& also) {
  if (part_ids.empty()) return Status::InvalidArgument("a concatenation needs partial uploads");
  if (part_ids.size() > kMaxParts) {
    return Status::InvalidArgument("at most " + std::to_string(kMaxParts) + " partial uploads");
  }
  // Each part, complete, with its chunk rows: one read of every part (a
  // file sent in 10 MiB chunks has a hundred parts a GiB).
  std::vector<UploadSessionRow> parts;
  std::vector<std::vector<ManifestChunk>> lists;
  NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
    for (const std::string& pid : part_ids) {
      NUBO_ASSIGN_OR_RETURN(UploadSessionRow p, LoadSession(t, who, pid));
      if (p.kind != 1) return Status::InvalidArgument("upload " + pid + " is not a partial upload");
      if (!p.length || p.offset != *p.length || !p.result_node.empty()) {
        return Status::InvalidArgument("partial upload " + pid + " is not complete");
      }
      NUBO_ASSIGN_OR_RETURN(auto list, t.UploadSessionChunks(p.id));
      parts.push_back(std::move(p));
      lists.push_back(std::move(list));
    }
    return Status::Ok();
  }));
  // The references the parts hold, which pass to the file's manifest: their
  // chunk rows as read, and their tails. The commit finds each part as it
  // was read (the same offset: a session's rows change only with it, as
  // Append's commit checks too), so these are still its rows then.
  std::vector<meta::Digest> released;
  for (size_t i = 0; i < parts.size(); ++i) {
    for (const ManifestChunk& c : lists[i]) released.push_back(c.hash);
    if (parts[i].tail_hash) released.push_back(*parts[i].tail_hash);
  }
  // Each part's tail cut as the end of its stream, in order.
  Pins pins;
  content::ManifestDraft draft;
  for (size_t i = 0; i < parts.size(); ++i) {
    NUBO_RETURN_IF_ERROR(CutTail(files_.chunks(), parts[i], lists[i], pins));
    for (ManifestChunk c : lists[i]) {
      c.seq = static_cast<uint32_t>(draft.chunks.size());
      c.offset = draft.size;
      draft.size += c.size;
      draft.chunks.push_back(c);
    }
  }
  lists.clear();
  spec.length = draft.size;
  // The parts' reservations hold these bytes until the commit ends them.
  for (const UploadSessionRow& p : parts) {
    if (!p.reservation_id) continue;
    spec.ending_drive_id = p.drive_id;  // every part is on the caller's own drive
    spec.ending_bytes += p.offset;
  }
  // A SHA-1 or MD5 to verify reads the bytes even when the BLAKE3 is known.
  if (whole_hash && !(checksum && checksum->NeedsBytes())) {
    draft.hash = *whole_hash;
  } else {
    NUBO_ASSIGN_OR_RETURN(draft.hash, HashChunks(files_.chunks(), draft.chunks, checksum));
  }
  if (checksum) NUBO_RETURN_IF_ERROR(checksum->Verify(draft.hash));
  // The final upload's row is written by the commit that creates the file.
  NUBO_ASSIGN_OR_RETURN(UploadSessionRow final_s, Prepare(who, spec));
  const std::string mime = DetectMime(final_s.name, Head(files_.chunks(), draft.chunks));
  const int64_t now = UnixMillis();
  ConcatResult out;
  Status st = files_.meta().Write([&](meta::WriteTxn& t) -> Status {
    // The parts end; the references they held pass to the manifest.
    for (const UploadSessionRow& p : parts) {
      NUBO_ASSIGN_OR_RETURN(UploadSessionRow cur, LoadSession(t, who, p.public_id));
      if (cur.offset != p.offset || cur.tail_hash != p.tail_hash || !cur.result_node.empty()) {
        return Status::Conflict("a partial upload changed meanwhile");
      }
      NUBO_RETURN_IF_ERROR(DropSession(t, cur));
    }
    // A chunk a part holds is counted until this commit; only the pieces
    // cut from the tails may have no row yet.
    const std::set<meta::Digest> counted(released.begin(), released.end());
    for (const auto& c : draft.chunks) {
      if (counted.count(c.hash) == 0) {
        NUBO_RETURN_IF_ERROR(StillStored(t, files_.chunks(), c.hash, c.size));
      }
    }
    NUBO_ASSIGN_OR_RETURN(int64_t manifest,
                          content::AcquireManifestReleasing(t, draft, released, now));
    UploadSessionRow cur = final_s;
    NUBO_ASSIGN_OR_RETURN(out.file, files_.AttachFile(t, who, TargetOf(cur), manifest, draft.size,
                                                      mime, cur.reservation_id));
    if (checksum) NUBO_RETURN_IF_ERROR(KeepChecksum(t, manifest, *checksum));
    if (cur.reservation_id) {
      Status del = t.DeleteReservation(cur.reservation_id);
      if (!del.ok() && del.code() != Code::kNotFound) return del;
    }
    cur.reservation_id = 0;
    cur.offset = static_cast<int64_t>(draft.size);
    cur.result_node = out.file.node.public_id;
    NUBO_RETURN_IF_ERROR(t.InsertUploadSession(cur));
    out.session = cur;
    return also ? also(t) : Status::Ok();
  });
  if (!st.ok()) {
    files_.Unreserve(final_s.reservation_id);
    return st;
  }
  files_.NoteRecent(who.user_id, out.file.node.id);
  return out;
}

Result<DeltaState> UploadSessions::CreateDelta(const Principal& who, SessionSpec spec,
                                               const std::vector<PlanChunk>& plan) {
  if (!spec.length) return Status::InvalidArgument("a delta upload declares its size");
  uint64_t total = 0;
  for (const PlanChunk& c : plan) {
    if (c.size == 0 || c.size > kMaxPlanChunk) {
      return Status::InvalidArgument("chunks must have 1 to " + std::to_string(kMaxPlanChunk) +
                                     " bytes");
    }
    total += c.size;
  }
  if (total != *spec.length) {
    return Status::InvalidArgument("the chunks' sizes add up to " + std::to_string(total) +
                                   ", not the declared size");
  }
  if (spec.target.checksum.rfind("blake3:", 0) != 0) {
    return Status::InvalidArgument("a delta upload declares the whole file's BLAKE3");
  }
  spec.kind = 2;
  NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, Create(who, spec));
  // Where the caller may read every file: their drives. Plus the file this
  // upload replaces, which they may read (CheckUploadTarget allowed it).
  NUBO_ASSIGN_OR_RETURN(auto drives, files_.Drives(who));
  std::vector<int64_t> readable;
  for (const DriveInfo& d : drives) readable.push_back(d.drive.id);
  int64_t target_manifest = 0;
  NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(meta::NodeRow parent,
                          AccessFolder(t, who, s.parent_public_id, Action::kCreate));
    NUBO_ASSIGN_OR_RETURN(auto hit, t.FindChild(parent.id, NameKey(s.name), who.user_id));
    if (hit && hit->manifest_id && authz::Check(t, who, *hit, Action::kRead).ok()) {
      target_manifest = *hit->manifest_id;
    }
    return Status::Ok();
  }));
  DeltaState out;
  Status st = files_.meta().Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(UploadSessionRow cur, LoadSession(t, who, s.public_id));
    std::map<meta::Digest, bool> present;
    std::vector<uint32_t> have;
    int64_t bytes = 0;
    for (uint32_t i = 0; i < plan.size(); ++i) {
      auto it = present.find(plan[i].hash);
      if (it == present.end()) {
        NUBO_ASSIGN_OR_RETURN(bool listed,
                              t.ChunkListedIn(plan[i].hash, readable, target_manifest));
        if (listed) {
          NUBO_ASSIGN_OR_RETURN(auto row, t.GetChunk(plan[i].hash));
          if (!row || row->size != plan[i].size) {
            return Status::InvalidArgument("chunk " + std::to_string(i) +
                                           " does not have the size its hash has");
          }
        }
        it = present.emplace(plan[i].hash, listed).first;
      }
      if (it->second) {
        have.push_back(i);
        bytes += plan[i].size;
      }
    }
    auto rows = PlanRows(plan, have);
    NUBO_RETURN_IF_ERROR(content::AcquireChunks(t, Sized(rows)));
    NUBO_RETURN_IF_ERROR(t.AppendUploadSessionChunks(cur.id, rows));
    cur.plan = EncodePlan(plan);
    cur.offset = bytes;
    NUBO_RETURN_IF_ERROR(t.UpdateUploadSession(cur));
    out = Needed(cur, plan, rows);
    return Status::Ok();
  });
  if (!st.ok()) {
    (void)Cancel(who, s.public_id);
    return st;
  }
  return out;
}

Result<DeltaState> UploadSessions::DeltaStatus(const Principal& who, std::string_view id) {
  DeltaState out;
  NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, LoadSession(t, who, id));
    if (s.kind != 2) return NoSuchUpload();
    NUBO_ASSIGN_OR_RETURN(auto held, t.UploadSessionChunks(s.id));
    out = Needed(s, DecodePlan(s.plan), held);
    return Status::Ok();
  }));
  return out;
}

Status UploadSessions::PutDeltaChunk(const Principal& who, std::string_view id,
                                     const meta::Digest& hash, std::string_view bytes) {
  UploadSessionRow s;
  NUBO_RETURN_IF_ERROR(files_.meta().Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(s, LoadSession(t, who, id));
    return Status::Ok();
  }));
  if (s.kind != 2) return NoSuchUpload();
  if (!s.result_node.empty()) return Status::Conflict("the upload is complete");
  const std::vector<PlanChunk> plan = DecodePlan(s.plan);
  std::vector<uint32_t> indexes;
  for (uint32_t i = 0; i < plan.size(); ++i) {
    if (plan[i].hash == hash) indexes.push_back(i);
  }
  if (indexes.empty()) return Status::NotFound("the upload declares no such chunk");
  if (bytes.size() != plan[indexes[0]].size) {
    return Status::InvalidArgument("the chunk has " + std::to_string(bytes.size()) +
                                   " bytes; the upload declared " +
                                   std::to_string(plan[indexes[0]].size));
  }
  if (Blake3::Hash(bytes) != hash) {
    return Status::InvalidArgument("the bytes do not hash to the chunk's BLAKE3");
  }
  Pins pins;
  pins.Add(hash);
  NUBO_RETURN_IF_ERROR(files_.chunks().Put(hash, bytes));
  return files_.meta().Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(UploadSessionRow cur, LoadSession(t, who, id));
    NUBO_ASSIGN_OR_RETURN(auto held, t.UploadSessionChunks(cur.id));
    std::set<uint32_t> have;
    for (const auto& c : held) have.insert(c.seq);
    std::vector<uint32_t> missing;
    for (uint32_t i : indexes) {
      if (!have.count(i)) missing.push_back(i);
    }
    cur.received_bytes += static_cast<int64_t>(bytes.size());
    if (!missing.empty()) {
      NUBO_RETURN_IF_ERROR(StillStored(t, files_.chunks(), hash, bytes.size()));
      auto rows = PlanRows(plan, missing);
      NUBO_RETURN_IF_ERROR(content::AcquireChunks(t, Sized(rows)));
      NUBO_RETURN_IF_ERROR(t.AppendUploadSessionChunks(cur.id, rows));
      cur.offset += static_cast<int64_t>(bytes.size() * missing.size());
    }
    return t.UpdateUploadSession(cur);
  });
}

Status UploadSessions::Cancel(const Principal& who, std::string_view id) {
  return files_.meta().Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(UploadSessionRow s, LoadSession(t, who, id));
    return EndSession(t, s, UnixMillis());
  });
}

Result<int64_t> UploadSessions::Expire(int64_t now_ms) {
  int64_t ended = 0;
  for (;;) {
    size_t batch = 0;
    NUBO_RETURN_IF_ERROR(files_.meta().Write([&](meta::WriteTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto rows, t.ListExpiredUploadSessions(now_ms, 100));
      batch = rows.size();
      for (const auto& s : rows) NUBO_RETURN_IF_ERROR(EndSession(t, s, now_ms));
      return Status::Ok();
    }));
    ended += static_cast<int64_t>(batch);
    if (batch < 100) return ended;
  }
}

Status DropDriveUploads(meta::WriteTxn& t, int64_t drive_id, int64_t now_ms) {
  for (;;) {
    NUBO_ASSIGN_OR_RETURN(auto rows, t.ListDriveUploadSessions(drive_id, 100));
    for (const auto& s : rows) NUBO_RETURN_IF_ERROR(EndSession(t, s, now_ms));
    if (rows.size() < 100) return Status::Ok();
  }
}

}  // namespace nubo::files
