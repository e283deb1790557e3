"""REST listings: the orders a folder's children must come in, and a walk
through every page of one."""
import urllib.parse


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
