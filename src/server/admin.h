// Administrative subcommands over the storage: migrate, fsck, gc, and the
// hidden `debug` tools that tests and benchmarks drive. Each returns the
// process exit code and prints to stdout/stderr.
#pragma once

#include <cstdint>
#include <string>

#include "server/config.h"

namespace nubo::server {

int RunMigrate(const Config& cfg);

// nubo user add NAME [--admin] --password-stdin | passwd NAME --password-stdin |
// list | role NAME admin|user | disable NAME | enable NAME |
// app-password NAME --label L (prints the secret alone on stdout).
struct UserCommand {
  std::string action;  // add, passwd, list, role, disable, enable, app-password
  std::string name;
  std::string role;
  std::string label;
  bool admin = false;
  bool password_stdin = false;
};
int RunUser(const Config& cfg, const UserCommand& cmd);

// nubo group list | create NAME | delete NAME | rename NAME NEW |
// members NAME | add NAME (--user U | --group G) | remove NAME (--user U |
// --group G). Groups are named by name here, by id over REST.
struct GroupCommand {
  std::string action;
  std::string name;
  std::string new_name;
  std::string user;
  std::string group;
};
int RunGroup(const Config& cfg, const GroupCommand& cmd);
// 0 clean, 1 problems found (after repair, if asked), 2 could not run.
int RunFsck(const Config& cfg, bool repair);
// chunk FILE: cuts a file ("-": stdin) as the server does and prints the
// delta-upload plan as JSON: {"size","hash","chunks":["<blake3>:<size>",…]}
// (a client-side tool: it reads no data directory).
int RunChunk(const std::string& file);

// `nubo db copy --from sqlite:PATH --to postgres://…`: the installation's
// metadata moved into an empty PostgreSQL database (meta/db_copy.h), then
// `nubo fsck` on the result with the chunk files beside PATH.
int RunDbCopy(const Config& cfg, const std::string& from, const std::string& to);
int RunGc(const Config& cfg, uint64_t grace_ms);

// debug put FILE [--pin NAME]: ingest a file ("-": stdin), pin it (by
// default under its hash), print "hash size chunks".
// `per_chunk_sync`: fsync every chunk on its own (the benchmark's BEFORE).
int RunDebugPut(const Config& cfg, const std::string& file, const std::string& pin,
                bool per_chunk_sync = false);
// debug cat HASH: write a manifest's content to stdout.
int RunDebugCat(const Config& cfg, const std::string& hash_hex);
// debug unpin NAME: drop a pin (and the manifest's reference).
int RunDebugUnpin(const Config& cfg, const std::string& name);
// debug churn: ingest generated files forever (pinning each as f<i>, and
// releasing the oldest beyond `keep`), printing "committed <i>" and
// "released <i>" after each commit ("releasing <i>" before a release). The crash test kills it at
// random.
int RunDebugChurn(const Config& cfg, uint64_t seed, uint64_t max_size, int keep);
// debug verify: every pin f<i> must read back as generated file i.
int RunDebugVerify(const Config& cfg, uint64_t seed, uint64_t max_size);

}  // namespace nubo::server
