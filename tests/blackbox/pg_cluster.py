"""A throwaway PostgreSQL server for black-box runs on PostgreSQL
(NUBO_TEST_POSTGRES=1): initdb and postgres of Debian's postgresql-15 in a
temporary folder, on a Unix socket in that folder only, as the postgres
user when the tests run as root, and as a child of the test process that
gets SIGQUIT (PostgreSQL's immediate shutdown) when that process dies.
Each Server gets a fresh database. A missing tool fails the test.
"""
import atexit
import ctypes
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.parse

BIN = os.environ.get("NUBO_PG_BIN", "/usr/lib/postgresql/15/bin")
PR_SET_PDEATHSIG = 1

_cluster = None


def wanted():
    return os.environ.get("NUBO_TEST_POSTGRES") == "1"


class _Cluster:
    def __init__(self):
        for tool in ("initdb", "postgres", "psql"):
            path = os.path.join(BIN, tool) if tool != "psql" else "/usr/bin/psql"
            if not os.access(path, os.X_OK):
                raise RuntimeError("%s is missing: install postgresql-15 (scripts/deps.sh test)" % path)
        self.dir = tempfile.mkdtemp(prefix="nubo-pg-", dir="/tmp")
        self.user = None
        if os.geteuid() == 0:
            self.user = pwd.getpwnam("postgres")
            os.chown(self.dir, self.user.pw_uid, self.user.pw_gid)
        self.log = os.path.join(self.dir, "log")
        self.count = 0
        self._run([os.path.join(BIN, "initdb"), "-D", os.path.join(self.dir, "data"), "-U", "nubo",
                   "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"])
        self.log_file = open(self.log, "ab")
        # Tests need no durability; a benchmark (NUBO_PG_DURABLE=1) keeps
        # PostgreSQL's defaults, as nubo's SQLite is durable too.
        relaxed = [] if os.environ.get("NUBO_PG_DURABLE") == "1" else [
            "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        self.proc = subprocess.Popen(
            [os.path.join(BIN, "postgres"), "-D", os.path.join(self.dir, "data"), "-c", "listen_addresses=",
             "-k", self.dir, "-p", "5432", *relaxed, "-c", "max_connections=200"],
            stdout=self.log_file, stderr=subprocess.STDOUT, preexec_fn=self._child(True))
        deadline = time.time() + 60
        while self._psql("postgres", "SELECT 1", check=False).returncode != 0:
            if self.proc.poll() is not None or time.time() > deadline:
                raise RuntimeError("postgres did not start:\n" + open(self.log).read()[-2000:])
            time.sleep(0.1)
        atexit.register(self.stop)

    def _child(self, die_with_parent):
        user = self.user
        parent = os.getpid()

        def setup():
            if user:
                os.setgroups([])
                os.setgid(user.pw_gid)
                os.setuid(user.pw_uid)
            if die_with_parent:
                ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGQUIT)
                if os.getppid() != parent:
                    os._exit(125)
        return setup

    def _run(self, cmd):
        with open(self.log, "ab") as log:
            r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, preexec_fn=self._child(False))
        if r.returncode != 0:
            raise RuntimeError("%s failed:\n%s" % (cmd[0], open(self.log).read()[-2000:]))

    def _psql(self, db, sql, check=True):
        return subprocess.run(["/usr/bin/psql", "-h", self.dir, "-p", "5432", "-U", "nubo", "-d", db, "-v",
                               "ON_ERROR_STOP=1", "-qAtc", sql], capture_output=True, check=check)

    def fresh(self):
        self.count += 1
        name = "bb%d_%d" % (os.getpid(), self.count)
        self._psql("postgres", "CREATE DATABASE %s TEMPLATE template0" % name)
        return "postgres://nubo@%s:5432/%s" % (urllib.parse.quote(self.dir, safe=""), name)

    def psql(self, db, sql):
        """Rows of `sql` in database `db`, as lists of strings."""
        out = self._psql(db, sql).stdout.decode()
        return [line.split("|") for line in out.splitlines() if line]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)
            self.proc.wait()
        self.log_file.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def cluster():
    global _cluster
    if _cluster is None:
        _cluster = _Cluster()
    return _cluster


def fresh_database():
    """A postgres:// URL of a new empty database."""
    return cluster().fresh()
