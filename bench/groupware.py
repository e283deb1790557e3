"""Scenario groupware: CalDAV and CardDAV, nubo vs Radicale and Xandikos
(Debian's packages) side by side in one run, each on its own loopback port
and data folder, with the same seeded data and the same requests.

Seed: 5,000 events (every tenth recurring weekly, every other of those
without an end) in one calendar and 5,000 vCards in one address book —
through PUT on nubo, written into the peers' own storage (their PUT path
grows too slow to seed 10,000 items in a benchmark's time); one untimed
PROPFIND of each collection warms every server's caches.
Rows (median of --rounds repetitions each, the servers taking turns
request by request):
  PROPFIND Depth 1 on the calendar (getetag, getcontenttype)
  calendar-query of one month with calendar-data expanded
  calendar-multiget of 500 hrefs with calendar-data
  sync-collection, initial (getetag)
  sync-collection after 10 changes
  addressbook-query returning getetag for every card
  PUT of 1,000 new events on one keep-alive connection (nubo: fsync'd)
  vdirsyncer initial sync of a 1,000-event calendar (median of 3 per server),
    the client's own storage on tmpfs (its fsyncs cost the same against
    every server and are no server's work); beside the wall time, the part
    of it the client spent waiting (wall time minus vdirsyncer's CPU time)
--before BINARY adds an older nubo build as one more server (its own data,
seeded through PUT) and an AFTER/BEFORE column; --peers none leaves out
Radicale and Xandikos (an A/B of nubo builds alone, in minutes).
Gates: every server's month query names the same objects, every
addressbook-query lists 5,000 cards, every multiget returns 500
calendar-data, and the sync after 10 changes reports exactly those 10.
"""
import os
import random
import re
import resource
import shutil
import signal
import statistics
import subprocess
import tempfile
import time

from lib import httpc
from lib.api import ADMIN, Api, FAST_ARGON2
from lib.proc import free_port, peak_rss_kib, tree_pids, wait_port
from lib.servers import start_nubo

N_EVENTS = 5000
N_CARDS = 5000
MULTIGET = 500
PUTS = 1000
VDIR_EVENTS = 1000
XML = "application/xml; charset=utf-8"
PW = "bench password!"


