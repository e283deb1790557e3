"""listing-ab: BEFORE/AFTER of a REST listing change from one run (lib.ab):
page 1 and page 100 of a 20,000-file folder in three sorts."""
import json
import urllib.parse

from lib.ab import AbPair, seed_folder
from lib.api import API
from lib.data import listing_specs
from lib.listing import LIST_SORTS, PAGE_LIMIT
from lib.stats import pct


def run(args):
    """BEFORE/AFTER of a REST listing change from one run (AbPair)."""
    # --separate: each build its own data directory (a change of the schema);
    # the gate then compares each page's names and sizes, in order, where
    # the order does not depend on when a file was uploaded (name, size),
    # and the page's length by modification time.
    pair = AbPair(args, lambda api, root: seed_folder(api, root, "listing", listing_specs(args.list_entries, args.seed)),
                  separate=args.separate)

    def gate(label):
        if not args.separate:
            return None

        def names(body):
            items = json.loads(body)["items"]
            return len(items) if label.startswith("modified") else [(n["name"], n.get("size")) for n in items]
        return lambda a, b: names(a) == names(b)
    rows = []
    try:
        # [AFTER, BEFORE]'s folder: one, or one each with --separate.
        folders = pair.seeded if args.separate else [pair.seeded, pair.seeded]
        for label, query, _, _ in LIST_SORTS:
            paths = {}
            for which in (0, 1):
                base = API + "/nodes/%s/children?limit=%d%s" % (folders[which], PAGE_LIMIT, query)
                cursor = None
                for _ in range(99):
                    page = pair.apis[which].call(
                        "GET", base[len(API):] + ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
                    cursor = page["next_cursor"] or cursor
                paths[which] = (base, base + "&cursor=" + urllib.parse.quote(cursor, safe=""))
            for k, page_label in ((0, "1"), (1, "100")):
                before, after = pair.alternate(args.list_reps, "GET", (paths[0][k], paths[1][k]),
                                               what="%s page %s" % (label, page_label), same=gate(label))
                rows.append((label, page_label, pct(before, 50), pct(after, 50)))
    finally:
        pair.close()
    print("\nscenario listing-ab: %d entries, limit %d, %d reps alternating BEFORE (%s) and AFTER (%s) on %s; "
          "load before: %s" % (args.list_entries, PAGE_LIMIT, args.list_reps, pair.before_bin, pair.after_bin,
                               "a data dir each" if args.separate else "one data dir", args.load))
    print("| sort | page | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|---|")
    for label, page, before, after in rows:
        print("| %s | %s | %.3f | %.3f | %.2f |" % (label, page, before, after, after / before))
    print("gate: %s" % ("each build's own data (--separate): every page by name or size the same names and sizes "
                        "in the same order, by time the same length"
                        if args.separate else "every response body byte-identical between BEFORE and AFTER"))
