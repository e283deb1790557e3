import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  NS,
  collectionSlug,
  errorCondition,
  homePath,
  mkAddressBookBody,
  mkcalendarBody,
  normalizeColor,
  parseCollections,
  parseInvite,
  parseMultistatus,
  parseObjects,
  parseXml,
  proppatchApplied,
  proppatchBody,
  calendarQueryBody,
  shareBody,
  shareePrincipal,
  xmlEscape,
} from './dav';

// happy-dom (the test DOM) matches getElementsByTagNameNS against the
// qualified name ("d:response"), so prefixed elements are never found; the
// browsers follow the DOM standard (namespace URI and local name). The tests
// put the standard behaviour in for their documents.
type ByNS = (ns: string | null, local: string) => HTMLCollectionOf<Element>;
const patched: { owner: { getElementsByTagNameNS: ByNS }; original: ByNS }[] = [];
beforeAll(() => {
  function byNS(this: Element | Document, ns: string | null, local: string) {
    const found: Element[] = [];
    const walk = (n: Element | Document) => {
      for (const c of n.children) {
        if ((ns === '*' || c.namespaceURI === ns) && (local === '*' || c.localName === local)) found.push(c);
        walk(c);
      }
    };
    walk(this);
    return found as unknown as HTMLCollectionOf<Element>;
  }
  // The prototypes that define the method, for the documents DOMParser makes.
  const sample = new DOMParser().parseFromString('<a/>', 'application/xml');
  for (const start of [sample, sample.documentElement]) {
    let p: object | null = start;
    while (p && !Object.prototype.hasOwnProperty.call(p, 'getElementsByTagNameNS')) p = Object.getPrototypeOf(p);
    const owner = p as { getElementsByTagNameNS: ByNS } | null;
    if (owner && !patched.some((x) => x.owner === owner)) {
      patched.push({ owner, original: owner.getElementsByTagNameNS });
      owner.getElementsByTagNameNS = byNS as ByNS;
    }
  }
});
afterAll(() => {
  for (const { owner, original } of patched) owner.getElementsByTagNameNS = original;
});

// The server's answer to PROPFIND Depth 1 on a calendar home (shortened):
// the home first, its unknown properties in a 404 propstat.
const CALENDARS = `<?xml version="1.0" encoding="utf-8"?>
<d:multistatus xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/">
<d:response><d:href>/remote.php/dav/calendars/ann/</d:href>
 <d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
 <d:propstat><d:prop><d:displayname/><ns1:calendar-color xmlns:ns1="http://apple.com/ns/ical/"/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
</d:response>
<d:response><d:href>/remote.php/dav/calendars/ann/personal/</d:href>
 <d:propstat><d:prop><d:resourcetype><d:collection/><C:calendar/></d:resourcetype><d:displayname>Personal</d:displayname><C:calendar-description></C:calendar-description><cs:getctag>&quot;0&quot;</cs:getctag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
 <d:propstat><d:prop><ns1:calendar-color xmlns:ns1="http://apple.com/ns/ical/">#ff0000</ns1:calendar-color></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
</d:response>
<d:response><d:href>/remote.php/dav/calendars/ann/work%20stuff-k2/</d:href>
 <d:propstat><d:prop><d:resourcetype><d:collection/><C:calendar/></d:resourcetype><d:displayname>Work &amp; more</d:displayname><C:calendar-description>Office</C:calendar-description><ns1:calendar-color xmlns:ns1="http://apple.com/ns/ical/">#3366FFFF</ns1:calendar-color><cs:getctag>"7"</cs:getctag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
</d:response>
<d:response><d:href>/remote.php/dav/calendars/ann/inbox/</d:href>
 <d:propstat><d:prop><d:resourcetype><d:collection/><C:schedule-inbox/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
</d:response>
</d:multistatus>`;

