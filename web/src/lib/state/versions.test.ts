import { describe, it, expect, vi, beforeEach } from 'vitest';
import { VersionsModel } from './versions.svelte';
import { toasts } from './toasts.svelte';
import { ApiError } from '../api/client';
import type { VersionsApi } from '../services/versions';
import type { Node, Version } from '../api/schema.gen';

const file: Node = {
  id: 'f1',
  parent_id: 'root',
  name: 'report.txt',
  kind: 'file',
  size: 5,
  mime: 'text/plain',
  modified: 3000,
  created: 1000,
  etag: '"three"',
  favorite: true,
};
const version = (id: string, size: number, modified: number, replaced: number): Version => ({
  id,
  size,
  modified,
  replaced_at: replaced,
  hash: id.repeat(64).slice(0, 64),
  charged_bytes: size,
  author: 'ann',
});
// "one" (3 B) was replaced by "two" (3 B), which was replaced by "three" (5 B).
const one = version('1', 3, 1000, 2000);
const two = version('2', 3, 2000, 3000);

function fakeApi() {
  let stored: Version[] = [two, one];
  const api = {
    list: vi.fn(async (_node: string) => [...stored]),
    restore: vi.fn(async (_node: string, vid: string): Promise<Node> => {
      const v = stored.find((x) => x.id === vid);
      if (!v) throw new ApiError(404, 'not_found', 'no such version');
      // The content that was current becomes a version; the restored one leaves the list.
      stored = [version('3', 5, 3000, 4000), ...stored.filter((x) => x.id !== vid)];
      return { ...file, size: v.size, modified: v.modified, etag: '"' + vid + '"' };
    }),
    remove: vi.fn(async (_node: string, vid: string) => {
      stored = stored.filter((x) => x.id !== vid);
    }),
    downloadUrl: vi.fn((node: string, vid: string | null) => (vid ? `/v/${node}/${vid}?download=1` : `/c/${node}?download=1`)),
  } satisfies VersionsApi;
  return api;
}

beforeEach(() => {
  toasts.items = [];
  vi.spyOn(console, 'error').mockImplementation(() => {});
});

describe('VersionsModel', () => {
  it('loads the versions and lists the current content first', async () => {
    const api = fakeApi();
    const m = new VersionsModel(file, api, false);
    expect(m.ready).toBe(false);
    await m.load();
    expect(api.list).toHaveBeenCalledWith('f1');
    expect(m.ready).toBe(true);
    expect(m.rows.map((r) => [r.id, r.size, r.replacedAt])).toEqual([
      [null, 5, null],
      ['2', 3, 3000],
      ['1', 3, 2000],
    ]);
  });

  it('restores a version: the file changes, the list reloads, the page hears of it and a toast says so', async () => {
    const api = fakeApi();
    const changed = vi.fn();
    const m = new VersionsModel(file, api, false, changed);
    await m.load();
    expect(await m.restore(m.rows[2])).toBe(true);
    expect(api.restore).toHaveBeenCalledWith('f1', '1');
    expect(changed).toHaveBeenCalledWith(expect.objectContaining({ id: 'f1', size: 3, modified: 1000 }));
    expect(m.file.modified).toBe(1000);
    // The content that was current ("three", 5 B) is a version now; "one" is current again.
    expect(m.rows.map((r) => [r.id, r.size])).toEqual([
      [null, 3],
      ['3', 5],
      ['2', 3],
    ]);
    expect(toasts.items.map((x) => [x.kind, x.text])).toEqual([['success', 'Restored an earlier version of "report.txt"']]);
    expect(m.busy).toBe(false);
  });

  it('deletes a version and tells the page (the usage changed)', async () => {
    const api = fakeApi();
    const changed = vi.fn();
    const m = new VersionsModel(file, api, false, changed);
    await m.load();
    expect(await m.remove(m.rows[1])).toBe(true);
    expect(api.remove).toHaveBeenCalledWith('f1', '2');
    expect(m.rows.map((r) => r.id)).toEqual([null, '1']);
    expect(changed).toHaveBeenCalledWith(null);
    expect(toasts.items.map((x) => x.text)).toEqual(['Version deleted']);
  });

  it('does nothing for the current content, nor for a viewer', async () => {
    const api = fakeApi();
    const m = new VersionsModel(file, api, false);
    await m.load();
    expect(await m.restore(m.rows[0])).toBe(false);
    expect(await m.remove(m.rows[0])).toBe(false);
    const viewer = new VersionsModel(file, api, true);
    await viewer.load();
    expect(await viewer.restore(viewer.rows[1])).toBe(false);
    expect(await viewer.remove(viewer.rows[1])).toBe(false);
    expect(api.restore).not.toHaveBeenCalled();
    expect(api.remove).not.toHaveBeenCalled();
  });

  it('reports a version that is gone and shows the list as it is now', async () => {
    const api = fakeApi();
    const m = new VersionsModel(file, api, false);
    await m.load();
    const stale = m.rows[2];
    await api.remove('f1', '1'); // deleted elsewhere meanwhile
    expect(await m.restore(stale)).toBe(false);
    expect(toasts.items.map((x) => x.kind)).toEqual(['error']);
    await vi.waitFor(() => expect(m.rows.map((r) => r.id)).toEqual([null, '2']));
  });

  it('downloads a version, or the current content, through the API object', async () => {
    const m = new VersionsModel(file, fakeApi(), false);
    await m.load();
    expect(m.downloadUrl(m.rows[0])).toBe('/c/f1?download=1');
    expect(m.downloadUrl(m.rows[1])).toBe('/v/f1/2?download=1');
  });

  it('reports a failed load and still ends loading', async () => {
    const api = fakeApi();
    api.list.mockRejectedValueOnce(new ApiError(400, 'invalid_argument', '"x" is a folder'));
    const m = new VersionsModel(file, api, false);
    await m.load();
    expect(m.ready).toBe(true);
    expect(m.loading).toBe(false);
    expect(m.rows.map((r) => r.id)).toEqual([null]);
    expect(toasts.items.map((x) => x.kind)).toEqual(['error']);
  });
});
