import { describe, it, expect, vi, beforeEach } from 'vitest';
import { DavCollections, importMessage, sortCollections, type GroupwareApi } from './groupware.svelte';
import { toasts } from './toasts.svelte';
import { ApiError } from '../api/client';
import { importObjects, runImport, type Collection, type ImportObject, type Sharee } from '../dav';

const col = (slug: string, displayName: string, color: string | null = null): Collection => ({
  href: `/remote.php/dav/calendars/ann/${slug}/`,
  slug,
  displayName,
  description: '',
  color,
  ctag: '',
  sharedBy: null,
  writable: true,
});

function fakeApi(existing: string[] = []) {
  const db: Collection[] = [col('zeta-1', 'Zeta'), col('personal', 'Personal'), col('alpha-1', 'Alpha')];
  const stored = new Map<string, string>(existing.map((n) => [n, '']));
  const api = {
    list: vi.fn(async () => structuredClone(db)),
    create: vi.fn(async (_k, _u, name: string, color?: string | null) => {
      db.push(col('new-1', name, color ?? null));
      return db[db.length - 1].href;
    }),
    update: vi.fn(async () => undefined),
    remove: vi.fn(async (href: string) => {
      if (href.includes('personal')) throw new ApiError(403, 'forbidden', 'no');
    }),
    put: vi.fn(async (_k, _c, o: ImportObject) => {
      if (!/^UID:/m.test(o.body)) return { status: 403, reason: 'component without UID' };
      if (stored.has(o.name)) return { status: 412, reason: '' };
      stored.set(o.name, o.body);
      return { status: 201, reason: '' };
    }),
    shares: vi.fn(async () => [] as Sharee[]),
    share: vi.fn(async () => undefined),
  } satisfies GroupwareApi;
  return { api, stored };
}

const ics = (uids: (string | null)[]) =>
  ['BEGIN:VCALENDAR', 'VERSION:2.0', ...uids.flatMap((u) => ['BEGIN:VEVENT', ...(u ? [`UID:${u}`] : []), 'DTSTART:20260105T100000Z', 'END:VEVENT']), 'END:VCALENDAR'].join('\r\n');