describe('parseMultistatus', () => {
  it('reads each response’s href and the properties of its 2xx propstats only', () => {
    const rs = parseMultistatus(CALENDARS);
    expect(rs.map((r) => r.href)).toEqual([
      '/remote.php/dav/calendars/ann/',
      '/remote.php/dav/calendars/ann/personal/',
      '/remote.php/dav/calendars/ann/work%20stuff-k2/',
      '/remote.php/dav/calendars/ann/inbox/',
    ]);
    expect(rs[0].propStatuses).toEqual([200, 404]);
    expect(rs[0].props.map((p) => p.localName)).toEqual(['resourcetype']);
    expect(rs[1].props.map((p) => `${p.namespaceURI} ${p.localName}`)).toEqual([
      'DAV: resourcetype',
      'DAV: displayname',
      `${NS.caldav} calendar-description`,
      `${NS.cs} getctag`,
    ]);
  });

  it('goes by namespace, not by prefix', () => {
    const xml = `<multistatus xmlns="DAV:"><response><href>/a/</href><propstat><prop><displayname xmlns="urn:other">not DAV</displayname><x:displayname xmlns:x="DAV:">A</x:displayname></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>`;
    const [r] = parseMultistatus(xml);
    expect(r.props.filter((p) => p.namespaceURI === NS.dav).map((p) => p.textContent)).toEqual(['A']);
  });

  it('reads a response’s own status', () => {
    const [r] = parseMultistatus('<d:multistatus xmlns:d="DAV:"><d:response><d:href>/x</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response></d:multistatus>');
    expect(r.status).toBe(404);
    expect(r.props).toEqual([]);
  });

  it('throws on text that is not XML', () => {
    expect(() => parseXml('<d:multistatus xmlns:d="DAV:"><d:response>')).toThrow();
  });
});

describe('parseCollections', () => {
  it('lists the calendars: not the home, not other collections; colour from a 2xx propstat only', () => {
    const cals = parseCollections(CALENDARS, 'calendar');
    expect(cals).toEqual([
      {
        href: '/remote.php/dav/calendars/ann/personal/',
        slug: 'personal',
        displayName: 'Personal',
        description: '',
        color: null,
        ctag: '"0"',
        sharedBy: null,
        writable: true,
      },
      {
        href: '/remote.php/dav/calendars/ann/work%20stuff-k2/',
        slug: 'work stuff-k2',
        displayName: 'Work & more',
        description: 'Office',
        color: '#3366ff',
        ctag: '"7"',
        sharedBy: null,
        writable: true,
      },
    ]);
  });

  it('lists address books by their CardDAV resourcetype, a missing display name replaced by the slug', () => {
    const xml = `<d:multistatus xmlns:d="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav">
      <d:response><d:href>/remote.php/dav/addressbooks/users/ann/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
      <d:response><d:href>/remote.php/dav/addressbooks/users/ann/contacts/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><CR:addressbook/></d:resourcetype><d:displayname>Contacts</d:displayname></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
      <d:response><d:href>/remote.php/dav/addressbooks/users/ann/friends</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><CR:addressbook/></d:resourcetype></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
    </d:multistatus>`;
    expect(parseCollections(xml, 'addressbook').map((b) => [b.href, b.slug, b.displayName])).toEqual([
      ['/remote.php/dav/addressbooks/users/ann/contacts/', 'contacts', 'Contacts'],
      ['/remote.php/dav/addressbooks/users/ann/friends/', 'friends', 'friends'],
    ]);
    expect(parseCollections(xml, 'calendar')).toEqual([]);
  });
});

