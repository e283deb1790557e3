// Calendars and address books over CalDAV/CardDAV (/remote.php/dav/), with
// the browser session: the same cookies as the REST API, and X-CSRF-Token on
// every request that is not GET or HEAD (PROPFIND and REPORT included, the
// server asks for it). Like the REST client, a stale access cookie is
// refreshed first (an unauthenticated request meets a Basic challenge) and a
// 401 gets one refresh and one retry. Answers are read by lib/dav.ts.
import { ApiError } from '../api/client';
import type { GroupwareApi } from '../state/groupware.svelte';
import { api, accessExpiresAt, onSessionExpired } from './api';
import {
  addressBookQueryBody,
  calendarQueryBody,
  collectionSlug,
  errorCondition,
  homePath,
  mkAddressBookBody,
  mkcalendarBody,
  parseCollections,
  parseObjects,
  parseInvite,
  propfindCollectionsBody,
  propfindInviteBody,
  shareBody,
  proppatchApplied,
  proppatchBody,
  type Collection,
  type CollectionKind,
  type ImportObject,
  type PutOutcome,
  type Sharee,
} from '../dav';
import { icsUtc, readEvents, type CalEvent } from '../ical';
import { readCard, type Contact } from '../vcard';
import type { Node, PathEntry } from '../api/schema.gen';
import { getNode, listChildren } from './files';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);
const XML = 'application/xml; charset=utf-8';

interface DavRequest {
  body?: string;
  depth?: '0' | '1';
  headers?: Record<string, string>;
}

export const groupwareApi: GroupwareApi = {
  list: listCollections,
  create: createCollection,
  update: updateCollection,
  remove: deleteCollection,
  put: putObject,
  shares: listShares,
  share: shareCollection,
};

async function send(method: string, url: string, req: DavRequest = {}): Promise<Response> {
  if (api.hasSession() && accessExpiresAt() < Date.now() + 5000) await api.refresh();
  const attempt = () => {
    const headers: Record<string, string> = { ...(req.headers ?? {}) };
    if (req.body !== undefined && !headers['Content-Type']) headers['Content-Type'] = XML;
    if (req.depth) headers.Depth = req.depth;
    if (!SAFE.has(method)) Object.assign(headers, api.unsafeHeaders());
    return fetch(url, { method, headers, body: req.body, credentials: 'same-origin' });
  };
  let res = await attempt();
  if (res.status === 401) {
    if (await api.refresh()) res = await attempt();
    else onSessionExpired();
  }
  return res;
}

/**
 * The DAV:error condition of a refusal, when its body is XML. Other bodies
 * (a 412 is plain text) are not parsed: a browser's "this is not XML"
 * document carries inline styles, which the page's CSP refuses.
 */
async function conditionOf(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  return /[/+]xml\b/i.test(res.headers.get('Content-Type') ?? '') ? errorCondition(text) : '';
}

/** An error for a refused DAV request, readable by the error funnel. */
async function davError(res: Response): Promise<ApiError> {
  const reason = res.headers.get('X-Nubo-Reason');
  const condition = await conditionOf(res);
  return new ApiError(res.status, condition || `http_${res.status}`, reason || res.statusText || `HTTP ${res.status}`);
}

async function textIf(res: Response, ok: number[]): Promise<string> {
  if (!ok.includes(res.status)) throw await davError(res);
  return res.text();
}

export async function listCollections(kind: CollectionKind, user: string): Promise<Collection[]> {
  const res = await send('PROPFIND', homePath(kind, user), { body: propfindCollectionsBody(kind), depth: '1' });
  return parseCollections(await textIf(res, [207]), kind);
}

/**
 * Makes a calendar or an address book named after `displayName` (a slug plus
 * a random suffix; a taken one, 405, gets another suffix once). Resolves to
 * the new collection's path.
 */
