"""listing-order-ab: BEFORE/AFTER of a change to the listing order itself;
each build seeds its own data directory (lib.ab, separate)."""
import json
import urllib.parse

from lib.ab import AbPair, seed_folder
from lib.api import API
from lib.data import listing_specs
from lib.listing import LIST_SORTS, LIST_SORTS_CASEFOLD, PAGE_LIMIT, walk_listing
from lib.stats import pct


def run(args):
    """BEFORE/AFTER of a change to the listing order itself (natural order):
    each build seeds its own data directory with the same files, since the
    builds order (and page) differently. Gates: both walks hold the same
    (name, size) set; each build's order is its own rule's (BEFORE case-folded
    bytes, AFTER natural); every timed page is a full page."""
    specs = listing_specs(args.list_entries, args.seed)
    pair = AbPair(args, lambda api, root: seed_folder(api, root, "listing", specs), separate=True)
    rows = []
    try:
        for (label, query, key_after, rev), (_, _, key_before, _) in zip(LIST_SORTS, LIST_SORTS_CASEFOLD):
            walks = []
            for which, key in ((0, key_after), (1, key_before)):
                items, far = walk_listing(pair.apis[which], pair.seeded[which], query)
                keys = [key(it) for it in items]
                if keys != sorted(keys, reverse=rev):
                    raise SystemExit("equivalence gate failed (%s, %s): out of order" % (
                        label, "AFTER" if which == 0 else "BEFORE"))
                walks.append((items, far))
            sets = [{(it["name"], it["size"]) for it in items} for items, _ in walks]
            if sets[0] != sets[1] or len(sets[0]) != args.list_entries:
                raise SystemExit("equivalence gate failed (%s): the builds list different files" % label)

            def full_page(a, b):
                return all(len(json.loads(x)["items"]) == PAGE_LIMIT for x in (a, b))

            for page_label, which_cursor in (("1", None), ("100", 1)):
                paths = tuple(API + "/nodes/%s/children?limit=%d%s%s" % (
                    pair.seeded[w], PAGE_LIMIT, query,
                    "&cursor=" + urllib.parse.quote(walks[w][1], safe="") if which_cursor else "") for w in (0, 1))
                before, after = pair.alternate(args.list_reps, "GET", paths, what="%s page %s" % (label, page_label),
                                               same=full_page)
                rows.append((label, page_label, pct(before, 50), pct(after, 50)))
    finally:
        pair.close()
    print("\nscenario listing-order-ab: %d entries, limit %d, %d reps alternating BEFORE (%s) and AFTER (%s), each "
          "on its own data dir seeded alike; load before: %s" % (args.list_entries, PAGE_LIMIT, args.list_reps,
                                                                  pair.before_bin, pair.after_bin, args.load))
    print("| sort | page | BEFORE p50 ms | AFTER p50 ms | AFTER/BEFORE |")
    print("|---|---|---|---|---|")
    for label, page, before, after in rows:
        print("| %s | %s | %.3f | %.3f | %.2f |" % (label, page, before, after, after / before))
    print("| seeding (multipart, 1,000 files per request) | s | %.2f | %.2f | %.2f |" % (
        pair.seed_s[1], pair.seed_s[0], pair.seed_s[0] / pair.seed_s[1]))
    print("gate: same (name, size) set from both; BEFORE in case-folded order, AFTER in natural order "
          "(bench/icu_order.py); every timed answer a full page")
