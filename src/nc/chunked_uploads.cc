#include "nc/chunked_uploads.h"

#include "files/checksum.h"
#include "files/names.h"
#include "util/blake3_hash.h"
#include "util/time.h"

namespace nubo::nc {

namespace {

using meta::NcUploadPart;
using meta::NcUploadRow;

Status NoSuchUpload() { return Status::NotFound("no such upload"); }

// Upload folder names are the client's (a random id); bounded and plain.
Status CheckUploadName(std::string_view name) {
  if (name.empty() || name.size() > 200 || name == "." || name == ".." ||
      name.find('/') != std::string_view::npos) {
    return Status::InvalidArgument("not a valid upload folder name");
  }
  return Status::Ok();
}

// A chunk's bytes into its own upload session; once whole, the session
// becomes the upload's part `number` (replacing an earlier one).
class ChunkSink final : public http::BodySink {
 public:
  ChunkSink(meta::MetaStore& meta, files::UploadSessions& sessions, auth::Principal who,
            int64_t upload_id, int64_t number, meta::UploadSessionRow session,
            std::unique_ptr<files::SessionAppend> append, std::string seed_session)
      : meta_(meta),
        sessions_(sessions),
        who_(std::move(who)),
        upload_id_(upload_id),
        number_(number),
        session_(std::move(session)),
        append_(std::move(append)),
        seed_session_(std::move(seed_session)) {}
  ~ChunkSink() override {
    if (!done_) Abort();
  }

  Status Write(const char* data, size_t len) override { return append_->Write(data, len); }

  Status Finish() override {
    done_ = true;
    // The part row joins the transaction that makes the chunk's bytes part
    // of its session: one commit per chunk, not two. (Sent without a
    // Content-Length, its length is declared after, and the row waits.)
    std::optional<std::string> replaced;
    auto put_part = [&](meta::WriteTxn& t, const meta::UploadSessionRow& row) -> Status {
      NUBO_ASSIGN_OR_RETURN(auto u, t.GetNcUpload(who_.user_id, upload_name_));
      // The folder went away (DELETE, expiry) while the chunk arrived.
      if (!u || u->id != upload_id_) return NoSuchUpload();
      NUBO_ASSIGN_OR_RETURN(replaced,
                            t.PutNcUploadPart(upload_id_, NcUploadPart{number_, session_.public_id,
                                                                       row.offset, seed_session_}));
      return Status::Ok();
    };
    if (session_.length) append_->OnFinish(put_part);
    auto row = append_->Finish();
    if (!row.ok()) {
      (void)sessions_.Cancel(who_, session_.public_id);
      return row.status();
    }
    if (!session_.length) {
      Status st =
          sessions_.DeclareLength(who_, session_.public_id, static_cast<uint64_t>(row->offset));
      if (st.ok()) st = meta_.Write([&](meta::WriteTxn& t) { return put_part(t, *row); });
      if (!st.ok()) {
        (void)sessions_.Cancel(who_, session_.public_id);
        return st;
      }
    }
    if (replaced && *replaced != session_.public_id) (void)sessions_.Cancel(who_, *replaced);
    return Status::Ok();
  }

  void Abort() override {
    done_ = true;
    // A chunk is resent whole: what arrived of it is of no use (the
    // append discards what it stored when it ends unfinished).
    append_.reset();
    (void)sessions_.Cancel(who_, session_.public_id);
  }

  void set_upload_name(std::string n) { upload_name_ = std::move(n); }

 private:
  meta::MetaStore& meta_;
  files::UploadSessions& sessions_;
  auth::Principal who_;
  int64_t upload_id_;
  int64_t number_;
  meta::UploadSessionRow session_;
  std::unique_ptr<files::SessionAppend> append_;
  std::string upload_name_;
  std::string seed_session_;
  bool done_ = false;
};

}  // namespace

std::optional<int64_t> ParseChunkNumber(std::string_view name) {
  if (name.empty() || name.size() > 18) return std::nullopt;
  int64_t n = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > kMaxChunks) return std::nullopt;
  return n;
}

