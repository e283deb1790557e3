// The JSON shape of a node in REST answers (documented in
// /api/openapi.json as Node), shared by the file and sharing endpoints so a
// node looks the same wherever it is listed. Thread-safe (pure).
#pragma once

#include <string>

#include "meta/meta_store.h"

namespace nubo::api {

// One node as a JSON object (no trailing newline).
std::string NodeJson(const meta::NodeRow& n);

}  // namespace nubo::api