export async function createCollection(
  kind: CollectionKind,
  user: string,
  displayName: string,
  color?: string | null,
): Promise<string> {
  for (let tries = 0; ; tries++) {
    const href = homePath(kind, user) + collectionSlug(displayName) + '/';
    const res =
      kind === 'calendar'
        ? await send('MKCALENDAR', href, { body: mkcalendarBody(displayName, color) })
        : await send('MKCOL', href, { body: mkAddressBookBody(displayName) });
    if (res.status === 201) return href;
    if (res.status !== 405 || tries > 0) throw await davError(res);
  }
}

/** Renames a collection (and for calendars sets its colour). */
export async function updateCollection(href: string, displayName: string, color?: string | null): Promise<void> {
  const text = await textIf(await send('PROPPATCH', href, { body: proppatchBody(displayName, color) }), [207]);
  if (!proppatchApplied(text)) throw new ApiError(403, 'proppatch', 'the server did not apply the change');
}

/** Who an own calendar or address book is shared with (oc:invite). */
export async function listShares(href: string): Promise<Sharee[]> {
  return parseInvite(await textIf(await send('PROPFIND', href, { body: propfindInviteBody, depth: '0' }), [207]));
}

/** Shares a collection (POST of an oc:share body); readWrite null ends the share. */
export async function shareCollection(href: string, principal: string, readWrite: boolean | null): Promise<void> {
  const op = readWrite === null ? 'remove' : { readWrite };
  await textIf(await send('POST', href, { body: shareBody(principal, op) }), [200, 204]);
}

export async function deleteCollection(href: string): Promise<void> {
  await textIf(await send('DELETE', href), [200, 204]);
}

/** One object into a collection, never over an existing one (If-None-Match: *). */
export async function putObject(kind: CollectionKind, collection: string, o: ImportObject): Promise<PutOutcome> {
  const res = await send('PUT', collection + encodeURIComponent(o.name), {
    body: o.body,
    headers: {
      'Content-Type': kind === 'calendar' ? 'text/calendar; charset=utf-8' : 'text/vcard; charset=utf-8',
      'If-None-Match': '*',
    },
  });
  if (res.status === 401) throw await davError(res);
  if (res.ok) {
    await res.arrayBuffer().catch(() => null);
    return { status: res.status, reason: '' };
  }
  const condition = await conditionOf(res);
  return { status: res.status, reason: res.headers.get('X-Nubo-Reason') || condition || res.statusText };
}

/** The event instances of a calendar between two moments (recurrences expanded by the server). */
export async function listEvents(href: string, start: Date, end: Date): Promise<CalEvent[]> {
  const res = await send('REPORT', href, { body: calendarQueryBody(icsUtc(start), icsUtc(end)), depth: '1' });
  return parseObjects(await textIf(res, [207]), 'calendar').flatMap((o) => readEvents(o.data));
}

/** The contacts of an address book, with the resource each came from. */
export async function listContacts(href: string): Promise<(Contact & { href: string })[]> {
  const res = await send('REPORT', href, { body: addressBookQueryBody(), depth: '1' });
  return parseObjects(await textIf(res, [207]), 'addressbook').map((o) => ({ ...readCard(o.data), href: o.href }));
}

const MAX_IMPORT_BYTES = 32 * 1024 * 1024;

/** The text of a file in the user's drive (an .ics or .vcf to import). */
export async function driveFileText(file: Node): Promise<string> {
  if (file.size > MAX_IMPORT_BYTES) throw new ApiError(413, 'too_large', file.name);
  const res = await api.raw('GET /api/v1/nodes/{id}/content', { path: { id: file.id } });
  return res.text();
}

/** A folder of the drive for the import file picker: its subfolders and its files. */
export async function driveLevel(id: string): Promise<{ id: string; name: string; path: PathEntry[]; folders: Node[]; files: Node[] }> {
  const node = await getNode(id);
  const folders: Node[] = [];
  const plain: Node[] = [];
  let cursor: string | null = null;
  do {
    const page = await listChildren(id, 'name', 'asc', cursor);
    for (const n of page.items) (n.kind === 'folder' ? folders : plain).push(n);
    cursor = page.next_cursor;
  } while (cursor && folders.length + plain.length < 5000);
  return { id: node.id, name: node.name, path: node.path, folders, files: plain };
}
