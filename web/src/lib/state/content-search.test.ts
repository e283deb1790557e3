import { describe, it, expect, vi } from 'vitest';
import { ContentSearch } from './content-search.svelte';
import type { ContentHit, ContentSearchPage } from '../services/files';

const hit = (id: string, word = 'word'): ContentHit => ({
  node: {
    id,
    parent_id: 'root',
    name: `${id}.txt`,
    kind: 'file',
    size: 1,
    mime: 'text/plain',
    modified: 0,
    created: 0,
    etag: '"e"',
    favorite: false,
  },
  snippet: [
    { text: 'a ', match: false },
    { text: word, match: true },
  ],
});

describe('ContentSearch', () => {
  it('pages with next_cursor and stops at the end', async () => {
    const pages: Record<string, ContentSearchPage> = {
      '': { items: [hit('a'), hit('b')], next_cursor: 'c1' },
      c1: { items: [hit('b'), hit('c')], next_cursor: null },
    };
    const load = vi.fn(async (_q: string, cursor: string | null) => pages[cursor ?? '']);
    const s = new ContentSearch(load);
    await s.run('  word ');
    expect(load).toHaveBeenLastCalledWith('word', null, expect.any(AbortSignal));
    expect(s.hits.map((h) => h.node.id)).toEqual(['a', 'b']);
    expect(s.cursor).toBe('c1');
    await s.more();
    expect(load).toHaveBeenLastCalledWith('word', 'c1', expect.any(AbortSignal));
    // b moved up between pages: listed once.
    expect(s.hits.map((h) => h.node.id)).toEqual(['a', 'b', 'c']);
    expect(s.cursor).toBeNull();
    await s.more();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('asks nothing for an empty query and clears the results', async () => {
    const load = vi.fn(async () => ({ items: [hit('a')], next_cursor: null }));
    const s = new ContentSearch(load);
    await s.run('word');
    expect(s.hits).toHaveLength(1);
    await s.run('   ');
    expect(load).toHaveBeenCalledTimes(1);
    expect(s.hits).toEqual([]);
    expect(s.searched).toBe(false);
  });

  it('lets the newest search win over a slower older one', async () => {
    let release: (p: ContentSearchPage) => void = () => {};
    const slow = new Promise<ContentSearchPage>((r) => (release = r));
    const load = vi.fn((q: string) => (q === 'old' ? slow : Promise.resolve({ items: [hit('new')], next_cursor: null })));
    const s = new ContentSearch(load);
    const first = s.run('old');
    await s.run('new');
    release({ items: [hit('old')], next_cursor: 'x' });
    await first;
    expect(s.q).toBe('new');
    expect(s.hits.map((h) => h.node.id)).toEqual(['new']);
    expect(s.cursor).toBeNull();
    expect(s.loading).toBe(false);
  });

  it('reports errors', async () => {
    const onerror = vi.fn();
    const s = new ContentSearch(() => Promise.reject(new Error('500')), onerror);
    await s.run('word');
    expect(onerror).toHaveBeenCalledTimes(1);
    expect(s.loading).toBe(false);
  });
});
