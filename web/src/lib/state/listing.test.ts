import { describe, it, expect, vi } from 'vitest';
import { FolderListing, type PageLoader } from './listing.svelte';
import type { Node } from '../api/schema.gen';

const node = (i: number): Node => ({
  id: `n${i}`,
  parent_id: 'root',
  name: `file ${i}`,
  kind: 'file',
  size: i,
  mime: 'text/plain',
  modified: i,
  created: i,
  etag: '"x"',
  favorite: false,
});
const folder = { ...node(-1), id: 'root', kind: 'folder' as const };

function pagedLoader(total: number, pageSize: number) {
  return vi.fn<PageLoader>(async (_id, _sort, _order, cursor) => {
    const start = cursor ? Number(cursor) : 0;
    const end = Math.min(total, start + pageSize);
    return {
      folder,
      items: Array.from({ length: end - start }, (_, k) => node(start + k)),
      next_cursor: end < total ? String(end) : null,
    };
  });
}

describe('FolderListing', () => {
  it('loads keyset pages on demand until the last one', async () => {
    const load = pagedLoader(1200, 500);
    const l = new FolderListing(load);
    await l.open('root');
    expect(l.items).toHaveLength(500);
    expect(l.hasMore).toBe(true);
    await l.more();
    await l.more();
    expect(l.items).toHaveLength(1200);
    expect(l.hasMore).toBe(false);
    await l.more();
    expect(load).toHaveBeenCalledTimes(3);
    expect(load.mock.calls.map((c) => c[3])).toEqual([null, '500', '1000']);
  });

  it('passes sort and order and restarts from page one when they change', async () => {
    const load = pagedLoader(10, 5);
    const l = new FolderListing(load);
    await l.open('root');
    await l.open('root', 'size', 'desc');
    expect(load.mock.calls[1].slice(0, 4)).toEqual(['root', 'size', 'desc', null]);
    expect(l.items).toHaveLength(5);
  });

  it('ignores a page that arrives after the folder changed', async () => {
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    const load = vi.fn<PageLoader>(async (id) => {
      if (id === 'old') await slow;
      return { folder: { ...folder, id }, items: [node(id === 'old' ? 1 : 2)], next_cursor: null };
    });
    const l = new FolderListing(load);
    const first = l.open('old');
    await l.open('new');
    release();
    await first;
    expect(l.items.map((n) => n.id)).toEqual(['n2']);
    expect(l.folder?.id).toBe('new');
  });

  it('reload keeps the rows until the new first page arrives', async () => {
    const load = pagedLoader(3, 5);
    const l = new FolderListing(load);
    await l.open('root');
    const p = l.reload();
    expect(l.items).toHaveLength(3);
    await p;
    expect(l.items).toHaveLength(3);
  });

  it('counts from the server\'s item_count before the last page, else from what is loaded', async () => {
    const load = pagedLoader(1200, 500);
    const l = new FolderListing(load);
    await l.open('root');
    expect(l.count).toEqual({ count: 500, exact: false });

    const counted = vi.fn<PageLoader>(async (...args) => ({
      ...(await load(...args)),
      folder: { ...folder, item_count: 1200 },
    }));
    const c = new FolderListing(counted);
    await c.open('root');
    expect(c.items).toHaveLength(500);
    expect(c.count).toEqual({ count: 1200, exact: true });
    c.remove(['n0', 'n1', 'not-loaded']);
    expect(c.count).toEqual({ count: 1198, exact: true });
  });

  it('records a failed page as an error and stops asking', async () => {
    const load = vi.fn<PageLoader>(async () => {
      throw new Error('boom');
    });
    const l = new FolderListing(load);
    await l.open('root');
    expect(l.error).toBeInstanceOf(Error);
    expect(l.hasMore).toBe(false);
  });
});
