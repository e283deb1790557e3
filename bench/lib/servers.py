"""The servers of the peer suite: nubo and WebDAV peers from Debian's packages,
each configured by the harness in its own folder on loopback (no file under
/etc is read for configuration except /etc/mime.types and nginx's mime.types;
none is written). Every server serves the same user's files at /dav/ with
Basic auth, and (except rclone) an unauthenticated 16-byte /health file.

Configuration summary (also in bench/README.md):
Every server runs without an access log, and the peers check Basic credentials
against a `{SHA}` htpasswd entry (one SHA-1 per request: htpasswd's apr1-MD5
default costs 1,000 MD5 rounds per request and measured the peers' hashing).
- nubo: `nubo serve` with default settings (Argon2id t=3 m=64 MiB, verifier
  cache 30 s, fsync'd uploads) but `log.access=false`, account created by
  POST /setup.
- apache: apache2 2.4 (`apache2 -f conf -DFOREGROUND`), mpm_event with
  Debian's default sizes, mod_dav + mod_dav_fs (DavLockDB), mod_auth_basic +
  mod_authn_file (htpasswd), KeepAlive On / MaxKeepAliveRequests 100
  / KeepAliveTimeout 5 (Debian's apache2.conf), LimitRequestBody 0.
- nginx: nginx-light 1.22 + libnginx-mod-http-dav-ext (load_module),
  worker_processes auto, worker_connections 768, sendfile on, tcp_nopush on
  (Debian's nginx.conf), dav_methods PUT DELETE MKCOL COPY MOVE,
  dav_ext_methods PROPFIND OPTIONS LOCK UNLOCK with a lock zone,
  create_full_put_path on, client_max_body_size 0, auth_basic (htpasswd).
- lighttpd: lighttpd 1.4 + lighttpd-mod-webdav (SQLite for properties and
  locks), mod_auth + mod_authn_file (htpasswd).
- rclone: `rclone serve webdav DIR --baseurl /dav --user --pass` (VFS cache
  mode off, rclone's defaults otherwise).
- sabre: sabre/dav (php-sabre-dav) in `php -S` with PHP_CLI_SERVER_WORKERS=4,
  Sabre\\DAV\\Server over an FS\\Directory root, Auth plugin (Basic,
  constant-time compare), Locks plugin with the File backend.
"""
import os
import shutil
import signal
import subprocess
import time

from lib import httpc
from lib.proc import free_port, tree_pids

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The build under test (AFTER in the A/B scenarios).
NUBO = os.path.abspath(os.environ.get("NUBO_BENCH_BIN") or os.environ.get("NUBO_BIN") or
                       os.path.join(ROOT, "build/release/nubo"))
USER = "root"
PASSWORD = "bench password!"
AUTH = httpc.basic(USER, PASSWORD)
HEALTH_BODY = b'{"status":"ok"}\n'
# The four properties a sync client's PROPFIND asks for (the suite's S1 and S2, the A/B scenarios).
PROPFIND_BODY = (b'<?xml version="1.0" encoding="utf-8"?>\n<d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/>'
                 b'<d:getcontentlength/><d:getlastmodified/><d:getetag/></d:prop></d:propfind>')
# A Nextcloud client's folder listing (the properties of the files app and
# of the documented WebDAV listing example): the oc:/nc: properties with a
# dead one among them (oc:comments-unread, unknown to nubo).
NEXTCLOUD_LISTING_BODY = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns" '
    b'xmlns:nc="http://nextcloud.org/ns"><d:prop><d:getlastmodified/><d:getetag/><d:getcontenttype/>'
    b'<d:resourcetype/><oc:fileid/><oc:permissions/><oc:size/><d:getcontentlength/><nc:has-preview/>'
    b'<oc:favorite/><oc:comments-unread/><oc:owner-display-name/><oc:share-types/></d:prop></d:propfind>')


def chown_www(path):
    subprocess.run(["chown", "-R", "www-data:www-data", path], check=True)


