import { describe, it, expect, vi } from 'vitest';
import { Paged } from './paged.svelte';
import { playlistNameFromFile } from '../services/music';

describe('Paged', () => {
  it('loads page after page with the cursor, one request at a time, until the last', async () => {
    const fetchPage = vi.fn(async (cursor: string | null) =>
      cursor === null ? { items: [1, 2], next_cursor: 'c2' } : { items: [3], next_cursor: null },
    );
    const list = new Paged<number>(fetchPage);
    const a = list.more();
    const b = list.more(); // while loading: nothing
    await Promise.all([a, b]);
    expect(list.items).toEqual([1, 2]);
    expect(list.loaded).toBe(true);
    expect(list.done).toBe(false);
    await list.more();
    expect(list.items).toEqual([1, 2, 3]);
    expect(list.done).toBe(true);
    await list.more();
    expect(fetchPage.mock.calls).toEqual([[null], ['c2']]);
  });

  it('starts over on reset, dropping an answer that comes late', async () => {
    let release: (v: { items: string[]; next_cursor: null }) => void = () => {};
    const slow = new Promise<{ items: string[]; next_cursor: null }>((r) => (release = r));
    const fetchPage = vi.fn().mockReturnValueOnce(slow).mockResolvedValueOnce({ items: ['new'], next_cursor: null });
    const list = new Paged<string>(fetchPage);
    const first = list.more();
    await list.reset();
    release({ items: ['old'], next_cursor: null });
    await first;
    expect(list.items).toEqual(['new']);
  });

  it('reports a failure and stops', async () => {
    const onerror = vi.fn();
    const list = new Paged<number>(() => Promise.reject(new Error('boom')), onerror);
    await list.more();
    expect(onerror).toHaveBeenCalled();
    expect(list.done).toBe(true);
    expect(list.loading).toBe(false);
  });
});

describe('playlist names', () => {
  it('come from the M3U8 file name', () => {
    expect(playlistNameFromFile('Road trip.m3u8')).toBe('Road trip');
    expect(playlistNameFromFile('old.M3U')).toBe('old');
    expect(playlistNameFromFile('.m3u8')).toBe('.m3u8');
  });
});
