// Music: the tags the media helper reads from an audio file (TagLib), as
// text, turned into a MetaStore row. Pure and bounded: the text comes from
// a process that read hostile bytes.
#pragma once

#include <string>
#include <string_view>

#include "meta/meta_store.h"

namespace nubo::media {

// Whether a file gets a row in the music library (by type or extension).
bool IsAudio(std::string_view name, std::string_view mime);

// The extension the helper's temp file should carry (TagLib picks the
// format by it): ".mp3", ".flac", … or "" when the name has none usable.
std::string AudioSuffix(std::string_view name);

// The helper's "key=value" lines for `node`. Without a title, the file
// name (without its extension); grouping keys are case-folded.
meta::TrackRow ParseTrackFacts(std::string_view facts, const meta::NodeRow& node);

}  // namespace nubo::media
