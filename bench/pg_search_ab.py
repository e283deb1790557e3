#!/usr/bin/env python3
"""Content search on PostgreSQL, BEFORE and AFTER a change, from one run.

Each build serves its own fresh database (of one durable PostgreSQL 15
started here) and data directory, seeded with the same --docs text files
(engines.py's documents: 200 words from a vocabulary of 400; "needle" in
every tenth), indexed, and a second user with the first 20 of them; then
searches for a rare word, a common word and a prefix, and the second
user's searches for the two words, alternate between the two servers (the
order flips every round).

Gate: both builds find the same documents for every query (names, all
pages), and their first pages are equal (order and snippets); the second
user finds only his own.

  NUBO_BENCH_BIN=AFTER python3 bench/pg_search_ab.py --before BEFORE [--docs 2000] [--reps 60]
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import engines  # noqa: E402  (starts nothing on import)
import pg_cluster  # noqa: E402

QUERIES = (("rare word", "needle"), ("common word", "w123"), ("prefix", "w12"))
BOB = ("bob", "bob-password-1234")
BOB_AUTH = {"Authorization": engines.httpc.basic(*BOB)}
BOB_DOCS = 20



def first_page(port, q):
    """(name, snippet segments) of the first page, in order."""
    c = engines.httpc.Conn(port)
    r = c.request("GET", "/api/v1/search/content?q=%s" % q, engines.DAVH)
    c.close()
    return [(i["node"]["name"], i.get("snippet")) for i in engines.json.loads(r.body)["items"]]


def serve(binary, docs, tmp, name):
    data = os.path.join(tmp, name, "data")
    os.makedirs(data)
    node = engines.Node(data, pg_cluster.fresh_database(), os.path.join(tmp, name), "node", binary)
    engines.setup_account(node.port)
    c = engines.httpc.Conn(node.port)
    c.request("MKCOL", "/dav/docs/", engines.DAVH)
    jobs = [(i, "/dav/docs/d%05d.txt" % i) for i in range(docs)]
    # One connection, in order: both databases give each document the
    # same id, so results of equal rank (ordered by id) come in the same
    # order from both (the gate compares first pages).
    errs = engines._doc_worker(([node.port], jobs))
    if errs:
        raise SystemExit("%s: uploads failed: %s" % (name, errs[:2]))
    # A second user with a few documents of his own (the first BOB_DOCS
    # texts): his searches must not pay for the first user's matches.
    body = engines.json.dumps({"username": BOB[0], "password": BOB[1]}).encode()
    r = c.request("POST", "/api/v1/admin/users", dict(engines.DAVH, **{"Content-Type": "application/json"}),
                  body=body)
    if r.status != 201:
        raise SystemExit("%s: creating bob answered %d" % (name, r.status))
    for i in range(BOB_DOCS):
        r = c.request("PUT", "/dav/bob%02d.txt" % i, BOB_AUTH, body=engines.doc_text(i))
        if r.status not in (201, 204):
            raise SystemExit("%s: bob's upload answered %d" % (name, r.status))
    c.close()
    engines.settle([node.port])
    return node


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True)
    ap.add_argument("--docs", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=60)
    args = ap.parse_args()
    after_bin = engines.NUBO
    tmp = tempfile.mkdtemp(prefix="nubo-search-ab-", dir="/var/tmp")
    nodes = []
    try:
        nodes = [serve(args.before, args.docs, tmp, "before"), serve(after_bin, args.docs, tmp, "after")]
        gate = []
        for _, q in QUERIES:
            found = [engines.search(n.port, q)[0] for n in nodes]
            if found[0] != found[1] or not found[0]:
                gate.append("%s: BEFORE found %d, AFTER %d" % (q, len(found[0]), len(found[1])))
            pages = [first_page(n.port, q) for n in nodes]
            if pages[0] != pages[1]:
                gate.append("%s: the first pages differ (names, order or snippets)" % q)
        rows = []
        for label, q in QUERIES:
            lat = ([], [])
            for r in range(args.reps):
                for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                    lat[k].append(engines.search(nodes[k].port, q, want_all=False)[1] * 1000)
            rows.append((label, q, statistics.median(lat[0]), statistics.median(lat[1])))
        for label, q in QUERIES[:2]:
            found = [engines.search(n.port, q, headers=BOB_AUTH)[0] for n in nodes]
            if found[0] != found[1] or not found[0] or any(not f.startswith("bob") for f in found[0]):
                gate.append("bob, %s: BEFORE found %s, AFTER %s" % (q, found[0], found[1]))
            lat = ([], [])
            for r in range(args.reps):
                for k in ((0, 1) if r % 2 == 0 else (1, 0)):
                    lat[k].append(engines.search(nodes[k].port, q, headers=BOB_AUTH)[1] * 1000)
            rows.append(("another user's " + label + " (%d docs of his own)" % BOB_DOCS, q,
                         statistics.median(lat[0]), statistics.median(lat[1])))
    finally:
        for n in nodes:
            n.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    print("\ncontent search on PostgreSQL, %d documents, first page (20 results with snippets), %d searches each"
          % (args.docs, args.reps))
    print("BEFORE %s\nAFTER  %s" % (args.before, after_bin))
    print("| query | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|")
    for label, q, b, a in rows:
        print("| %s (%s) | %.2f | %.2f | %.2f |" % (label, q, b, a, a / b))
    print("gate: the same documents and the same first page (order, snippets) from both builds for every "
          "query: %s" % ("passed" if not gate else gate))
    if gate:
        sys.exit(1)


if __name__ == "__main__":
    main()
