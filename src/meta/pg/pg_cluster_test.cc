// The throwaway cluster of pg_test_cluster.h, and the tests that it is one:
// private, reachable, and with databases that do not see each other.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "meta/pg/pg_conn.h"
#include "meta/pg/pg_test_cluster.h"

namespace nubo::meta::pg {

namespace {

namespace fs = std::filesystem;

// Debian's postgresql-15 (NUBO_PG_BIN points elsewhere).
std::string BinDir() {
  const char* env = std::getenv("NUBO_PG_BIN");
  return env && *env ? env : "/usr/lib/postgresql/15/bin";
}

// Starts argv with its output appended to `log`, as `as` when given
// (PostgreSQL refuses to run as root). Fixed arguments, no shell. The
// child gets SIGQUIT (PostgreSQL's immediate shutdown) if this process
// dies first, so a killed test run leaves no server behind.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log, const passwd* as) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid != 0) return pid;
  // The user first (a change of user clears the death signal), then the
  // log: the server appends to it as that user.
  if (as && (setgroups(0, nullptr) != 0 || setgid(as->pw_gid) != 0 || setuid(as->pw_uid) != 0))
    _exit(126);
  prctl(PR_SET_PDEATHSIG, SIGQUIT);
  if (getppid() != parent) _exit(125);  // the parent is already gone
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
  }
  execv(args[0], args.data());
  _exit(127);
}

// The end of `log`, for an error message (the folder goes at exit).
std::string LogTail(const std::string& log) {
  std::ifstream in(log);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.size() > 2000) text = text.substr(text.size() - 2000);
  return text;
}

// Runs argv to its end (see Spawn).
Status Run(const std::vector<std::string>& argv, const std::string& log, const passwd* as) {
  const pid_t pid = Spawn(argv, log, as);
  if (pid < 0) return Status::Internal("fork failed");
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return Status::Internal("waitpid failed");
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return Status::Ok();
  return Status::Internal(argv[0] + " failed (exit " +
                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) +
                          "): " + LogTail(log));
}

class Cluster {
 public:
  Result<std::string> Start() {
    std::lock_guard lock(mu_);
    if (!conninfo_.empty()) return conninfo_;
    if (!error_.ok()) return error_;
    error_ = DoStart();
    if (!error_.ok()) return error_;
    return conninfo_;
  }

  Result<std::string> Fresh() {
    NUBO_ASSIGN_OR_RETURN(std::string admin, Start());
    NUBO_ASSIGN_OR_RETURN(auto conn, Conn::Open(admin));
    const std::string name = "t" + std::to_string(getpid()) + "_" + std::to_string(++databases_);
    NUBO_RETURN_IF_ERROR(conn->Exec("CREATE DATABASE " + name + " TEMPLATE template0"));
    return "host=" + dir_ + " port=5432 user=nubo dbname=" + name;
  }

  ~Cluster() {
    if (dir_.empty()) return;
    if (server_ > 0) {
      kill(server_, SIGQUIT);  // immediate shutdown: nothing here needs keeping
      int status = 0;
      waitpid(server_, &status, 0);
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

 private:
  Status DoStart() {
    const std::string bin = BinDir();
    for (const char* tool : {"initdb", "postgres"}) {
      if (access((bin + "/" + tool).c_str(), X_OK) != 0) {
        return Status::Unavailable(bin + "/" + tool +
                                   " is missing: install postgresql-15 (scripts/deps.sh test)");
      }
    }
    char tmpl[] = "/tmp/nubo-pg-XXXXXX";
    if (!mkdtemp(tmpl)) return Status::Internal("mkdtemp failed");
    dir_ = tmpl;
    if (geteuid() == 0) {
      const passwd* pw = getpwnam("postgres");
      if (!pw) return Status::Unavailable("running as root and no 'postgres' user to run as");
      as_ = *pw;
      if (chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
        return Status::Internal("chown " + dir_ + " failed");
    }
    const passwd* as = as_ ? &*as_ : nullptr;
    const std::string log = dir_ + "/log";
    NUBO_RETURN_IF_ERROR(Run({bin + "/initdb", "-D", dir_ + "/data", "-U", "nubo", "--auth=trust",
                              "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"},
                             log, as));
    // The server is this process's child. Durability is not what these
    // tests are about: without fsync the suite runs at memory speed.
    server_ = Spawn({bin + "/postgres", "-D", dir_ + "/data", "-c", "listen_addresses=", "-k", dir_,
                     "-p", "5432", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c",
                     "full_page_writes=off", "-c", "max_connections=100"},
                    log, as);
    if (server_ < 0) return Status::Internal("fork failed");
    const std::string conninfo = "host=" + dir_ + " port=5432 user=nubo dbname=postgres";
    for (int i = 0; i < 600; ++i) {  // up to 60 s
      if (Conn::Open(conninfo + " connect_timeout=2").ok()) {
        conninfo_ = conninfo;
        return Status::Ok();
      }
      int status = 0;
      if (waitpid(server_, &status, WNOHANG) == server_) {
        server_ = -1;
        return Status::Internal("postgres exited at start: " + LogTail(log));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return Status::Internal("postgres did not accept connections within 60 s: " + LogTail(log));
  }

  std::mutex mu_;
  std::string dir_;
  std::string conninfo_;
  Status error_;
  pid_t server_ = -1;
  std::optional<passwd> as_;
  std::atomic<int> databases_{0};
};

Cluster& TheCluster() {
  static Cluster* c = new Cluster();
  static const bool registered = [] {
    std::atexit([] { delete c; });
    return true;
  }();
  (void)registered;
  return *c;
}

}  // namespace

Result<std::string> TestClusterConninfo() { return TheCluster().Start(); }
Result<std::string> FreshTestDatabase() { return TheCluster().Fresh(); }

namespace {

Result<int64_t> One(Conn& c, const char* sql) {
  NUBO_ASSIGN_OR_RETURN(Stmt s, c.Prepare(sql));
  NUBO_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return Status::NotFound("no row");
  return s.Int(0);
}

TEST(PgTestCluster, ListensOnlyOnItsOwnSocket) {
  auto info = TestClusterConninfo();
  ASSERT_TRUE(info.ok()) << info.status().ToString();
  auto c = Conn::Open(*info);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto listen = (*c)->Prepare("SELECT current_setting('listen_addresses')");
  ASSERT_TRUE(listen.ok());
  ASSERT_TRUE(*listen->Step());
  EXPECT_EQ(listen->View(0), "");  // no TCP
  auto v = One(**c, "SELECT current_setting('server_version_num')::int");
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_GE(*v, 150000);
}

TEST(PgTestCluster, FreshDatabasesDoNotSeeEachOther) {
  auto a = FreshTestDatabase();
  auto b = FreshTestDatabase();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_NE(*a, *b);
  auto ca = Conn::Open(*a);
  auto cb = Conn::Open(*b);
  ASSERT_TRUE(ca.ok() && cb.ok());
  ASSERT_TRUE((*ca)->Exec("CREATE TABLE only_here (x int)").ok());
  EXPECT_EQ(*One(**ca, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'"), 1);
  EXPECT_EQ(*One(**cb, "SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'"), 0);
}

}  // namespace
}  // namespace nubo::meta::pg