describe('DavCollections', () => {
  beforeEach(() => {
    toasts.items = [];
  });

  it('lists the default collection first, then by name; creates, renames and recolours', async () => {
    const { api } = fakeApi();
    const m = new DavCollections('calendar', 'ann', api);
    await m.load();
    expect(m.items.map((c) => c.slug)).toEqual(['personal', 'alpha-1', 'zeta-1']);
    const made = await m.create('Beta', '#123456');
    expect(made?.displayName).toBe('Beta');
    expect(m.items.map((c) => c.displayName)).toEqual(['Personal', 'Alpha', 'Beta', 'Zeta']);
    expect(await m.update(m.items[1], 'Omega', '#abcdef')).toBe(true);
    expect(api.update).toHaveBeenCalledWith('/remote.php/dav/calendars/ann/alpha-1/', 'Omega', '#abcdef');
    expect(m.items.map((c) => [c.displayName, c.color])).toEqual([
      ['Personal', null],
      ['Beta', '#123456'],
      ['Omega', '#abcdef'],
      ['Zeta', null],
    ]);
  });

  it('removes a collection, and keeps it when the server refuses', async () => {
    const { api } = fakeApi();
    const m = new DavCollections('calendar', 'ann', api);
    await m.load();
    expect(await m.remove(m.items[2])).toBe(true);
    expect(m.items.map((c) => c.slug)).toEqual(['personal', 'alpha-1']);
    expect(await m.remove(m.items[0])).toBe(false);
    expect(m.items).toHaveLength(2);
    expect(toasts.items.at(-1)?.kind).toBe('error');
  });

  it('shares with a user or a group by principal, lists the sharees again, and ends a share', async () => {
    const { api } = fakeApi();
    const bob: Sharee = { principal: 'principal:principals/users/bob', name: 'bob', group: false, displayName: 'Bob', readWrite: true };
    api.shares.mockResolvedValueOnce([]).mockResolvedValueOnce([bob]).mockResolvedValueOnce([]);
    const m = new DavCollections('calendar', 'ann', api);
    await m.load();
    const c = m.items[1];
    await m.loadShares(c);
    expect(m.sharees).toEqual({ href: c.href, list: [] });
    expect(await m.share(c, 'bob', false, true)).toBe(true);
    expect(api.share).toHaveBeenCalledWith(c.href, 'principal:principals/users/bob', true);
    expect(m.sharees?.list).toEqual([bob]);
    expect(await m.share(c, 'Team A', true, false)).toBe(true);
    expect(api.share).toHaveBeenLastCalledWith(c.href, 'principal:principals/groups/Team%20A', false);
    expect(await m.unshare(c, bob)).toBe(true);
    expect(api.share).toHaveBeenLastCalledWith(c.href, 'principal:principals/users/bob', null);
    api.share.mockRejectedValueOnce(new ApiError(400, 'bad_request', 'no such user or group'));
    expect(await m.share(c, 'nobody', false, false)).toBe(false);
    expect(toasts.items.at(-1)?.kind).toBe('error');
  });

  it('says a shared collection was left, not deleted', async () => {
    const { api } = fakeApi();
    const m = new DavCollections('calendar', 'ann', api);
    await m.load();
    const shared = { ...m.items[2], sharedBy: 'bob', writable: false };
    expect(await m.remove(shared)).toBe(true);
    expect(toasts.items.at(-1)?.text).toContain('from your list');
  });

  it('imports: counts created, already there and refused, with the first reason', async () => {
    const { api, stored } = fakeApi(['dup.ics']);
    const m = new DavCollections('calendar', 'ann', api);
    await m.load();
    const s = await m.import(m.items[0], ics(['a@x', 'dup', null, 'b']), 'f.ics');
    expect(s).toEqual({ total: 4, created: 2, skipped: 1, refused: 1, reason: 'component without UID' });
    const names = [...stored.keys()].sort();
    expect(names).toHaveLength(3);
    expect(names[0]).toMatch(/^a-x-[0-9a-f]{8}\.ics$/);
    expect(names.slice(1)).toEqual(['b.ics', 'dup.ics']);
    expect(m.lastImport?.message).toBe('2 imported, 1 already there, 1 refused (first reason: component without UID)');
    expect(toasts.items.at(-1)).toMatchObject({ kind: 'error', text: m.lastImport?.message });
    expect(m.importing).toBeNull();
  });

  it('says so when a file holds nothing to import, and sends nothing', async () => {
    const { api } = fakeApi();
    const m = new DavCollections('addressbook', 'ann', api);
    await m.load();
    expect(await m.import(m.items[0], 'hello', 'notes.vcf')).toBeNull();
    expect(api.put).not.toHaveBeenCalled();
    expect(toasts.items.at(-1)?.text).toBe('No contacts found in "notes.vcf".');
  });

  it('gives cards without UID one before sending them', async () => {
    const { api } = fakeApi();
    const m = new DavCollections('addressbook', 'ann', api);
    await m.load();
    const s = await m.import(m.items[0], 'BEGIN:VCARD\nVERSION:3.0\nFN:A\nEND:VCARD\nBEGIN:VCARD\nVERSION:3.0\nUID:b\nFN:B\nEND:VCARD\n', 'c.vcf');
    expect(s).toMatchObject({ total: 2, created: 2, refused: 0 });
    const bodies = api.put.mock.calls.map((c) => c[2].body);
    expect(bodies.every((b) => /\r\nUID:.+\r\n/.test(b))).toBe(true);
    expect(toasts.items.at(-1)).toMatchObject({ kind: 'success', text: '2 imported' });
  });

  it('stops an import when a request fails as a whole', async () => {
    const { api } = fakeApi();
    api.put.mockRejectedValueOnce(new TypeError('offline'));
    const m = new DavCollections('calendar', 'ann', api);
    await m.load();
    expect(await m.import(m.items[0], ics(['a']), 'f.ics')).toBeNull();
    expect(toasts.items.at(-1)?.kind).toBe('error');
    expect(m.importing).toBeNull();
  });
});

describe('import helpers', () => {
  it('names objects from their UIDs, and gives cards without one a UID and a name', () => {
    let n = 0;
    const id = () => `id-${++n}`;
    expect(importObjects('calendar', ics(['x', null]), id).map((o) => o.name)).toEqual(['x.ics', 'id-1.ics']);
    n = 0;
    const cards = importObjects('addressbook', 'BEGIN:VCARD\nFN:A\nEND:VCARD\nBEGIN:VCARD\nUID:u/1\nFN:B\nEND:VCARD', id);
    expect(cards[0].name).toBe('id-1.vcf');
    expect(cards[0].body).toContain('UID:id-1\r\n');
    expect(cards[1].name).toMatch(/^u-1-[0-9a-f]{8}\.vcf$/);
  });

  it('runs a few PUTs at a time', async () => {
    let running = 0;
    let most = 0;
    const objects = Array.from({ length: 10 }, (_, i) => ({ name: `${i}.ics`, body: '' }));
    const s = await runImport(objects, async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 2));
      running--;
      return { status: 201, reason: '' };
    }, 3);
    expect(s.created).toBe(10);
    expect(most).toBe(3);
  });

  it('sorts the default collection first and words the summary', () => {
    expect(sortCollections('addressbook', [col('b', 'B'), col('contacts', 'Zz')]).map((c) => c.slug)).toEqual(['contacts', 'b']);
    expect(importMessage({ total: 3, created: 0, skipped: 3, refused: 0, reason: '' })).toBe('0 imported, 3 already there');
  });
});
