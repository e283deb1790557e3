#include "media/derive_job.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "media/music.h"
#include "media/photos.h"
#include "search/extract.h"

namespace nubo::media {

namespace {

// Plain text and HTML are read in the server up to this many bytes (the
// index keeps at most search::kMaxTextBytes of text).
constexpr uint64_t kMaxInlineRead = 4 * search::kMaxTextBytes;

}  // namespace

Result<std::string> DeriveJob::ExtractText(const meta::NodeRow& node,
                                           const std::vector<meta::ManifestChunk>& chunks) {
  search::TextKind kind = search::KindFor(node.name, node.mime);
  switch (kind) {
    case search::TextKind::kNone:
      return std::string();
    case search::TextKind::kPlain:
    case search::TextKind::kHtml: {
      std::string bytes;
      for (const meta::ManifestChunk& c : chunks) {
        if (bytes.size() >= kMaxInlineRead) break;
        size_t n = std::min<uint64_t>(c.size, kMaxInlineRead - bytes.size());
        size_t at = bytes.size();
        bytes.resize(at + n);
        NUBO_RETURN_IF_ERROR(chunks_.Read(c.hash, 0, n, bytes.data() + at));
      }
      return kind == search::TextKind::kHtml ? search::HtmlText(bytes) : search::PlainText(bytes);
    }
    case search::TextKind::kPdf:
    case search::TextKind::kOffice:
      break;
  }
  if (node.size > thumbnails_.options().max_input_bytes) return std::string();
  NUBO_ASSIGN_OR_RETURN(std::string input, thumbnails_.Materialize(chunks));
  std::string output = input + ".txt";
  auto r = thumbnails_.helpers().Run({"text", kind == search::TextKind::kPdf ? "pdf" : "office",
                                      input, output, std::to_string(search::kMaxTextBytes)});
  unlink(input.c_str());
  if (!r.ok()) {
    unlink(output.c_str());
    return r.status();
  }
  std::string text;
  if (r->exit_code == 0) {
    std::ifstream f(output, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  unlink(output.c_str());
  if (r->exit_code != 0 && r->exit_code != 3 && r->exit_code != 4 && !r->timed_out) {
    return Status::Internal("text helper failed: " + r->stderr_tail);
  }
  // The helper's output is checked like any other text (it is derived
  // from hostile input).
  return search::PlainText(text);
}

Result<std::optional<meta::PhotoRow>> DeriveJob::ReadPhoto(
    const meta::NodeRow& node, const std::vector<meta::ManifestChunk>& chunks) {
  if (!IsPhoto(node.mime) || node.size > thumbnails_.options().max_input_bytes) {
    return std::optional<meta::PhotoRow>();
  }
  NUBO_ASSIGN_OR_RETURN(std::string input, thumbnails_.Materialize(chunks));
  std::string output = input + ".facts";
  auto r = thumbnails_.helpers().Run({"photo", input, output});
  unlink(input.c_str());
  std::string facts;
  if (r.ok() && r->exit_code == 0) {
    std::ifstream f(output, std::ios::binary);
    facts.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  unlink(output.c_str());
  if (!r.ok()) return r.status();
  if (r->exit_code == 3 || r->exit_code == 4 || r->timed_out) {
    return std::optional<meta::PhotoRow>();  // not an image after all: no row
  }
  if (r->exit_code != 0) return Status::Internal("photo helper failed: " + r->stderr_tail);
  return std::optional<meta::PhotoRow>(ParsePhotoFacts(facts.substr(0, 64 << 10), node));
}

Result<std::optional<meta::TrackRow>> DeriveJob::ReadTrack(
    const meta::NodeRow& node, const std::vector<meta::ManifestChunk>& chunks) {
  const std::string suffix = AudioSuffix(node.name);
  if (!IsAudio(node.name, node.mime) || suffix.empty() ||
      node.size > thumbnails_.options().max_input_bytes) {
    return std::optional<meta::TrackRow>();
  }
  NUBO_ASSIGN_OR_RETURN(std::string input, thumbnails_.Materialize(chunks, suffix));
  std::string output = input + ".tags";
  auto r = thumbnails_.helpers().Run({"audio", input, output});
  unlink(input.c_str());
  std::string facts;
  if (r.ok() && r->exit_code == 0) {
    std::ifstream f(output, std::ios::binary);
    facts.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  }
  unlink(output.c_str());
  if (!r.ok()) return r.status();
  if (r->exit_code == 3 || r->exit_code == 4 || r->timed_out)
    return std::optional<meta::TrackRow>();
  if (r->exit_code != 0) return Status::Internal("audio helper failed: " + r->stderr_tail);
  return std::optional<meta::TrackRow>(ParseTrackFacts(facts.substr(0, 64 << 10), node));
}

Status DeriveJob::Run(const meta::JobRow& job) {
  std::optional<meta::NodeRow> node;
  std::vector<meta::ManifestChunk> chunks;
  NUBO_RETURN_IF_ERROR(meta_.Read([&](meta::ReadTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(node, t.GetNode(job.node_id, 0));
    if (node && !node->folder() && node->manifest_id) {
      NUBO_ASSIGN_OR_RETURN(chunks, t.ManifestChunks(*node->manifest_id));
    }
    return Status::Ok();
  }));
  if (!node || node->folder() || !node->manifest_id) return Status::Ok();  // gone: nothing to do
  if (Previewable(node->name, node->mime)) {
    auto thumb = thumbnails_.Get(*node, chunks, Variant::kSmall);
    if (!thumb.ok() && thumb.status().code() != Code::kNotFound) return thumb.status();
  }
  NUBO_ASSIGN_OR_RETURN(std::optional<meta::PhotoRow> photo, ReadPhoto(*node, chunks));
  NUBO_ASSIGN_OR_RETURN(std::optional<meta::TrackRow> track, ReadTrack(*node, chunks));
  NUBO_ASSIGN_OR_RETURN(std::string text, ExtractText(*node, chunks));
  if (text.empty() && !photo && !track) return Status::Ok();
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto now, t.GetNode(job.node_id, 0));
    // Changed since it was read: the newer content has its own job.
    if (!now || now->manifest_id != node->manifest_id) return Status::Ok();
    if (photo) {
      photo->drive_id = now->drive_id;
      NUBO_RETURN_IF_ERROR(t.PutPhoto(*photo));
    }
    if (track) {
      track->drive_id = now->drive_id;
      NUBO_RETURN_IF_ERROR(t.PutTrack(*track));
    }
    if (!text.empty()) NUBO_RETURN_IF_ERROR(t.PutText(job.node_id, text));
    return Status::Ok();
  });
}

}  // namespace nubo::media
