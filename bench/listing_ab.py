"""listing-ab: BEFORE/AFTER of a REST listing change from one run (lib.ab):
page 1 and page 100 of a 20,000-file folder in three sorts."""
import urllib.parse

from lib.ab import AbPair, seed_folder
from lib.api import API
from lib.data import listing_specs
from lib.listing import LIST_SORTS, PAGE_LIMIT
from lib.stats import pct


def run(args):
    """BEFORE/AFTER of a REST listing change from one run (AbPair)."""
    pair = AbPair(args, lambda api, root: seed_folder(api, root, "listing", listing_specs(args.list_entries, args.seed)))
    rows = []
    try:
        folder, api = pair.seeded, pair.apis[0]
        for label, query, _, _ in LIST_SORTS:
            base = API + "/nodes/%s/children?limit=%d%s" % (folder, PAGE_LIMIT, query)
            cursor = None
            for _ in range(99):
                page = api.call("GET", base[len(API):] + ("&cursor=" + urllib.parse.quote(cursor, safe="") if cursor else ""))
                cursor = page["next_cursor"] or cursor
            for page_label, path in (("1", base), ("100", base + "&cursor=" + urllib.parse.quote(cursor, safe=""))):
                before, after = pair.alternate(args.list_reps, "GET", path, what="%s page %s" % (label, page_label))
                rows.append((label, page_label, pct(before, 50), pct(after, 50)))
    finally:
        pair.close()
    print("\nscenario listing-ab: %d entries, limit %d, %d reps alternating BEFORE (%s) and AFTER (%s) on one data "
          "dir; load before: %s" % (args.list_entries, PAGE_LIMIT, args.list_reps, pair.before_bin, pair.after_bin,
                                    args.load))
    print("| sort | page | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|---|")
    for label, page, before, after in rows:
        print("| %s | %s | %.3f | %.3f | %.2f |" % (label, page, before, after, after / before))
    print("gate: every response body byte-identical between BEFORE and AFTER")