describe('sharing', () => {
  it('marks a collection shared with the user: whose it is, and read-only without a write privilege', () => {
    const xml = `<d:multistatus xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav" xmlns:oc="http://owncloud.org/ns">
      <d:response><d:href>/remote.php/dav/calendars/bob/family_shared_by_ann/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><C:calendar/></d:resourcetype>
        <oc:owner-principal>principals/users/ann</oc:owner-principal>
        <d:current-user-privilege-set><d:privilege><d:read/></d:privilege><d:privilege><C:read-free-busy/></d:privilege></d:current-user-privilege-set>
      </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
      <d:response><d:href>/remote.php/dav/calendars/bob/rota_shared_by_ann/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><C:calendar/></d:resourcetype>
        <oc:owner-principal>principals/users/ann</oc:owner-principal>
        <d:current-user-privilege-set><d:privilege><d:read/></d:privilege><d:privilege><d:write-content/></d:privilege></d:current-user-privilege-set>
      </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
      <d:response><d:href>/remote.php/dav/calendars/bob/personal/</d:href><d:propstat><d:prop><d:resourcetype><d:collection/><C:calendar/></d:resourcetype>
        <d:current-user-privilege-set><d:privilege><d:all/></d:privilege></d:current-user-privilege-set>
      </d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
    </d:multistatus>`;
    expect(parseCollections(xml, 'calendar').map((c) => [c.slug, c.sharedBy, c.writable])).toEqual([
      ['family_shared_by_ann', 'ann', false],
      ['rota_shared_by_ann', 'ann', true],
      ['personal', null, true],
    ]);
  });

  it('reads the sharees of oc:invite, users and groups with their access', () => {
    const xml = `<d:multistatus xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns"><d:response><d:href>/c/</d:href><d:propstat><d:prop><oc:invite>
      <oc:user><d:href>principal:principals/users/bob</d:href><oc:common-name>Bob B.</oc:common-name><oc:access><oc:read/></oc:access></oc:user>
      <oc:user><d:href>principal:principals/groups/Team%20A</d:href><oc:common-name>Team A</oc:common-name><oc:access><oc:read-write/></oc:access></oc:user>
      <oc:user><d:href>mailto:x@example.com</d:href></oc:user>
    </oc:invite></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>`;
    expect(parseInvite(xml)).toEqual([
      { principal: 'principal:principals/users/bob', name: 'bob', group: false, displayName: 'Bob B.', readWrite: false },
      { principal: 'principal:principals/groups/Team%20A', name: 'Team A', group: true, displayName: 'Team A', readWrite: true },
    ]);
  });

  it('builds oc:share bodies: read-write only when asked, removal, names escaped', () => {
    const set = parseXml(shareBody(shareePrincipal('Team & Co', true), { readWrite: false }));
    expect(set.getElementsByTagNameNS('http://owncloud.org/ns', 'set').length).toBe(1);
    expect(set.getElementsByTagNameNS('DAV:', 'href')[0].textContent).toBe('principal:principals/groups/Team%20%26%20Co');
    expect(set.getElementsByTagNameNS('http://owncloud.org/ns', 'read-write').length).toBe(0);
    const rw = parseXml(shareBody(shareePrincipal('bob'), { readWrite: true }));
    expect(rw.getElementsByTagNameNS('http://owncloud.org/ns', 'read-write').length).toBe(1);
    const rm = parseXml(shareBody(shareePrincipal('bob'), 'remove'));
    expect(rm.getElementsByTagNameNS('http://owncloud.org/ns', 'remove').length).toBe(1);
  });
});

describe('parseObjects', () => {
  it('reads calendar-data (character references resolved) with href and etag', () => {
    const xml = `<d:multistatus xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:response><d:href>/c/a.ics</d:href><d:propstat><d:prop><d:getetag>&quot;e1&quot;</d:getetag><C:calendar-data>BEGIN:VCALENDAR&#13;
SUMMARY:Tom &amp; Jerry&#13;
END:VCALENDAR&#13;
</C:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
<d:response><d:href>/c/gone.ics</d:href><d:propstat><d:prop><C:calendar-data/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response></d:multistatus>`;
    expect(parseObjects(xml, 'calendar')).toEqual([
      { href: '/c/a.ics', etag: '"e1"', data: 'BEGIN:VCALENDAR\r\nSUMMARY:Tom & Jerry\r\nEND:VCALENDAR\r\n' },
    ]);
    expect(parseObjects(xml, 'addressbook')).toEqual([]);
  });
});

