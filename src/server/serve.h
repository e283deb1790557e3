// `nubo serve`: wires configuration, routes and the transport together.
// This is the only place that knows every concrete component.
#pragma once

#include "server/config.h"

namespace nubo::server {

// Serves until SIGTERM/SIGINT. Returns the process exit code: 0 after a
// clean drain, 1 when start-up fails (the reason is logged).
int RunServe(const Config& config);

}  // namespace nubo::server
