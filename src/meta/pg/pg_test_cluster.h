// A throwaway PostgreSQL cluster for the unit tests: initdb and postgres of
// Debian's postgresql-15 in a fresh folder under /tmp, reachable only
// through a Unix socket in that folder (no TCP port, never the system's
// service), started on first use as a child of the test process (which
// takes it down with it, even when killed), removed at exit. A missing
// tool is an error the test reports, never a skip. Test-only (defined in
// pg_cluster_test.cc).
#pragma once

#include <string>

#include "util/status.h"

namespace nubo::meta::pg {

// The cluster's connection string (to its "postgres" database), starting
// the cluster on the first call.
Result<std::string> TestClusterConninfo();

// A new empty database in the cluster, for one test: its connection
// string.
Result<std::string> FreshTestDatabase();

}  // namespace nubo::meta::pg
