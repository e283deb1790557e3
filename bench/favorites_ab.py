"""Scenario favorites-ab: the favorites REPORT (oc:filter-files), BEFORE/AFTER.

Both builds serve one data directory (AbPair: BEFORE seeds it, AFTER starts
on it): 200 folders of 5 small files each, one file per folder and every
fourth folder marked a favorite (250 favorites, two pages of the REPORT's
200). The REPORT the Nextcloud clients send for their favorites view
(the properties of a Nextcloud listing, filter oc:favorite = 1) on /dav/
and on /remote.php/dav/files/<user>/, alternating between the builds
request by request. Printed per request: p50 and p95 in ms per build and
AFTER/BEFORE.
Gate: every answer 207 and byte-identical between the builds (AbPair), and
it lists all 250 favorites.
"""
from lib.ab import AbPair, print_ab_table
from lib.api import ADMIN, multipart_body

FOLDERS, FILES = 200, 5
REPORT = (b'<?xml version="1.0" encoding="UTF-8"?><oc:filter-files xmlns:d="DAV:" '
          b'xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns"><d:prop><d:getlastmodified/>'
          b'<d:getetag/><d:getcontenttype/><d:resourcetype/><oc:fileid/><oc:permissions/><oc:size/>'
          b'<d:getcontentlength/><nc:has-preview/><oc:favorite/><oc:owner-display-name/><oc:share-types/>'
          b'</d:prop><oc:filter-rules><oc:favorite>1</oc:favorite></oc:filter-rules></oc:filter-files>')


def seed(api, root):
    top = api.call("POST", "/nodes/%s/folders" % root, {"name": "fav"}, expect=201)["id"]
    for d in range(FOLDERS):
        folder = api.call("POST", "/nodes/%s/folders" % top, {"name": "d%03d" % d}, expect=201)["id"]
        ctype, body = multipart_body([("f%d-%03d.txt" % (i, d), b"file %d of %d\n" % (i, d)) for i in range(FILES)])
        api.call("POST", "/nodes/%s/upload" % folder, body, {"Content-Type": ctype})
        first = api.call("GET", "/nodes/%s/children?limit=1" % folder)["items"][0]["id"]
        api.call("PUT", "/favorites/%s" % first, expect=204)
        if d % 4 == 0:
            api.call("PUT", "/favorites/%s" % folder, expect=204)
    return top


def run(args):
    pair = AbPair(args, seed)
    want = FOLDERS + FOLDERS // 4
    rows = []
    try:
        for label, path in (("REPORT oc:filter-files /dav/", "/dav/"),
                            ("REPORT oc:filter-files /remote.php/dav/files/<user>/",
                             "/remote.php/dav/files/%s/" % ADMIN[0])):
            reps = args.list_reps
            before, after = pair.alternate(reps, "REPORT", path, body=REPORT,
                                           headers={"Content-Type": "application/xml", "Depth": "0"},
                                           expect=207, what=label)
            r = pair.apis[0].conn.request("REPORT", path, {"Authorization": pair.apis[0].auth,
                                                           "Content-Type": "application/xml"}, REPORT)
            listed = r.body.count(b"<d:response>")
            if listed != want:
                raise SystemExit("gate failed: %s listed %d favorites, expected %d" % (label, listed, want))
            rows.append((label, reps, before, after))
    finally:
        pair.close()
    print("\nscenario favorites-ab: %d favorites in %d folders, BEFORE (%s) and AFTER (%s) on one data dir, "
          "alternating; load before: %s" % (want, FOLDERS, pair.before_bin, pair.after_bin, args.load))
    print_ab_table(rows)
    print("gate: every answer 207 and byte-identical between the builds, %d favorites listed: passed" % want)
