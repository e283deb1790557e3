// The MetaStore's content address: the BLAKE3 digest of a chunk, a file's
// whole content, or a secret (tokens are kept only as their hash).
#pragma once

#include "util/blake3_hash.h"

namespace nubo::meta {

using Digest = Blake3Digest;

}  // namespace nubo::meta