Status ChunkedUploads::Create(const auth::Principal& who, std::string_view name,
                              std::string_view destination) {
  if (who.anonymous() || who.link()) return NoSuchUpload();
  NUBO_RETURN_IF_ERROR(CheckUploadName(name));
  if (destination.size() > 8192) return Status::InvalidArgument("Destination is too long");
  NcUploadRow row;
  row.user_id = who.user_id;
  row.name = std::string(name);
  row.destination = std::string(destination);
  row.created_at_ms = UnixMillis();
  row.expires_at_ms = row.created_at_ms + sessions_.ttl_ms();
  return meta_.Write([&](meta::WriteTxn& t) { return t.InsertNcUpload(row); });
}

Result<NcUploadRow> ChunkedUploads::Get(const auth::Principal& who, std::string_view name) {
  if (who.anonymous() || who.link() || CheckUploadName(name).code() != Code::kOk) {
    return NoSuchUpload();
  }
  std::optional<NcUploadRow> row;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(row, t.GetNcUpload(who.user_id, std::string(name)));
    return Status::Ok();
  }));
  if (!row || row->expires_at_ms <= UnixMillis()) return NoSuchUpload();
  return std::move(*row);
}

Result<std::vector<NcUploadPart>> ChunkedUploads::Parts(const auth::Principal& who,
                                                        std::string_view name) {
  NUBO_ASSIGN_OR_RETURN(NcUploadRow u, Get(who, name));
  std::vector<NcUploadPart> parts;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(parts, t.ListNcUploadParts(u.id));
    return Status::Ok();
  }));
  return parts;
}

Result<std::unique_ptr<http::BodySink>> ChunkedUploads::PutChunk(const auth::Principal& who,
                                                                 std::string_view name,
                                                                 std::string_view chunk,
                                                                 std::optional<uint64_t> length) {
  NUBO_ASSIGN_OR_RETURN(NcUploadRow u, Get(who, name));
  auto number = ParseChunkNumber(chunk);
  if (!number) {
    return Status::InvalidArgument("chunk names are numbers from 1 to " +
                                   std::to_string(kMaxChunks));
  }
  files::SessionSpec spec;
  spec.kind = 1;  // a part: its bytes wait for the assembly
  spec.target.name = "chunk-" + std::to_string(*number);
  spec.length = length;
  // Sent in order (the usual case), this chunk's hashing continues where
  // the complete chunk before it ended, so the last chunk's hash state is
  // the whole file's and assembling reads no byte (Assemble checks the
  // chain; out of order or replaced, the bytes are read instead).
  std::string seed_session;
  if (*number > 0) {
    std::vector<NcUploadPart> parts;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(parts, t.ListNcUploadParts(u.id));
      return Status::Ok();
    }));
    for (const NcUploadPart& p : parts) {
      if (p.number != *number - 1) continue;
      auto prev = sessions_.Get(who, p.session_id);
      Blake3 probe;
      if (prev.ok() && prev->length && prev->offset == *prev->length &&
          probe.RestoreState(prev->hasher)) {
        spec.hasher_seed = prev->hasher;
        seed_session = p.session_id;
      }
    }
  }
  // The chunk's session is written by the commit of its bytes (one commit
  // per chunk): a chunk cut short leaves nothing.
  meta::UploadSessionRow s;
  NUBO_ASSIGN_OR_RETURN(auto append, sessions_.CreateAndAppend(who, std::move(spec), s));
  auto sink = std::make_unique<ChunkSink>(meta_, sessions_, who, u.id, *number, std::move(s),
                                          std::move(append), std::move(seed_session));
  sink->set_upload_name(u.name);
  return std::unique_ptr<http::BodySink>(std::move(sink));
}

