"""REST listings: the orders a folder's children must come in, a walk through
every page of one, and the timed listing of the files scenario and S5."""
import json
import time
import urllib.parse

from lib.api import API, ServerError, multipart_body
from lib.data import listing_specs


def natural_key(name):
    from lib import icu_order  # ctypes into libicu, loaded on first use
    return icu_order.natural_key(name)


LIST_SORTS = (
    # label, query, key of an item as the server must order it (natural: ICU root, numeric, secondary;
    # bench/lib/icu_order.py), reverse
    ("name asc", "", lambda n: natural_key(n["name"]), False),
    ("size asc", "&sort=size", lambda n: (n["size"], natural_key(n["name"])), False),
    ("modified desc", "&sort=modified&order=desc", lambda n: (n["modified"], natural_key(n["name"])), True),
)
# The order of builds before natural order (case-folded bytes), for listing-order-ab's BEFORE.
LIST_SORTS_CASEFOLD = (
    ("name asc", "", lambda n: n["name"].casefold(), False),
    ("size asc", "&sort=size", lambda n: (n["size"], n["name"].casefold()), False),
    ("modified desc", "&sort=modified&order=desc", lambda n: (n["modified"], n["name"].casefold()), True),
)
PAGE_LIMIT = 200


def walk_listing(api, folder, query, limit=PAGE_LIMIT):
    """Every item of a listing through its cursors, and the cursor of page 100."""
    items, cursor, page_no, far_cursor = [], None, 0, None
    while True:
        page = api.call("GET", "/nodes/%s/children?limit=%d%s%s" % (
            folder, limit, query, "&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
        page_no += 1
        if page_no == 100:
            far_cursor = cursor
        items += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return items, far_cursor


def files_listing(api, root, args, settle=None):
    """`settle`: called between creating the files and timing the listings
    (the suite waits there until the server's background jobs are done)."""
    n = args.list_entries
    folder = api.call("POST", "/nodes/%s/folders" % root, {"name": "listing"}, expect=201)["id"]
    specs = listing_specs(n, args.seed)
    want_size = {name: len(data) for name, data in specs}
    t0 = time.perf_counter()
    for i in range(0, n, 1000):
        batch = specs[i:i + 1000]
        ctype, body = multipart_body(batch)
        got = api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})["items"]
        if len(got) != len(batch):
            raise ServerError("multipart upload of %d files answered %d items" % (len(batch), len(got)))
        for (name, data), item in zip(batch, got):
            if item.get("status") != 201 or item["node"]["name"] != name or item["node"]["size"] != len(data):
                raise ServerError("multipart item for %r: %r" % (name, item))
    create_s = time.perf_counter() - t0
    if settle:
        settle()

    pages = max(1, -(-n // PAGE_LIMIT))
    far = min(100, pages)  # the "page 100" of the target, or the last page when there are fewer
    names = [name for name, _ in specs]
    results = {}
    for label, query, key, reverse in LIST_SORTS:
        base = "/nodes/%s/children?limit=%d%s" % (folder, PAGE_LIMIT, query)
        # Equivalence gate: one walk over all pages, every name once, in order.
        items, cursor, page_no, far_cursor, far_page = [], None, 0, None, None
        while True:
            page = api.call("GET", base + ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
            page_no += 1
            if page_no == far:
                far_cursor, far_page = cursor, [it["id"] for it in page["items"]]
            if page["next_cursor"] and len(page["items"]) != PAGE_LIMIT:
                raise ServerError("%s: page %d has %d items and a next cursor" % (label, page_no, len(page["items"])))
            items += page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                break
        got = [it["name"] for it in items]
        if len(got) != n or set(got) != set(names) or len(set(got)) != n:
            raise SystemExit("equivalence gate failed (%s): %d items, %d distinct, %d of %d created names" % (
                label, len(got), len(set(got)), len(set(got) & set(names)), n))
        if any(it["kind"] != "file" or it["size"] != want_size[it["name"]] for it in items):
            raise SystemExit("equivalence gate failed (%s): a kind or size differs from what was uploaded" % label)
        keys = [key(it) for it in items]
        if keys != sorted(keys, reverse=reverse):
            bad = next(i for i in range(1, len(keys)) if (keys[i] < keys[i - 1]) != reverse and keys[i] != keys[i - 1])
            raise SystemExit("equivalence gate failed (%s): out of order at %d: %r then %r" % (
                label, bad, keys[bad - 1], keys[bad]))
        if page_no != pages:
            raise SystemExit("equivalence gate failed (%s): %d pages, expected %d" % (label, page_no, pages))
        # Timing: page 1 and page `far` (its cursor reused), interleaved on this connection.
        paths = (base, base + ("&cursor=" + urllib.parse.quote(far_cursor, safe="") if far_cursor else ""))
        times = ([], [])
        conn = api.conn
        hdrs = {"Authorization": api.auth}
        for rep in range(args.list_reps):
            for which in (0, 1):
                t = time.perf_counter()
                r = conn.request("GET", API + paths[which], hdrs)
                times[which].append((time.perf_counter() - t) * 1000)
                closes = r.header("connection", "").lower() == "close"
                if r.status != 200 or closes:
                    raise ServerError("%s page %s answered %d (closes: %s): %r" % (
                        label, (1, far)[which], r.status, closes, r.body[:300]))
                if rep == 0:
                    ids = [it["id"] for it in json.loads(r.body)["items"]]
                    want = [it["id"] for it in items[:PAGE_LIMIT]] if which == 0 else far_page
                    if ids != want:
                        raise SystemExit("equivalence gate failed (%s): page %d differs from the walk's" % (
                            label, (1, far)[which]))
        results[label] = times
    return create_s, far, results