class Server:
    """Base: subclasses set name, build the config in start()."""
    name = "?"
    fs_root = None      # the folder behind /dav/ (peers): seeded directly
    has_health = True   # unauthenticated GET /health (16 bytes)
    runs_as_www = False
    proc = None
    failed = None       # why the server could not be started
    log_file = "server.log"  # in self.tmp

    def __init__(self, tmp):
        self.tmp = os.path.join(tmp, self.name)
        os.makedirs(self.tmp, exist_ok=True)
        os.chmod(self.tmp, 0o755)
        self.port = None
        self.log = None

    # -- lifecycle ---------------------------------------------------------
    def command(self):
        raise NotImplementedError

    def env(self):
        return {k: v for k, v in os.environ.items() if not k.startswith("NUBO_")}

    def ready_probe(self):
        if self.has_health:
            return ("GET", "/health", None)
        return ("PROPFIND", "/dav/", {"Authorization": AUTH, "Depth": "0"})

    def start(self):
        """Starts the server; returns the cold start time (s) to its first successful response."""
        if self.port is None:
            self.port = free_port()
        self.prepare()
        self.log = open(self.log_path, "ab")
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT, env=self.env(),
                                     cwd=self.tmp, start_new_session=True)
        method, path, headers = self.ready_probe()
        try:
            httpc.wait_ready(self.port, method, path, headers, timeout=60)
        except Exception:
            self.stop()
            raise
        return time.perf_counter() - t0

    def prepare(self):
        pass

    def pids(self):
        if self.proc is None or self.proc.poll() is not None:
            return []
        return tree_pids(self.proc.pid)

    def stop_signal(self):
        return signal.SIGTERM

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.kill(self.proc.pid, self.stop_signal())
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        if self.proc is not None:
            try:  # leftovers of the process group (php workers, apache children)
                os.killpg(self.proc.pid, signal.SIGKILL)
                for _ in range(100):
                    time.sleep(0.05)
                    os.killpg(self.proc.pid, 0)
            except OSError:
                pass
        if self.log:
            self.log.close()
            self.log = None

    @property
    def log_path(self):
        return os.path.join(self.tmp, self.log_file)

    def log_tail(self, n=2000):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-n:].decode("utf-8", "replace")
        except OSError:
            return ""

    def write_common(self):
        """htpasswd ({SHA}: one cheap hash per request) and the health file."""
        with open(os.path.join(self.tmp, "health"), "wb") as f:
            f.write(HEALTH_BODY)
        hp = os.path.join(self.tmp, "htpasswd")
        if not os.path.exists(hp):
            subprocess.run(["htpasswd", "-b", "-c", "-s", hp, USER, PASSWORD], check=True, capture_output=True)
        if self.runs_as_www:
            os.chmod(hp, 0o644)


class Nubo(Server):
    name = "nubo"
    bin = None

    def __init__(self, tmp, binary=None, name="nubo", env=None, data=None, access_log=False):
        """binary: another build than NUBO (an A/B's BEFORE); name: "nubo-before" for an older
        build run beside it in the suite; env: extra variables (the caller's NUBO_* are dropped);
        data: the data folder (default: data/ in the server's own folder); access_log: keep
        nubo's default access log (the suite turns it off, as for every peer)."""
        self.name = name
        super().__init__(tmp)
        self.bin = os.path.abspath(binary or NUBO)  # servers start in their own folder
        self.data = data or os.path.join(self.tmp, "data")
        self.extra_env = dict(env or {})
        self.access_log = access_log
        self.root_id = None

    def command(self):
        return [self.bin, "serve", "--listen", "127.0.0.1:%d" % self.port, "--data", self.data]

    def env(self):
        e = super().env()
        if not self.access_log:
            e["NUBO_ACCESS_LOG"] = "false"
        helper = derive_helper(self.bin)
        if helper:
            e["NUBO_MEDIA_HELPER"] = helper
        e.update(self.extra_env)
        return e


def derive_helper(binary):
    """The media helper for `binary` when none is beside it (a build copied away to serve as an
    A/B's BEFORE): the tree's own. Without one, every derive job of the seeded files fails and
    is retried 5, 10, 20 and 40 s later — inside whatever is being measured then (S1's listings
    took 3× as long in such runs). None when the binary has its own."""
    if os.access(os.path.join(os.path.dirname(binary), "nubo-derive"), os.X_OK):
        return None
    for d in (os.path.dirname(NUBO), os.path.join(ROOT, "build/release")):
        helper = os.path.join(d, "nubo-derive")
        if os.access(helper, os.X_OK):
            return helper
    raise RuntimeError("no nubo-derive beside %s nor in the tree's build: build it (make build)" % binary)


def start_nubo(tmp, env=None, binary=None):
    """A running nubo on a free port with its data in TMP/nubo-data (two builds started on the
    same TMP share it: the A/B scenarios) and its log in TMP/nubo/nubo-PORT.log. Returns once
    /health answers."""
    s = Nubo(tmp, binary, env=env, data=os.path.join(tmp, "nubo-data"), access_log=True)
    s.port = free_port()
    s.log_file = "nubo-%d.log" % s.port
    s.start()
    return s


class Peer(Server):
    """A WebDAV peer: serves the folder fs_root at /dav/ (the suite seeds it directly on disk)."""

    def __init__(self, tmp):
        super().__init__(tmp)
        self.fs_root = os.path.join(self.tmp, "dav")
        os.makedirs(self.fs_root, exist_ok=True)