Result<files::UploadResult> ChunkedUploads::Assemble(const auth::Principal& who,
                                                     std::string_view name,
                                                     const AssembleRequest& req) {
  NUBO_ASSIGN_OR_RETURN(NcUploadRow u, Get(who, name));
  std::vector<NcUploadPart> parts;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(parts, t.ListNcUploadParts(u.id));
    return Status::Ok();
  }));
  if (parts.empty()) return Status::InvalidArgument("the upload has no chunks");
  // Numbered without gaps from the first (1 in v2; 0 from older clients).
  uint64_t total = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].number != parts.front().number + static_cast<int64_t>(i)) {
      return Status::InvalidArgument(
          "chunk " + std::to_string(parts.front().number + static_cast<int64_t>(i)) +
          " is missing");
    }
    total += static_cast<uint64_t>(parts[i].size);
  }
  if (req.total_length && *req.total_length != total) {
    return Status::InvalidArgument("the chunks hold " + std::to_string(total) +
                                   " bytes, OC-Total-Length says " +
                                   std::to_string(*req.total_length));
  }
  files::SessionSpec spec;
  spec.target.parent_id = req.parent_id;
  spec.target.name = req.name;
  spec.target.conflict = req.overwrite ? files::Conflict::kOverwrite : files::Conflict::kFail;
  spec.target.if_match = req.if_match;
  spec.target.mtime_ms = req.mtime_ms;
  std::vector<std::string> ids;
  ids.reserve(parts.size());
  for (const auto& p : parts) ids.push_back(p.session_id);
  // Each part's hashing continued the one before it (sent in order, none
  // replaced since: the seeds name the very sessions that are the parts
  // now): the last part's state is the whole file's hash.
  std::optional<meta::Digest> whole;
  bool chained = parts.front().seed_session.empty();
  for (size_t i = 1; chained && i < parts.size(); ++i) {
    chained = parts[i].seed_session == parts[i - 1].session_id;
  }
  if (chained) {
    auto last = sessions_.Get(who, parts.back().session_id);
    Blake3 state;
    if (last.ok() && state.RestoreState(last->hasher)) whole = state.Final();
  }
  std::unique_ptr<files::Checksum> checksum;
  if (!req.checksum.empty()) {
    NUBO_ASSIGN_OR_RETURN(checksum, files::Checksum::Parse(req.checksum));
  }
  // The parts end with the concatenation, and the upload folder's row in
  // the same commit.
  NUBO_ASSIGN_OR_RETURN(files::ConcatResult done,
                        sessions_.Concat(who, std::move(spec), ids, whole, checksum.get(),
                                         [&](meta::WriteTxn& t) -> Status {
                                           Status d = t.DeleteNcUpload(u.id);
                                           return d.code() == Code::kNotFound ? Status::Ok() : d;
                                         }));
  return std::move(done.file);
}

Status ChunkedUploads::EndUpload(const auth::Principal& who, const NcUploadRow& u) {
  std::vector<NcUploadPart> parts;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(parts, t.ListNcUploadParts(u.id));
    return Status::Ok();
  }));
  NUBO_RETURN_IF_ERROR(meta_.Write([&](meta::WriteTxn& t) -> Status {
    Status d = t.DeleteNcUpload(u.id);
    return d.code() == Code::kNotFound ? Status::Ok() : d;
  }));
  // Sessions already gone (expired) are fine.
  for (const auto& p : parts) (void)sessions_.Cancel(who, p.session_id);
  return Status::Ok();
}

Status ChunkedUploads::Abort(const auth::Principal& who, std::string_view name) {
  NUBO_ASSIGN_OR_RETURN(NcUploadRow u, Get(who, name));
  return EndUpload(who, u);
}

Result<int64_t> ChunkedUploads::Expire(int64_t now_ms) {
  int64_t n = 0;
  for (;;) {
    std::vector<NcUploadRow> rows;
    NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
      NUBO_ASSIGN_OR_RETURN(rows, t.ListExpiredNcUploads(now_ms, 100));
      return Status::Ok();
    }));
    for (const auto& u : rows) {
      NUBO_RETURN_IF_ERROR(EndUpload(auth::Principal::User(u.user_id), u));
    }
    n += static_cast<int64_t>(rows.size());
    if (rows.size() < 100) return n;
  }
}

}  // namespace nubo::nc
