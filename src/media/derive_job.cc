#include "media/derive_job.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

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
  auto r = jobs::RunIsolated(
      {thumbnails_.options().helper, "text", kind == search::TextKind::kPdf ? "pdf" : "office",
       input, output, std::to_string(search::kMaxTextBytes)},
      thumbnails_.options().limits);
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
  NUBO_ASSIGN_OR_RETURN(std::string text, ExtractText(*node, chunks));
  if (text.empty()) return Status::Ok();
  return meta_.Write([&](meta::WriteTxn& t) -> Status {
    NUBO_ASSIGN_OR_RETURN(auto now, t.GetNode(job.node_id, 0));
    // Changed since it was read: the newer content has its own job.
    if (!now || now->manifest_id != node->manifest_id) return Status::Ok();
    return t.PutText(job.node_id, text);
  });
}

}  // namespace nubo::media