class Apache(Peer):
    name = "apache"
    runs_as_www = True
    MODS = ("mpm_event", "authz_core", "authn_core", "authn_file", "auth_basic", "authz_user", "dav", "dav_fs",
            "alias", "mime", "dir")
    CONF = """ServerRoot {tmp}
Listen 127.0.0.1:{port}
ServerName 127.0.0.1
PidFile {tmp}/apache.pid
DefaultRuntimeDir {tmp}/run
Mutex file:{tmp}/run default
User www-data
Group www-data
ErrorLog {tmp}/error.log
LogLevel warn
{modules}
TypesConfig /etc/mime.types
# Debian's apache2.conf and mods-available/mpm_event.conf
Timeout 300
KeepAlive On
MaxKeepAliveRequests 100
KeepAliveTimeout 5
StartServers 2
MinSpareThreads 25
MaxSpareThreads 75
ThreadLimit 64
ThreadsPerChild 25
MaxRequestWorkers 150
MaxConnectionsPerChild 0
LogFormat "%h %l %u %t \\"%r\\" %>s %O \\"%{{Referer}}i\\" \\"%{{User-Agent}}i\\"" combined
DocumentRoot {tmp}/www
DavLockDB {tmp}/run/davlock
Alias /health {tmp}/health
Alias /dav {root}
<Directory {root}>
  Require all granted
</Directory>
<Directory {tmp}/www>
  Require all granted
</Directory>
<Files health>
  ForceType application/json
</Files>
<Location /dav/>
  Dav On
  AuthType Basic
  AuthName "nubo-bench"
  AuthUserFile {tmp}/htpasswd
  Require valid-user
  LimitRequestBody 0
</Location>
"""

    def prepare(self):
        self.write_common()
        for d in ("run", "www"):
            os.makedirs(os.path.join(self.tmp, d), exist_ok=True)
        chown_www(os.path.join(self.tmp, "run"))
        mods = "\n".join("LoadModule %s_module /usr/lib/apache2/modules/mod_%s.so" % (m, m) for m in self.MODS)
        conf = os.path.join(self.tmp, "apache2.conf")
        with open(conf, "w") as f:
            f.write(self.CONF.format(tmp=self.tmp, port=self.port, root=self.fs_root, modules=mods))

    def command(self):
        return ["/usr/sbin/apache2", "-f", os.path.join(self.tmp, "apache2.conf"), "-DFOREGROUND"]

    def stop_signal(self):
        return signal.SIGWINCH  # graceful stop


class Nginx(Peer):
    name = "nginx"
    runs_as_www = True
    CONF = """load_module /usr/lib/nginx/modules/ngx_http_dav_ext_module.so;
user www-data;
worker_processes auto;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 768; }}
http {{
  sendfile on;
  tcp_nopush on;
  types_hash_max_size 2048;
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path {root}.tmp;
  proxy_temp_path {tmp}/proxy;
  fastcgi_temp_path {tmp}/fastcgi;
  uwsgi_temp_path {tmp}/uwsgi;
  scgi_temp_path {tmp}/scgi;
  dav_ext_lock_zone zone=davlock:10m;
  server {{
    listen 127.0.0.1:{port};
    location = /health {{ alias {tmp}/health; default_type application/json; }}
    location /dav/ {{
      alias {root}/;
      dav_methods PUT DELETE MKCOL COPY MOVE;
      dav_ext_methods PROPFIND OPTIONS LOCK UNLOCK;
      dav_ext_lock zone=davlock;
      dav_access user:rw group:rw all:r;
      create_full_put_path on;
      client_max_body_size 0;
      auth_basic "nubo-bench";
      auth_basic_user_file {tmp}/htpasswd;
    }}
  }}
}}
"""

    def prepare(self):
        self.write_common()
        os.makedirs(self.fs_root + ".tmp", exist_ok=True)
        chown_www(self.fs_root + ".tmp")
        conf = os.path.join(self.tmp, "nginx.conf")
        with open(conf, "w") as f:
            f.write(self.CONF.format(tmp=self.tmp, port=self.port, root=self.fs_root))

    def command(self):
        return ["/usr/sbin/nginx", "-c", os.path.join(self.tmp, "nginx.conf"), "-e", os.path.join(self.tmp, "error.log")]

    def stop_signal(self):
        return signal.SIGQUIT


