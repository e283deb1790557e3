// CalDAV and CardDAV without side effects: the request bodies the Calendars
// and Contacts pages send, the 207 multistatus answers read with DOMParser
// and namespace-aware lookups (never patterns over XML), the collections'
// URLs and the names of new ones. The requests themselves are in
// services/dav.ts. Unit-tested in dav.test.ts.
import { resourceName, splitCalendar, uuid } from './ical';
import { cardUid, splitCards, withFn, withUid } from './vcard';

export const NS = {
  dav: 'DAV:',
  caldav: 'urn:ietf:params:xml:ns:caldav',
  carddav: 'urn:ietf:params:xml:ns:carddav',
  apple: 'http://apple.com/ns/ical/',
  cs: 'http://calendarserver.org/ns/',
  oc: 'http://owncloud.org/ns',
} as const;

export const DAV_ROOT = '/remote.php/dav/';

export type CollectionKind = 'calendar' | 'addressbook';

/** The home of a user's calendars or address books (a path ending in "/"). */
export function homePath(kind: CollectionKind, user: string): string {
  return kind === 'calendar'
    ? `${DAV_ROOT}calendars/${encodeURIComponent(user)}/`
    : `${DAV_ROOT}addressbooks/users/${encodeURIComponent(user)}/`;
}