def ics(uid, day, hour, recurring, infinite, summary):
    start = "2026%02d%02dT%02d0000Z" % (1 + day // 28 % 12, 1 + day % 28, hour)
    end = "2026%02d%02dT%02d3000Z" % (1 + day // 28 % 12, 1 + day % 28, hour)
    rule = ""
    if recurring:
        rule = "RRULE:FREQ=WEEKLY\r\n" if infinite else "RRULE:FREQ=WEEKLY;COUNT=20\r\n"
    return ("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//nubo bench//EN\r\nBEGIN:VEVENT\r\nUID:%s\r\n"
            "DTSTAMP:20251201T000000Z\r\nDTSTART:%s\r\nDTEND:%s\r\n%sSUMMARY:%s\r\nEND:VEVENT\r\n"
            "END:VCALENDAR\r\n" % (uid, start, end, rule, summary)).encode()


def vcard(i):
    return ("BEGIN:VCARD\r\nVERSION:3.0\r\nUID:card-%05d\r\nFN:Person %05d\r\nN:%05d;Person;;;\r\n"
            "EMAIL;TYPE=work:p%05d@example.org\r\nTEL;TYPE=cell:+4930%07d\r\nEND:VCARD\r\n" % (i, i, i, i, i)).encode()


class Conn:
    """One keep-alive connection with Basic auth (or none), lib.httpc underneath."""

    def __init__(self, port, user=None, password=None):
        self.port = port
        self.auth = {} if user is None else {"Authorization": httpc.basic(user, password)}
        self.c = httpc.Conn(port, timeout=600)

    def req(self, method, path, body=b"", headers=None):
        h = dict(self.auth)
        h.update(headers or {})
        r = self.c.request(method, path, h, body)
        return r.status, r.body


class Peer:
    name = "?"
    user = "bench"
    supports_sync = True  # RFC 6578 sync-collection

    def url(self, path):
        return "http://127.0.0.1:%d%s" % (self.port, path)

    def conn(self):
        return Conn(self.port, self.user, PW)

    def pids(self):
        return tree_pids(self.proc.pid)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class NuboPeer(Peer):
    name = "nubo"

    def __init__(self, tmp, binary=None, name="nubo"):
        self.name = name
        d = os.path.join(tmp, name)
        os.makedirs(d)
        self.srv = start_nubo(d, env=FAST_ARGON2, binary=binary)
        self.port, self.proc = self.srv.port, self.srv.proc
        api = Api(self.port, *ADMIN)
        api.setup()
        api.call("POST", "/admin/users", {"username": self.user, "password": PW}, expect=201)
        self.cal = "/remote.php/dav/calendars/bench/bench/"
        self.book = "/remote.php/dav/addressbooks/users/bench/bench/"
        self.vdir_url = self.url("/remote.php/dav/")

    def make(self, c):
        assert c.req("MKCALENDAR", self.cal)[0] == 201
        assert c.req("MKCOL", self.book)[0] == 201

    def make_vdir_calendar(self, c):
        path = "/remote.php/dav/calendars/bench/vdir/"
        assert c.req("MKCALENDAR", path)[0] == 201
        return path

    def stop(self):
        self.srv.stop()


class RadicalePeer(Peer):
    name = "radicale"

    def __init__(self, tmp):
        d = os.path.join(tmp, "radicale")
        os.makedirs(d)
        self.dir = d
        self.port = free_port()
        with open(os.path.join(d, "users"), "w") as f:
            f.write("%s:%s\n" % (self.user, PW))
        cfg = os.path.join(d, "config")
        with open(cfg, "w") as f:
            f.write("[server]\nhosts = 127.0.0.1:%d\n[auth]\ntype = htpasswd\nhtpasswd_filename = %s\n"
                    "htpasswd_encryption = plain\n[storage]\nfilesystem_folder = %s\n[rights]\ntype = owner_only\n"
                    "[logging]\nlevel = warning\n[web]\ntype = none\n" % (self.port, os.path.join(d, "users"),
                                                                          os.path.join(d, "collections")))
        self.log = open(os.path.join(d, "log"), "wb")
        self.proc = subprocess.Popen(["/usr/bin/python3", "-m", "radicale", "--config", cfg], stdout=self.log,
                                     stderr=subprocess.STDOUT)
        wait_port(self.port, timeout=30)
        self.cal = "/bench/cal/"
        self.book = "/bench/book/"
        self.vdir_url = self.url("/")

    def make(self, c):
        # Radicale makes an account's principal collection on its first visit.
        assert c.req("PROPFIND", "/bench/", b"", {"Depth": "0"})[0] == 207
        assert c.req("MKCALENDAR", self.cal)[0] == 201
        mk = (b'<d:mkcol xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><d:set><d:prop><d:resourcetype>'
              b'<d:collection/><CR:addressbook/></d:resourcetype></d:prop></d:set></d:mkcol>')
        st, data = c.req("MKCOL", self.book, mk, {"Content-Type": XML})
        assert st == 201, (st, data)

    def make_vdir_calendar(self, c):
        assert c.req("MKCALENDAR", "/bench/vdir/")[0] == 201
        return "/bench/vdir/"

    def seed_files(self, events, cards):
        """Radicale's own storage (one file per item in the collection's
        folder): 10,000 PUTs through it take over an hour on this machine,
        each costing more than the last."""
        root = os.path.join(self.dir, "collections", "collection-root", "bench")
        write_items(os.path.join(root, "cal"), [(u + ".ics", d) for u, d in events])
        write_items(os.path.join(root, "book"), [("card-%05d.vcf" % i, vcard(i)) for i in range(cards)])


class SabrePeer(Peer):
    """sabre/dav as Debian ships it (1.8, under `php -S` with 4 workers):
    its CalDAV and CardDAV servers on PDO SQLite, with the schema Debian
    ships beside the library. That version predates sabre's
    sync-collection, so its sync rows stay empty."""
    name = "sabre"
    supports_sync = False
    SCHEMA = "/usr/share/doc/php-sabre-dav/examples/sql"
    SCRIPT = r"""<?php
// sabre/dav's CalDAV and CardDAV servers for the groupware benchmark.
require '/usr/share/php/Sabre/autoload.php';
class BenchAuth extends Sabre\DAV\Auth\Backend\AbstractBasic {
    protected function validateUserPass($username, $password) {
        return $username === getenv('BENCH_USER') && hash_equals(getenv('BENCH_PASS'), $password);
    }
}
$pdo = new PDO('sqlite:' . getenv('BENCH_DB'));
$pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);
$principals = new Sabre\DAVACL\PrincipalBackend\PDO($pdo);
$calendars = new Sabre\CalDAV\Backend\PDO($pdo);
$cards = new Sabre\CardDAV\Backend\PDO($pdo);
$server = new Sabre\DAV\Server([
    new Sabre\CalDAV\Principal\Collection($principals),
    new Sabre\CalDAV\CalendarRootNode($principals, $calendars),
    new Sabre\CardDAV\AddressBookRoot($principals, $cards),
]);
$server->setBaseUri('/');
$server->addPlugin(new Sabre\DAV\Auth\Plugin(new BenchAuth(), 'nubo-bench'));
$server->addPlugin(new Sabre\DAVACL\Plugin());
$server->addPlugin(new Sabre\CalDAV\Plugin());
$server->addPlugin(new Sabre\CardDAV\Plugin());
$server->exec();
"""

    def __init__(self, tmp):
        import sqlite3
        d = os.path.join(tmp, "sabre")
        os.makedirs(d)
        db = os.path.join(d, "sabre.db")
        con = sqlite3.connect(db)
        for part in ("principals", "calendars", "addressbooks"):
            with open(os.path.join(self.SCHEMA, "sqlite.%s.sql" % part)) as f:
                con.executescript(f.read())
        con.execute("INSERT INTO principals (uri, email, displayname) VALUES (?, ?, ?)",
                    ("principals/" + self.user, self.user + "@example.org", self.user))
        con.commit()
        con.close()
        script = os.path.join(d, "server.php")
        with open(script, "w") as f:
            f.write(self.SCRIPT)
        self.port = free_port()
        env = dict(os.environ, PHP_CLI_SERVER_WORKERS="4", BENCH_DB=db, BENCH_USER=self.user, BENCH_PASS=PW)
        self.log = open(os.path.join(d, "log"), "wb")
        self.proc = subprocess.Popen(["php", "-d", "memory_limit=-1", "-d", "error_reporting=E_ALL & ~E_DEPRECATED",
                                      "-d", "display_errors=stderr", "-S", "127.0.0.1:%d" % self.port, script],
                                     env=env, stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_port(self.port, timeout=30)
        self.cal = "/calendars/%s/cal/" % self.user
        self.book = "/addressbooks/%s/book/" % self.user
        self.vdir_url = self.url("/")

    def stop(self):
        # `php -S` workers outlive their parent: end the whole group.
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def make(self, c):
        st, data = c.req("MKCALENDAR", self.cal)
        assert st == 201, (st, data[:300])
        mk = (b'<d:mkcol xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><d:set><d:prop><d:resourcetype>'
              b'<d:collection/><CR:addressbook/></d:resourcetype></d:prop></d:set></d:mkcol>')
        st, data = c.req("MKCOL", self.book, mk, {"Content-Type": XML})
        assert st == 201, (st, data[:300])

    def make_vdir_calendar(self, c):
        path = "/calendars/%s/vdir/" % self.user
        assert c.req("MKCALENDAR", path)[0] == 201
        return path


class XandikosPeer(Peer):
    name = "xandikos"
    user = None  # Xandikos has no authentication of its own

    def __init__(self, tmp):
        d = os.path.join(tmp, "xandikos")
        os.makedirs(d)
        self.dir = d
        self.port = free_port()
        self.log = open(os.path.join(d, "log"), "wb")
        self.proc = subprocess.Popen(["xandikos", "-d", os.path.join(d, "data"), "--defaults", "-l", "127.0.0.1",
                                      "-p", str(self.port)], stdout=self.log, stderr=subprocess.STDOUT)
        wait_port(self.port, timeout=30)
        self.cal = "/user/calendars/calendar/"
        self.book = "/user/contacts/addressbook/"
        self.vdir_url = self.url("/user/")

    def conn(self):
        return Conn(self.port)

    def make(self, c):
        pass  # --defaults made both

    def make_vdir_calendar(self, c):
        assert c.req("MKCALENDAR", "/user/calendars/vdir/")[0] == 201
        return "/user/calendars/vdir/"

    def seed_files(self, events, cards):
        """Xandikos's own storage: a git repository per collection, one
        commit for all the items (a PUT is a commit each)."""
        for rel, items in (("calendars/calendar", [(u + ".ics", d) for u, d in events]),
                           ("contacts/addressbook", [("card-%05d.vcf" % i, vcard(i)) for i in range(cards)])):
            repo = os.path.join(self.dir, "data", "user", rel)
            write_items(repo, items)
            subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
            subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm",
                            "seed"], cwd=repo, check=True)




def write_items(folder, items):
    for name, data in items:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


def seed(p, events, cards):
    c = p.conn()
    p.make(c)
    if hasattr(p, "seed_files"):
        p.seed_files(events, cards)
        return
    for i, (uid, data) in enumerate(events):
        st, body = c.req("PUT", p.cal + uid + ".ics", data, {"Content-Type": "text/calendar"})
        assert st in (201, 204), (p.name, st, body[:200])
    for i in range(cards):
        st, body = c.req("PUT", p.book + "card-%05d.vcf" % i, vcard(i), {"Content-Type": "text/vcard"})
        assert st in (201, 204), (p.name, st, body[:200])


def hrefs(data):
    return re.findall(rb"<(?:[A-Za-z0-9]+:)?href>([^<]+)</(?:[A-Za-z0-9]+:)?href>", data)


def names(data, suffix):
    return sorted({h.rsplit(b"/", 1)[1].decode() for h in hrefs(data) if h.endswith(suffix)})


MONTH_QUERY = (b'<C:calendar-query xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>'
               b'<C:calendar-data><C:expand start="20260301T000000Z" end="20260401T000000Z"/></C:calendar-data>'
               b'</d:prop><C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">'
               b'<C:time-range start="20260301T000000Z" end="20260401T000000Z"/></C:comp-filter></C:comp-filter>'
               b'</C:filter></C:calendar-query>')
PROPFIND1 = (b'<d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:getcontenttype/></d:prop></d:propfind>')
SYNC = (b'<d:sync-collection xmlns:d="DAV:"><d:sync-token>%s</d:sync-token><d:sync-level>1</d:sync-level>'
        b'<d:prop><d:getetag/></d:prop></d:sync-collection>')
CARDQ = (b'<CR:addressbook-query xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><d:prop><d:getetag/>'
         b'</d:prop></CR:addressbook-query>')


def multiget(p, uids):
    body = (b'<C:calendar-multiget xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/>'
            b'<C:calendar-data/></d:prop>' + b"".join(b"<d:href>%s%s.ics</d:href>" % (p.cal.encode(), u.encode())
                                                      for u in uids) + b"</C:calendar-multiget>")
    return body


def vdirsyncer_sync(p, runs=3):
    """Median (wall, waited) seconds of `runs` initial syncs, each into an
    empty client storage."""
    c = p.conn()
    path = p.make_vdir_calendar(c)
    for i in range(VDIR_EVENTS):
        c.req("PUT", path + "v%04d.ics" % i, ics("v%04d" % i, i % 300, 9, False, False, "v"),
              {"Content-Type": "text/calendar"})
    got = [vdirsyncer_once(p, path) for _ in range(runs)]
    return statistics.median(g[0] for g in got), statistics.median(g[1] for g in got)


def vdirsyncer_once(p, path):
    d = tempfile.mkdtemp(prefix="nubo-bench-vdir-%s-" % p.name, dir="/dev/shm")
    cfg = os.path.join(d, "config")
    auth = "" if p.user is None else 'username = "%s"\npassword = "%s"\n' % (p.user, PW)
    with open(cfg, "w") as f:
        f.write('[general]\nstatus_path = "%s/status/"\n[pair p]\na = "local"\nb = "remote"\ncollections = null\n'
                '[storage local]\ntype = "filesystem"\npath = "%s/local/"\nfileext = ".ics"\n'
                '[storage remote]\ntype = "caldav"\nurl = "%s"\n%s' % (d, d, p.url(path), auth))
    os.makedirs(os.path.join(d, "local"))
    env = dict(os.environ, HOME=d)
    subprocess.run(["vdirsyncer", "-c", cfg, "discover"], input="y\n" * 5, text=True, env=env, check=True,
                   capture_output=True)
    cpu0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(["vdirsyncer", "-c", cfg, "sync"], env=env, check=True, capture_output=True)
    dt = time.perf_counter() - t
    cpu1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime
    got = len(os.listdir(os.path.join(d, "local")))
    shutil.rmtree(d, ignore_errors=True)
    if got != VDIR_EVENTS:
        raise SystemExit("gate: vdirsyncer fetched %d of %d events from %s" % (got, VDIR_EVENTS, p.name))
    return dt, max(dt - cpu, 0.0)


def run(args):
    rounds = max(args.rounds, 5)
    tmp = tempfile.mkdtemp(prefix="nubo-bench-gw-", dir=args.tmpdir)
    rnd = random.Random(7)
    events = []
    for i in range(N_EVENTS):
        recurring = i % 10 == 0
        events.append(("ev-%05d" % i, ics("ev-%05d" % i, rnd.randrange(0, 336), rnd.randrange(7, 19), recurring,
                                          recurring and i % 20 == 0, "Event %d" % i)))
    peers = []
    makers = [lambda: NuboPeer(tmp)]
    if args.before:
        if not os.path.exists(args.before):
            raise SystemExit("--before %s: no such binary" % args.before)
        makers.append(lambda: NuboPeer(tmp, args.before, "nubo-before"))
    known = {"radicale": RadicalePeer, "xandikos": XandikosPeer, "sabre": SabrePeer}
    wanted = [] if args.peers == "none" else (args.peers or "radicale,xandikos,sabre").split(",")
    for name in wanted:
        if name not in known:
            raise SystemExit("--peers: %s is not one of %s (or none)" % (name, ", ".join(known)))
        makers.append(lambda cls=known[name]: cls(tmp))
    try:
        for make in makers:
            p = make()
            peers.append(p)
            t = time.perf_counter()
            seed(p, events, N_CARDS)
            print("seeded %s in %.1f s" % (p.name, time.perf_counter() - t), flush=True)
        month_sets, results = {}, {p.name: {} for p in peers}
        conns = {p.name: p.conn() for p in peers}
        for p in peers:
            # Untimed warm-up (Radicale builds its item cache on first read).
            c = conns[p.name]
            c.req("PROPFIND", p.cal, PROPFIND1, {"Depth": "1", "Content-Type": XML})
            c.req("PROPFIND", p.book, PROPFIND1, {"Depth": "1", "Content-Type": XML})

        def interleaved(key, request, only=None):
            """Times `request(peer, conn)` round by round, the servers taking
            turns (the order alternating), so that a slower spell of the
            machine falls on every server alike; the last answer per server.
            A server `only` rejects has no number in the row."""
            some = [p for p in peers if only is None or only(p)]
            times, last = {p.name: [] for p in some}, {}
            for i in range(rounds):
                for p in (some if i % 2 == 0 else some[::-1]):
                    t = time.perf_counter()
                    last[p.name] = request(p, conns[p.name])
                    times[p.name].append(time.perf_counter() - t)
            for name, ts in times.items():
                results[name][key] = statistics.median(ts)
            return last

        def report(path_of, body_of, depth="1"):
            return lambda p, c: c.req("REPORT", path_of(p), body_of(p), {"Depth": depth, "Content-Type": XML})

        cal, book = (lambda p: p.cal), (lambda p: p.book)
        for name, (st, data) in interleaved("propfind", lambda p, c: c.req(
                "PROPFIND", p.cal, PROPFIND1, {"Depth": "1", "Content-Type": XML})).items():
            assert st == 207 and len(names(data, b".ics")) == N_EVENTS, (name, st, len(names(data, b".ics")))
        for name, (st, data) in interleaved("month", report(cal, lambda p: MONTH_QUERY)).items():
            assert st == 207, (name, st, data[:300])
            month_sets[name] = names(data, b".ics")
        uids = [u for u, _ in events[:MULTIGET]]
        for name, (st, data) in interleaved("multiget", report(cal, lambda p: multiget(p, uids))).items():
            assert st == 207 and data.count(b"BEGIN:VCALENDAR") == MULTIGET, (name, st, data.count(b"BEGIN:VCAL"))
        tokens = {}
        syncs = lambda p: p.supports_sync  # noqa: E731
        for name, (st, data) in interleaved("sync0", report(cal, lambda p: SYNC % b"", "0"), syncs).items():
            assert st == 207 and len(names(data, b".ics")) == N_EVENTS, (name, st)
            tokens[name] = re.search(rb"<(?:\w+:)?sync-token>([^<]+)<", data).group(1)
        for p in peers:
            for i in range(10):
                u, _ = events[i]
                st, _ = conns[p.name].req("PUT", p.cal + u + ".ics", ics(u, 5, 10, False, False, "changed %d" % i),
                                          {"Content-Type": "text/calendar"})
                assert st in (201, 204)
        for name, (st, data) in interleaved("sync10", report(cal, lambda p: SYNC % tokens[p.name], "0"),
                                            syncs).items():
            got = names(data, b".ics")
            assert st == 207 and got == sorted(u + ".ics" for u, _ in events[:10]), (name, st, got[:12])
        for name, (st, data) in interleaved("cards", report(book, lambda p: CARDQ)).items():
            assert st == 207 and len(names(data, b".vcf")) == N_CARDS, (name, st, len(names(data, b".vcf")))
        for p in peers:
            c, r = conns[p.name], results[p.name]
            t = time.perf_counter()
            for i in range(PUTS):
                st, _ = c.req("PUT", p.cal + "new-%04d.ics" % i, ics("new-%04d" % i, i % 300, 8, False, False, "n"),
                              {"Content-Type": "text/calendar"})
                assert st == 201, (p.name, st)
            r["puts"] = time.perf_counter() - t
            r["vdirsyncer"], r["vdirwait"] = vdirsyncer_sync(p)
            r["rss"] = peak_rss_kib(p.pids()) / 1024
        base = month_sets["nubo"]
        print_table(results, len(base), rounds)
        # The gate: nubo and Radicale (which agrees with nubo on every query
        # of tests/blackbox/test_caldav_differential.py) name the same
        # objects; another peer that differs is reported, its row kept.
        for name, got in month_sets.items():
            if got == base:
                continue
            msg = "%s's month query named %d objects, nubo's %d (first differences: %s)" % (
                name, len(got), len(base), sorted(set(got) ^ set(base))[:5])
            if name in ("radicale", "nubo-before"):
                raise SystemExit("gate: " + msg)
            print("\nwrong answer: " + msg)
    finally:
        for p in peers:
            p.stop()
        shutil.rmtree(tmp, ignore_errors=True)


ROWS = [("propfind", "PROPFIND Depth 1, calendar of %d" % N_EVENTS),
        ("month", "calendar-query, one month, expanded"),
        ("multiget", "calendar-multiget of %d" % MULTIGET),
        ("sync0", "sync-collection, initial"),
        ("sync10", "sync-collection after 10 changes"),
        ("cards", "addressbook-query getetag, %d cards" % N_CARDS),
        ("puts", "PUT of %d events, one connection (s)" % PUTS),
        ("vdirsyncer", "vdirsyncer initial sync, %d events, median of 3 (s)" % VDIR_EVENTS),
        ("vdirwait", "… of which vdirsyncer waited on the server (s)")]


def fmt(v, key):
    return "%.2f s" % v if key in ("puts", "vdirsyncer", "vdirwait") else "%.1f ms" % (v * 1000)


def print_table(results, month_n, rounds):
    others = [p for p in results if p != "nubo"]
    peers = [p for p in others if p != "nubo-before"]
    ab = "nubo-before" in results
    print("\nscenario groupware: %d events (10%% recurring), %d vCards; median of %d; month query: %d objects "
          "on nubo (Radicale: the same; see below for a peer that differs; — : the server has no such "
          "report)" % (N_EVENTS, N_CARDS, rounds, month_n))
    print("\n| row | nubo | %s |%s%s" % (" | ".join(others), " best peer / nubo |" if peers else "",
                                      " after / before |" if ab else ""))
    print("|---|---|" + "---|" * (len(others) + bool(peers) + ab))
    for key, label in ROWS:
        mine = results["nubo"][key]
        cells = [fmt(mine, key)] + [fmt(results[p][key], key) if key in results[p] else "—" for p in others]
        if peers:
            have = [results[p][key] for p in peers if key in results[p]]
            cells.append("%.1f×" % (min(have) / mine) if have and mine > 0 else "—")
        if ab:
            before = results["nubo-before"][key]
            cells.append("%.2f" % (mine / before) if before > 0 else "—")
        print("| %s | %s |" % (label, " | ".join(cells)))
    print("| peak RSS | %s |%s" % (" | ".join("%.0f MiB" % results[p]["rss"] for p in ["nubo"] + others),
                                   " |" * (bool(peers) + ab)))
