#include "media/derive_job.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "content/reader.h"
#include "media/music.h"
#include "media/photos.h"
#include "search/extract.h"

namespace nubo::media {

namespace {

// Plain text and HTML are read in the server up to this many bytes (the
// index keeps at most search::kMaxTextBytes of text).
constexpr uint64_t kMaxInlineRead = 4 * search::kMaxTextBytes;

}  // namespace

bool DeriveWanted(std::string_view name, std::string_view mime) {
  // Each of Run's steps below, asked whether it applies.
  return Previewable(name, mime) || IsPhoto(mime) ||
         (IsAudio(name, mime) && !AudioSuffix(name).empty()) ||
         search::KindFor(name, mime) != search::TextKind::kNone;
}

Result<std::string> DeriveJob::ExtractText(const meta::NodeRow& node,
                                           const std::vector<meta::ManifestChunk>& chunks,
                                           ContentCopy& copy) {
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
        NUBO_RETURN_IF_ERROR(content::ReadChunk(chunks_, c, 0, n, bytes.data() + at));
      }
      return kind == search::TextKind::kHtml ? search::HtmlText(bytes) : search::PlainText(bytes);
    }
    case search::TextKind::kPdf:
    case search::TextKind::kOffice:
      break;
  }
  NUBO_ASSIGN_OR_RETURN(
      auto text, AskHelper({"text", kind == search::TextKind::kPdf ? "pdf" : "office"}, node, copy,
                           {std::to_string(search::kMaxTextBytes)}, search::kMaxTextBytes + 8));
  // The helper's output is checked like any other text (it is derived
  // from hostile input).
  return text ? search::PlainText(*text) : std::string();
}

Result<std::optional<std::string>> DeriveJob::AskHelper(const std::vector<std::string>& head,
                                                        const meta::NodeRow& node,
                                                        ContentCopy& copy,
                                                        const std::vector<std::string>& tail,
                                                        size_t max_output) {
  if (node.size > thumbnails_.options().max_input_bytes) return std::optional<std::string>();
  NUBO_ASSIGN_OR_RETURN(std::string input, copy.Path());
  const std::string output = input + "." + head[0] + ".out";
  std::vector<std::string> request = head;
  request.push_back(input);
  request.push_back(output);
  request.insert(request.end(), tail.begin(), tail.end());
  auto r = thumbnails_.helpers().Run(request);
  std::string out;
  if (r.ok() && r->exit_code == 0) {
    std::ifstream f(output, std::ios::binary);
    out.resize(max_output);
    f.read(out.data(), static_cast<std::streamsize>(max_output));
    out.resize(static_cast<size_t>(f.gcount()));
  }
  unlink(output.c_str());
  if (!r.ok()) return r.status();
  // Undecodable, over a limit or out of time: a fact about the content.
  if (r->exit_code == 3 || r->exit_code == 4 || r->timed_out) return std::optional<std::string>();
  if (r->exit_code != 0) {
    return Status::Internal(head[0] + " helper failed: " +
                            (r->signal ? "signal " + std::to_string(r->signal) : r->stderr_tail));
  }
  return std::optional<std::string>(std::move(out));
}

Result<std::optional<meta::PhotoRow>> DeriveJob::ReadPhoto(const meta::NodeRow& node,
                                                           ContentCopy& copy) {
  if (!IsPhoto(node.mime)) return std::optional<meta::PhotoRow>();
  NUBO_ASSIGN_OR_RETURN(auto facts, AskHelper({"photo"}, node, copy, {}, 64 << 10));
  if (!facts) return std::optional<meta::PhotoRow>();  // not an image after all: no row
  return std::optional<meta::PhotoRow>(ParsePhotoFacts(*facts, node));
}

Result<std::optional<meta::TrackRow>> DeriveJob::ReadTrack(const meta::NodeRow& node,
                                                           ContentCopy& copy) {
  // TagLib picks the format by the suffix (the copy has it: see Run).
  if (!IsAudio(node.name, node.mime) || AudioSuffix(node.name).empty()) {
    return std::optional<meta::TrackRow>();
  }
  NUBO_ASSIGN_OR_RETURN(auto facts, AskHelper({"audio"}, node, copy, {}, 64 << 10));
  if (!facts) return std::optional<meta::TrackRow>();
  return std::optional<meta::TrackRow>(ParseTrackFacts(*facts, node));
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
  if (!DeriveWanted(node->name, node->mime)) return Status::Ok();
  ContentCopy copy(thumbnails_, *node, chunks);  // one for every helper of this run
  if (Previewable(node->name, node->mime)) {
    auto thumb = thumbnails_.Get(*node, chunks, Variant::kSmall, &copy);
    if (!thumb.ok() && thumb.status().code() != Code::kNotFound) return thumb.status();
  }
  NUBO_ASSIGN_OR_RETURN(std::optional<meta::PhotoRow> photo, ReadPhoto(*node, copy));
  NUBO_ASSIGN_OR_RETURN(std::optional<meta::TrackRow> track, ReadTrack(*node, copy));
  NUBO_ASSIGN_OR_RETURN(std::string text, ExtractText(*node, chunks, copy));
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