/** Text for XML character data and attribute values. */
export function xmlEscape(s: string): string {
  return s.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

const HEADER = '<?xml version="1.0" encoding="utf-8"?>\n';

export function propfindCollectionsBody(kind: CollectionKind): string {
  return kind === 'calendar'
    ? HEADER +
        `<d:propfind xmlns:d="${NS.dav}" xmlns:C="${NS.caldav}" xmlns:A="${NS.apple}" xmlns:cs="${NS.cs}" xmlns:oc="${NS.oc}"><d:prop>` +
        '<d:resourcetype/><d:displayname/><C:calendar-description/><A:calendar-color/><cs:getctag/>' +
        '<oc:owner-principal/><d:current-user-privilege-set/></d:prop></d:propfind>'
    : HEADER +
        `<d:propfind xmlns:d="${NS.dav}" xmlns:CR="${NS.carddav}" xmlns:cs="${NS.cs}" xmlns:oc="${NS.oc}"><d:prop>` +
        '<d:resourcetype/><d:displayname/><CR:addressbook-description/><cs:getctag/>' +
        '<oc:owner-principal/><d:current-user-privilege-set/></d:prop></d:propfind>';
}

/** PROPFIND of one collection's sharees (oc:invite). */
export const propfindInviteBody = HEADER + `<d:propfind xmlns:d="${NS.dav}" xmlns:oc="${NS.oc}"><d:prop><oc:invite/></d:prop></d:propfind>`;

/** A user or group of this server as Nextcloud's sharing names it. */
export function shareePrincipal(name: string, group = false): string {
  return `principal:principals/${group ? 'groups' : 'users'}/${encodeURIComponent(name)}`;
}

/** POST body sharing a collection with `principal` (read-only unless `readWrite`), or ending that. */
export function shareBody(principal: string, op: { readWrite: boolean } | 'remove'): string {
  const href = `<d:href>${xmlEscape(principal)}</d:href>`;
  const inner = op === 'remove' ? `<o:remove>${href}</o:remove>` : `<o:set>${href}${op.readWrite ? '<o:read-write/>' : ''}</o:set>`;
  return HEADER + `<o:share xmlns:d="${NS.dav}" xmlns:o="${NS.oc}">${inner}</o:share>`;
}

export interface Sharee {
  /** the principal URI the server gave ("principal:principals/users/bob") */
  principal: string;
  /** the user or group name */
  name: string;
  group: boolean;
  displayName: string;
  readWrite: boolean;
}

/** The sharees of an oc:invite answer. */
export function parseInvite(xml: string): Sharee[] {
  const out: Sharee[] = [];
  const r = parseMultistatus(xml)[0];
  const invite = r ? prop(r, NS.oc, 'invite') : null;
  if (!invite) return out;
  for (const u of Array.from(invite.getElementsByTagNameNS(NS.oc, 'user'))) {
    const principal = u.getElementsByTagNameNS(NS.dav, 'href')[0]?.textContent?.trim() ?? '';
    const m = /^principal:principals\/(users|groups)\/(.+)$/.exec(principal);
    if (!m) continue;
    let name = m[2];
    try {
      name = decodeURIComponent(name);
    } catch {
      /* keep it as sent */
    }
    out.push({
      principal,
      name,
      group: m[1] === 'groups',
      displayName: u.getElementsByTagNameNS(NS.oc, 'common-name')[0]?.textContent?.trim() || name,
      readWrite: u.getElementsByTagNameNS(NS.oc, 'read-write').length > 0,
    });
  }
  return out;
}

function propsXml(displayName: string, color?: string | null): string {
  return (
    `<d:displayname>${xmlEscape(displayName)}</d:displayname>` +
    (color ? `<A:calendar-color>${xmlEscape(color)}</A:calendar-color>` : '')
  );
}

export function mkcalendarBody(displayName: string, color?: string | null): string {
  return (
    HEADER +
    `<C:mkcalendar xmlns:d="${NS.dav}" xmlns:C="${NS.caldav}" xmlns:A="${NS.apple}"><d:set><d:prop>` +
    propsXml(displayName, color) +
    '</d:prop></d:set></C:mkcalendar>'
  );
}

export function mkAddressBookBody(displayName: string): string {
  return (
    HEADER +
    `<d:mkcol xmlns:d="${NS.dav}" xmlns:CR="${NS.carddav}"><d:set><d:prop>` +
    `<d:resourcetype><d:collection/><CR:addressbook/></d:resourcetype>` +
    `<d:displayname>${xmlEscape(displayName)}</d:displayname>` +
    '</d:prop></d:set></d:mkcol>'
  );
}

/** PROPPATCH: a new display name, and for calendars a colour. */
export function proppatchBody(displayName: string, color?: string | null): string {
  return (
    HEADER +
    `<d:propertyupdate xmlns:d="${NS.dav}" xmlns:A="${NS.apple}"><d:set><d:prop>` +
    propsXml(displayName, color) +
    '</d:prop></d:set></d:propertyupdate>'
  );
}

/** The events between two UTC times ("20260105T000000Z"), recurrences expanded into instances. */
export function calendarQueryBody(start: string, end: string): string {
  return (
    HEADER +
    `<C:calendar-query xmlns:d="${NS.dav}" xmlns:C="${NS.caldav}"><d:prop><d:getetag/>` +
    `<C:calendar-data><C:expand start="${start}" end="${end}"/></C:calendar-data></d:prop>` +
    `<C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">` +
    `<C:time-range start="${start}" end="${end}"/></C:comp-filter></C:comp-filter></C:filter></C:calendar-query>`
  );
}

export function addressBookQueryBody(): string {
  return (
    HEADER +
    `<CR:addressbook-query xmlns:d="${NS.dav}" xmlns:CR="${NS.carddav}"><d:prop><d:getetag/>` +
    '<CR:address-data/></d:prop></CR:addressbook-query>'
  );
}

/** One <d:response>: its href, and the properties its propstats answered with a 2xx status. */
export interface DavResponse {
  href: string;
  /** the response's own status (responses without propstat), else null */
  status: number | null;
  /** properties found (2xx propstats) */
  props: Element[];
  /** statuses of all propstats, in order */
  propStatuses: number[];
}

function statusCode(el: Element | null | undefined): number | null {
  const m = /^\s*HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(el?.textContent ?? '');
  return m ? Number(m[1]) : null;
}

function childrenNS(el: Element, ns: string, local: string): Element[] {
  return [...el.children].filter((c) => c.namespaceURI === ns && c.localName === local);
}

/** Parses an XML document; throws on text that is not XML. */
export function parseXml(xml: string): Document {
  const doc = new DOMParser().parseFromString(xml, 'application/xml');
  if (!doc.documentElement || doc.getElementsByTagName('parsererror').length > 0) {
    throw new Error('the server answered with XML that could not be read');
  }
  return doc;
}

/** The responses of a 207 multistatus answer. */
export function parseMultistatus(xml: string): DavResponse[] {
  const doc = parseXml(xml);
  const out: DavResponse[] = [];
  for (const r of doc.getElementsByTagNameNS(NS.dav, 'response')) {
    const href = r.getElementsByTagNameNS(NS.dav, 'href')[0]?.textContent?.trim() ?? '';
    const props: Element[] = [];
    const propStatuses: number[] = [];
    for (const ps of childrenNS(r, NS.dav, 'propstat')) {
      const code = statusCode(childrenNS(ps, NS.dav, 'status')[0]) ?? 0;
      propStatuses.push(code);
      if (code < 200 || code > 299) continue;
      for (const prop of childrenNS(ps, NS.dav, 'prop')) props.push(...prop.children);
    }
    out.push({ href, status: statusCode(childrenNS(r, NS.dav, 'status')[0]), props, propStatuses });
  }
  return out;
}

/** A property of a response (2xx only), by namespace and local name. */
export function prop(r: DavResponse, ns: string, local: string): Element | null {
  return r.props.find((p) => p.namespaceURI === ns && p.localName === local) ?? null;
}

export function propText(r: DavResponse, ns: string, local: string): string {
  return prop(r, ns, local)?.textContent?.trim() ?? '';
}

export interface Collection {
  /** the collection's path as the server names it (ends in "/") */
  href: string;
  /** the last path segment, decoded ("personal") */
  slug: string;
  displayName: string;
  description: string;
  /** "#rrggbb" (the alpha of "#rrggbbaa" dropped), or null */
  color: string | null;
  ctag: string;
  /** a collection someone shared with the user: the owner's username (else null) */
  sharedBy: string | null;
  /** whether the user may add and change what is in it */
  writable: boolean;
}

/** "#3366ffff" → "#3366ff"; anything else not a hex colour → null. */
export function normalizeColor(c: string): string | null {
  const m = /^#([0-9a-f]{6})(?:[0-9a-f]{2})?$/i.exec(c.trim());
  return m ? `#${m[1].toLowerCase()}` : null;
}

/** The last segment of a collection's href, decoded. */
export function slugOf(href: string): string {
  const parts = href.replace(/\/+$/, '').split('/');
  const last = parts[parts.length - 1] ?? '';
  try {
    return decodeURIComponent(last);
  } catch {
    return last;
  }
}

/**
 * The calendars (or address books) of a PROPFIND Depth 1 on the home: the
 * responses whose resourcetype names one. The home itself and anything else
 * (a schedule inbox, …) are left out.
 */
export function parseCollections(xml: string, kind: CollectionKind): Collection[] {
  const [ns, local] = kind === 'calendar' ? [NS.caldav, 'calendar'] : [NS.carddav, 'addressbook'];
  const out: Collection[] = [];
  for (const r of parseMultistatus(xml)) {
    const type = prop(r, NS.dav, 'resourcetype');
    if (!type || type.getElementsByTagNameNS(ns, local).length === 0) continue;
    const slug = slugOf(r.href);
    out.push({
      href: r.href.endsWith('/') ? r.href : r.href + '/',
      slug,
      displayName: propText(r, NS.dav, 'displayname') || slug,
      description:
        kind === 'calendar'
          ? propText(r, NS.caldav, 'calendar-description')
          : propText(r, NS.carddav, 'addressbook-description'),
      color: kind === 'calendar' ? normalizeColor(propText(r, NS.apple, 'calendar-color')) : null,
      ctag: propText(r, NS.cs, 'getctag'),
      sharedBy: propText(r, NS.oc, 'owner-principal').replace(/^principals\/users\//, '') || null,
      writable: writableOf(prop(r, NS.dav, 'current-user-privilege-set')),
    });
  }
  return out;
}

/** Whether a current-user-privilege-set lets the user write the collection's contents (absent: assumed). */
function writableOf(set: Element | null): boolean {
  if (!set) return true;
  for (const p of Array.from(set.getElementsByTagNameNS(NS.dav, 'privilege'))) {
    const name = p.firstElementChild?.localName;
    if (p.firstElementChild?.namespaceURI === NS.dav && (name === 'all' || name === 'write' || name === 'write-content')) return true;
  }
  return false;
}

/** The object data (calendar-data or address-data) of a REPORT answer, by href. */
export function parseObjects(xml: string, kind: CollectionKind): { href: string; etag: string; data: string }[] {
  const [ns, local] = kind === 'calendar' ? [NS.caldav, 'calendar-data'] : [NS.carddav, 'address-data'];
  const out: { href: string; etag: string; data: string }[] = [];
  for (const r of parseMultistatus(xml)) {
    const data = prop(r, ns, local)?.textContent;
    if (data) out.push({ href: r.href, etag: propText(r, NS.dav, 'getetag'), data });
  }
  return out;
}

/** Whether a PROPPATCH answer applied everything (every propstat 2xx, at least one). */
export function proppatchApplied(xml: string): boolean {
  const rs = parseMultistatus(xml);
  return rs.length > 0 && rs.every((r) => r.propStatuses.length > 0 && r.propStatuses.every((s) => s >= 200 && s < 300));
}

/** The `DAV:error` condition of an error body ("valid-calendar-object-resource"), or ''. */
export function errorCondition(xml: string): string {
  try {
    const doc = parseXml(xml);
    const root = doc.documentElement;
    if (root.namespaceURI !== NS.dav || root.localName !== 'error') return '';
    return root.firstElementChild?.localName ?? '';
  } catch {
    return '';
  }
}

/** A short random suffix for collection names ([a-z0-9]). */
export function randomSuffix(length = 6): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const b = crypto.getRandomValues(new Uint8Array(length));
  return [...b].map((x) => alphabet[x % alphabet.length]).join('');
}

/**
 * A URL-safe name for a new collection from its display name: lower-case
 * letters, digits and dashes (accents dropped), at most 40, then a random
 * suffix so two "Work" calendars never collide ("work-k3x9q2").
 */
export function collectionSlug(displayName: string, suffix = randomSuffix()): string {
  const base = displayName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return base ? `${base}-${suffix}` : suffix;
}

/** One object to PUT into a collection on import. */
export interface ImportObject {
  /** the resource name ("<uid>.ics") */
  name: string;
  body: string;
}

/**
 * The objects of an imported file: an .ics split into one calendar per UID,
 * a .vcf into its cards (a card without UID gets a new one, one without FN
 * one made from N: the server refuses cards without). `newId` makes UIDs and
 * names for objects without.
 */
export function importObjects(kind: CollectionKind, text: string, newId: () => string = uuid): ImportObject[] {
  if (kind === 'calendar') {
    return splitCalendar(text).map((o) => ({ name: resourceName(o.uid, 'ics', newId), body: o.text }));
  }
  return splitCards(text).map((card) => {
    const body = withUid(withFn(card), newId());
    return { name: resourceName(cardUid(body), 'vcf', newId), body };
  });
}

/** What the server said to one PUT. */
export interface PutOutcome {
  status: number;
  /** why it was refused (X-Nubo-Reason, else the DAV:error condition, else the status text) */
  reason: string;
}

export interface ImportSummary {
  /** objects found in the file */
  total: number;
  created: number;
  /** already there (412: If-None-Match: * found the name taken) */
  skipped: number;
  refused: number;
  /** the first refusal's reason ('' when none) */
  reason: string;
}

/** PUTs the objects, `concurrency` at a time, and counts what happened. A thrown error stops the import. */
export async function runImport(
  objects: ImportObject[],
  put: (o: ImportObject) => Promise<PutOutcome>,
  concurrency = 4,
): Promise<ImportSummary> {
  const sum: ImportSummary = { total: objects.length, created: 0, skipped: 0, refused: 0, reason: '' };
  const reasons: string[] = new Array(objects.length).fill('');
  let next = 0;
  const worker = async () => {
    while (next < objects.length) {
      const i = next++;
      const r = await put(objects[i]);
      if (r.status >= 200 && r.status < 300) sum.created++;
      else if (r.status === 412) sum.skipped++;
      else {
        sum.refused++;
        reasons[i] = r.reason || `HTTP ${r.status}`;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, objects.length) }, worker));
  sum.reason = reasons.find(Boolean) ?? '';
  return sum;
}
