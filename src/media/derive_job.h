// The "derive" job (queued by migration 0014's triggers whenever a file is
// created or its content changes): extracts the file's text into the
// full-text index, reads an image's EXIF into the photos timeline and
// makes its small thumbnail ahead of the first request. Idempotent: running it twice leaves the
// same rows; text is stored only while the node still has the content it was read from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blob/chunk_store.h"
#include "media/thumbnails.h"
#include "meta/meta_store.h"
#include "util/status.h"

namespace nubo::media {

// Whether the derive job can do anything for a file named `name` with
// `mime`: a thumbnail, a photo, a track or text to index. A job for a file
// it cannot is dropped where the file is written (files/FilesOptions::
// derive_wanted), and a rename that makes it wanted queues one.
bool DeriveWanted(std::string_view name, std::string_view mime);

class DeriveJob {
 public:
  DeriveJob(meta::MetaStore& meta, blob::ChunkStore& chunks, Thumbnails& thumbnails)
      : meta_(meta), chunks_(chunks), thumbnails_(thumbnails) {}

  Status Run(const meta::JobRow& job);

 private:
  // Every helper below reads the content from `copy`, made once per run.
  Result<std::string> ExtractText(const meta::NodeRow& node,
                                  const std::vector<meta::ManifestChunk>& chunks,
                                  ContentCopy& copy);
  // The timeline row of an image (nullopt: not a photo).
  Result<std::optional<meta::PhotoRow>> ReadPhoto(const meta::NodeRow& node, ContentCopy& copy);
  // Asks the helper {head…, input, output, tail…} with the content as input
  // and returns at most `max_output` bytes of what it wrote; nullopt when
  // the content is undecodable, over a limit or out of time (not retried).
  Result<std::optional<std::string>> AskHelper(const std::vector<std::string>& head,
                                               const meta::NodeRow& node, ContentCopy& copy,
                                               const std::vector<std::string>& tail,
                                               size_t max_output);
  // The music library row of an audio file (nullopt: not audio).
  Result<std::optional<meta::TrackRow>> ReadTrack(const meta::NodeRow& node, ContentCopy& copy);

  meta::MetaStore& meta_;
  blob::ChunkStore& chunks_;
  Thumbnails& thumbnails_;
};

}  // namespace nubo::media