describe('proppatchApplied and errorCondition', () => {
  it('is true only when every propstat is 2xx', () => {
    const ok = '<d:multistatus xmlns:d="DAV:"><d:response><d:href>/c/</d:href><d:propstat><d:prop><d:displayname/></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response></d:multistatus>';
    const partly = ok.replace('</d:propstat>', '</d:propstat><d:propstat><d:prop><x:y xmlns:x="urn:x"/></d:prop><d:status>HTTP/1.1 403 Forbidden</d:status></d:propstat>');
    expect(proppatchApplied(ok)).toBe(true);
    expect(proppatchApplied(partly)).toBe(false);
    expect(proppatchApplied('<d:multistatus xmlns:d="DAV:"/>')).toBe(false);
  });

  it('names the precondition of a DAV:error body', () => {
    const body = '<?xml version="1.0" encoding="utf-8"?>\n<d:error xmlns:d="DAV:"><ns1:valid-calendar-object-resource xmlns:ns1="urn:ietf:params:xml:ns:caldav"/></d:error>';
    expect(errorCondition(body)).toBe('valid-calendar-object-resource');
    expect(errorCondition('not xml <')).toBe('');
    expect(errorCondition('<error/>')).toBe('');
  });
});

describe('request bodies', () => {
  it('escape display names and are well-formed XML in the right namespaces', () => {
    const body = mkcalendarBody('Tom & <Jerry>', '#3366ff');
    const doc = new DOMParser().parseFromString(body, 'application/xml');
    expect(doc.documentElement.namespaceURI).toBe(NS.caldav);
    expect(doc.documentElement.localName).toBe('mkcalendar');
    const [name] = doc.getElementsByTagNameNS(NS.dav, 'displayname');
    expect(name.textContent).toBe('Tom & <Jerry>');
    expect(doc.getElementsByTagNameNS(NS.apple, 'calendar-color')[0].textContent).toBe('#3366ff');
    expect(proppatchBody('x')).not.toContain('calendar-color');
    const mkcol = new DOMParser().parseFromString(mkAddressBookBody('"Friends"'), 'application/xml');
    expect(mkcol.getElementsByTagNameNS(NS.carddav, 'addressbook')).toHaveLength(1);
    expect(xmlEscape(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&apos;&amp;&apos;&lt;/a&gt;');
  });

  it('ask for expanded events in a time range', () => {
    const doc = new DOMParser().parseFromString(calendarQueryBody('20260101T000000Z', '20260131T000000Z'), 'application/xml');
    const expand = doc.getElementsByTagNameNS(NS.caldav, 'expand')[0];
    expect([expand.getAttribute('start'), expand.getAttribute('end')]).toEqual(['20260101T000000Z', '20260131T000000Z']);
    expect(doc.getElementsByTagNameNS(NS.caldav, 'time-range')).toHaveLength(1);
  });
});

describe('names and paths', () => {
  it('makes URL-safe slugs with a suffix', () => {
    expect(collectionSlug('Work & Family Ünïcode!', 'abc123')).toBe('work-family-unicode-abc123');
    expect(collectionSlug('日本', 'abc123')).toBe('abc123');
    expect(collectionSlug('x'.repeat(60), 's')).toBe('x'.repeat(40) + '-s');
    expect(collectionSlug('Team')).toMatch(/^team-[a-z0-9]{6}$/);
  });

  it('builds the homes with the user name encoded', () => {
    expect(homePath('calendar', 'ann')).toBe('/remote.php/dav/calendars/ann/');
    expect(homePath('addressbook', 'a b')).toBe('/remote.php/dav/addressbooks/users/a%20b/');
  });

  it('normalizes colours', () => {
    expect(normalizeColor('#AABBCCFF')).toBe('#aabbcc');
    expect(normalizeColor('red')).toBeNull();
  });
});