class Lighttpd(Peer):
    name = "lighttpd"
    runs_as_www = True
    CONF = """server.modules = ("mod_alias", "mod_auth", "mod_authn_file", "mod_webdav")
server.bind = "127.0.0.1"
server.port = {port}
server.document-root = "{tmp}/www"
server.pid-file = "{tmp}/lighttpd.pid"
server.errorlog = "{tmp}/error.log"
server.username = "www-data"
server.groupname = "www-data"
server.upload-dirs = ("{root}.tmp")
mimetype.assign = (".json" => "application/json", ".txt" => "text/plain", ".jpg" => "image/jpeg",
                   ".pdf" => "application/pdf", ".md" => "text/markdown", "" => "application/octet-stream")
alias.url = ("/health" => "{tmp}/health", "/dav/" => "{root}/")
$HTTP["url"] =~ "^/dav/" {{
  webdav.activate = "enable"
  webdav.is-readonly = "disable"
  webdav.sqlite-db-name = "{tmp}/run/webdav.db"
  auth.backend = "htpasswd"
  auth.backend.htpasswd.userfile = "{tmp}/htpasswd"
  auth.require = ("" => ("method" => "basic", "realm" => "nubo-bench", "require" => "valid-user"))
}}
"""

    def prepare(self):
        self.write_common()
        for d in ("run", "www"):
            os.makedirs(os.path.join(self.tmp, d), exist_ok=True)
        os.makedirs(self.fs_root + ".tmp", exist_ok=True)
        subprocess.run(["chown", "www-data:www-data", self.tmp], check=True)  # lighttpd opens its logs as www-data
        chown_www(os.path.join(self.tmp, "run"))
        chown_www(self.fs_root + ".tmp")
        conf = os.path.join(self.tmp, "lighttpd.conf")
        with open(conf, "w") as f:
            f.write(self.CONF.format(tmp=self.tmp, port=self.port, root=self.fs_root))

    def command(self):
        return ["/usr/sbin/lighttpd", "-D", "-f", os.path.join(self.tmp, "lighttpd.conf")]

    def stop_signal(self):
        return signal.SIGINT


class Rclone(Peer):
    name = "rclone"
    has_health = False

    def env(self):
        e = super().env()
        e["RCLONE_CONFIG"] = os.path.join(self.tmp, "rclone.conf")
        return e

    def command(self):
        return ["rclone", "serve", "webdav", self.fs_root, "--addr", "127.0.0.1:%d" % self.port, "--baseurl", "/dav",
                "--user", USER, "--pass", PASSWORD, "--log-level", "ERROR"]


class Sabre(Peer):
    name = "sabre"
    SCRIPT = r"""<?php
// sabre/dav behind `php -S` (bench/peers.py writes this file).
require '/usr/share/php/Sabre/autoload.php';
if ($_SERVER['REQUEST_URI'] === '/health') {
    header('Content-Type: application/json');
    readfile(getenv('BENCH_HEALTH'));
    return true;
}
class BenchAuth extends Sabre\DAV\Auth\Backend\AbstractBasic {
    protected function validateUserPass($username, $password) {
        return $username === getenv('BENCH_USER') && hash_equals(getenv('BENCH_PASS'), $password);
    }
}
$server = new Sabre\DAV\Server(new Sabre\DAV\FS\Directory(getenv('BENCH_ROOT')));
$server->setBaseUri('/dav/');
$server->addPlugin(new Sabre\DAV\Auth\Plugin(new BenchAuth(), 'nubo-bench'));
$server->addPlugin(new Sabre\DAV\Locks\Plugin(new Sabre\DAV\Locks\Backend\File(getenv('BENCH_LOCKS'))));
$server->exec();
"""
    WORKERS = 4

    def prepare(self):
        self.write_common()
        with open(os.path.join(self.tmp, "server.php"), "w") as f:
            f.write(self.SCRIPT)

    def env(self):
        e = super().env()
        e.update({"PHP_CLI_SERVER_WORKERS": str(self.WORKERS), "BENCH_ROOT": self.fs_root,
                  "BENCH_LOCKS": os.path.join(self.tmp, "locks.dat"), "BENCH_HEALTH": os.path.join(self.tmp, "health"),
                  "BENCH_USER": USER, "BENCH_PASS": PASSWORD})
        return e

    def command(self):
        return ["php", "-d", "memory_limit=-1", "-d", "error_reporting=E_ALL & ~E_DEPRECATED", "-d",
                "display_errors=stderr", "-S", "127.0.0.1:%d" % self.port, os.path.join(self.tmp, "server.php")]


PEERS = {"apache": Apache, "nginx": Nginx, "lighttpd": Lighttpd, "rclone": Rclone, "sabre": Sabre}


def have(peer):
    need = {"apache": "/usr/sbin/apache2", "nginx": "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so",
            "lighttpd": "/usr/lib/lighttpd/mod_webdav.so", "rclone": shutil.which("rclone") or "/nonexistent",
            "sabre": "/usr/share/php/Sabre/autoload.php"}[peer]
    return os.path.exists(need) and (peer != "sabre" or shutil.which("php"))
