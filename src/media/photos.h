// Photos: the facts the media helper reads from an image (EXIF through
// exiv2, the size through libvips), as text, turned into a MetaStore row.
// Pure and bounded: the text comes from a process that read hostile bytes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>

#include "meta/meta_store.h"

namespace nubo::media {

// Calls `fn(key, value)` for each "key=value" line of the helper's facts
// (lines without '=' are skipped). Shared with media/music.h.
void ForEachFact(std::string_view facts,
                 const std::function<void(std::string_view, std::string_view)>& fn);

// Whether an image file gets a row in the timeline (raster images; not SVG).
bool IsPhoto(std::string_view mime);

// "YYYY:MM:DD HH:MM:SS" (EXIF's date format) as ms since the epoch, the
// wall-clock time read as UTC; nullopt when malformed or out of range
// (years 1800-9999).
std::optional<int64_t> ParseExifDateTime(std::string_view s);

// The helper's "key=value" lines for `node` (unknown keys and malformed
// values are ignored). Without a camera date, the time is the file's
// modification time (taken_exact false).
meta::PhotoRow ParsePhotoFacts(std::string_view facts, const meta::NodeRow& node);

}  // namespace nubo::media
