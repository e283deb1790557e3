// The nubo binary: subcommands over one configuration (see server/config.h).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "server/admin.h"
#include "server/config.h"
#include "server/log.h"
#include "server/serve.h"
#include "util/strings.h"

namespace {}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"nubo: a self-hosted cloud server (files, WebDAV, CalDAV, CardDAV)"};
  app.require_subcommand(1);
  app.fallthrough();
  std::string config_file;
  std::string data_dir;
  app.add_option("--config", config_file, "TOML configuration file (env NUBO_CONFIG)");
  app.add_option("--data", data_dir, "data directory (env NUBO_DATA_DIR)");

  auto* serve = app.add_subcommand("serve", "run the server");
  std::string listen;
  bool test_routes = false;
  serve->add_option("--listen", listen, "HOST:PORT to listen on (env NUBO_LISTEN)");
  serve->add_flag("--enable-test-routes", test_routes, "test-only endpoints")->group("");

  auto* version = app.add_subcommand("version", "print the version");
  auto* config = app.add_subcommand("config", "print the effective configuration and exit");
  auto* user = app.add_subcommand("user", "manage accounts");
  user->require_subcommand(1);
  nubo::server::UserCommand ucmd;
  auto* uadd = user->add_subcommand("add", "create an account (password from stdin)");
  uadd->add_option("name", ucmd.name)->required();
  uadd->add_flag("--admin", ucmd.admin, "make it an administrator");
  uadd->add_flag("--password-stdin", ucmd.password_stdin, "read the password from stdin");
  auto* upasswd = user->add_subcommand("passwd", "set a password (from stdin)");
  upasswd->add_option("name", ucmd.name)->required();
  upasswd->add_flag("--password-stdin", ucmd.password_stdin, "read the password from stdin");
  user->add_subcommand("list", "list accounts");
  auto* urole = user->add_subcommand("role", "set the role: admin or user");
  urole->add_option("name", ucmd.name)->required();
  urole->add_option("role", ucmd.role)->required();
  auto* udisable = user->add_subcommand("disable", "deactivate an account");
  udisable->add_option("name", ucmd.name)->required();
  auto* uenable = user->add_subcommand("enable", "reactivate an account");
  uenable->add_option("name", ucmd.name)->required();
  auto* uapp = user->add_subcommand("app-password", "create an app password; prints it alone");
  uapp->add_option("name", ucmd.name)->required();
  uapp->add_option("--label", ucmd.label, "what it is for, e.g. 'phone'")->required();
  auto* group = app.add_subcommand("group", "manage groups (nested; members are users or groups)");
  group->require_subcommand(1);
  nubo::server::GroupCommand gcmd;
  group->add_subcommand("list", "list groups");
  group->add_subcommand("create", "create a group")->add_option("name", gcmd.name)->required();
  group->add_subcommand("delete", "delete a group, its memberships and its grants")
      ->add_option("name", gcmd.name)
      ->required();
  auto* grename = group->add_subcommand("rename", "rename a group");
  grename->add_option("name", gcmd.name)->required();
  grename->add_option("new-name", gcmd.new_name)->required();
  group->add_subcommand("members", "list a group's direct members")
      ->add_option("name", gcmd.name)
      ->required();
  for (const char* verb : {"add", "remove"}) {
    auto* sub = group->add_subcommand(verb, std::string(verb) + " a user or a group (as member)");
    sub->add_option("name", gcmd.name)->required();
    auto* u = sub->add_option("--user", gcmd.user, "a username");
    auto* g = sub->add_option("--group", gcmd.group, "a group name");
    u->excludes(g);
  }
  auto* fsck = app.add_subcommand("fsck", "verify storage invariants (exit 1 on any problem)");
  bool repair = false;
  fsck->add_flag("--repair", repair,
                 "rewrite wrong reference counts and forget thumbnails whose file is gone (never "
                 "deletes data)");
  auto* gc =
      app.add_subcommand("gc", "delete chunks unreferenced for longer than the grace period");
  std::string grace;
  gc->add_option("--grace", grace, "override storage.gc_grace, e.g. 10m, 0s");
  auto* migrate = app.add_subcommand("migrate", "apply database migrations");
  auto* db = app.add_subcommand("db", "move the metadata between database engines");
  db->require_subcommand(1);
  auto* dbcopy = db->add_subcommand(
      "copy", "copy every row of a stopped SQLite installation into an empty PostgreSQL database");
  std::string copy_from, copy_to;
  dbcopy->add_option("--from", copy_from, "sqlite:PATH (the installation's nubo.db)")->required();
  dbcopy->add_option("--to", copy_to, "postgres://… (migrated here; must hold no installation)")
      ->required();
  auto* chunk = app.add_subcommand(
      "chunk", "cut FILE as the server does; print its delta-upload plan as JSON (client side)");
  std::string chunk_file;
  chunk->add_option("file", chunk_file, "the file (- for stdin)")->required();

  // Test and benchmark tooling; not part of the supported interface.
  auto* debug = app.add_subcommand("debug", "")->group("");
  debug->require_subcommand(1);
  std::string file, pin, hash, name;
  uint64_t seed = 1, max_size = 1 << 20;
  int keep = 8;
  auto* dput = debug->add_subcommand("put", "ingest FILE (- for stdin), print its hash");
  dput->add_option("file", file)->required();
  dput->add_option("--pin", pin);
  bool per_chunk_sync = false;
  dput->add_flag("--per-chunk-sync", per_chunk_sync);
  auto* dcat = debug->add_subcommand("cat", "write manifest HASH to stdout");
  dcat->add_option("hash", hash)->required();
  auto* dunpin = debug->add_subcommand("unpin", "drop pin NAME");
  dunpin->add_option("name", name)->required();
  auto* dchurn = debug->add_subcommand("churn", "ingest generated files until killed");
  auto* dverify = debug->add_subcommand("verify", "check every generated pin");
  for (auto* c : {dchurn, dverify}) {
    c->add_option("--seed", seed);
    c->add_option("--max-size", max_size);
  }
  dchurn->add_option("--keep", keep);

  CLI11_PARSE(app, argc, argv);

  if (version->parsed()) {
    std::printf("nubo %s\n", NUBO_VERSION);
    return 0;
  }
  if (chunk->parsed()) return nubo::server::RunChunk(chunk_file);

  nubo::server::ConfigInputs in;
  if (!config_file.empty()) {
    in.file = config_file;
  } else if (const char* f = std::getenv("NUBO_CONFIG")) {
    in.file = f;
  }
  in.getenv = [](const char* name) { return std::getenv(name); };
  if (!data_dir.empty()) in.flags["server.data_dir"] = data_dir;
  if (!listen.empty()) in.flags["server.listen"] = listen;
  if (test_routes) in.flags["server.test_routes"] = "true";
  auto cfg = nubo::server::LoadConfig(in);
  if (!cfg.ok()) {
    std::fprintf(stderr, "nubo: configuration error: %s\n", cfg.status().message().c_str());
    return 2;
  }

  if (config->parsed()) {
    for (const auto& [k, v] : cfg->Describe()) std::printf("%s = %s\n", k.c_str(), v.c_str());
    std::printf("\nSettings (file key, environment variable, default):\n%s",
                nubo::server::ConfigReference().c_str());
    return 0;
  }
  if (serve->parsed()) {
    nubo::server::InitLogging(cfg->log_level);
    return nubo::server::RunServe(*cfg);
  }
  if (user->parsed()) {
    for (auto* sub : user->get_subcommands()) ucmd.action = sub->get_name();
    return nubo::server::RunUser(*cfg, ucmd);
  }
  if (group->parsed()) {
    for (auto* sub : group->get_subcommands()) gcmd.action = sub->get_name();
    return nubo::server::RunGroup(*cfg, gcmd);
  }
  if (fsck->parsed()) return nubo::server::RunFsck(*cfg, repair);
  if (gc->parsed()) {
    uint64_t grace_ms = cfg->gc_grace_ms;
    if (!grace.empty()) {
      auto g = nubo::ParseDurationMs(grace);
      if (!g) {
        std::fprintf(stderr, "nubo gc: --grace '%s': expected a duration (e.g. 10m, 0s)\n",
                     grace.c_str());
        return 2;
      }
      grace_ms = *g;
    }
    return nubo::server::RunGc(*cfg, grace_ms);
  }
  if (dbcopy->parsed()) return nubo::server::RunDbCopy(*cfg, copy_from, copy_to);
  if (migrate->parsed()) return nubo::server::RunMigrate(*cfg);
  if (dput->parsed()) return nubo::server::RunDebugPut(*cfg, file, pin, per_chunk_sync);
  if (dcat->parsed()) return nubo::server::RunDebugCat(*cfg, hash);
  if (dunpin->parsed()) return nubo::server::RunDebugUnpin(*cfg, name);
  if (dchurn->parsed()) return nubo::server::RunDebugChurn(*cfg, seed, max_size, keep);
  if (dverify->parsed()) return nubo::server::RunDebugVerify(*cfg, seed, max_size);
  return 0;
}
