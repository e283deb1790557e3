import { describe, it, expect, vi } from 'vitest';
import { PlaylistModel, type PlaylistOps } from './playlist.svelte';
import type { Playlist, Track } from '../services/music';

const track = (id: string): Track => ({
  node: { id, parent_id: 'p', name: `${id}.mp3`, kind: 'file', size: 1, mime: 'audio/mpeg', modified: 0, created: 0, etag: '"e"', favorite: false },
  title: id.toUpperCase(),
  artist: '',
  album_artist: '',
  album: '',
  artist_key: '',
  album_key: '',
  track: 0,
  disc: 0,
  year: 0,
  genre: '',
  duration_ms: 0,
});

/** A server keeping one playlist; `failNext` makes the next PUT fail. */
function server(ids: string[]) {
  let items = ids.slice();
  let name = 'Mix';
  let failNext = false;
  const answer = (): Playlist => ({ id: 'pl', name, items: items.length, created: 0, modified: 0, tracks: items.map(track) });
  const puts: string[][] = [];
  const ops: PlaylistOps = {
    get: vi.fn(async () => answer()),
    setItems: vi.fn(async (_id: string, next: string[]) => {
      puts.push(next);
      await new Promise((r) => setTimeout(r, 5));
      if (failNext) {
        failNext = false;
        throw new Error('409');
      }
      items = next.slice();
      return answer();
    }),
    rename: vi.fn(async (_id: string, n: string) => {
      name = n;
      return { id: 'pl', name, items: items.length, created: 0, modified: 0 };
    }),
    remove: vi.fn(async () => {}),
  };
  return { ops, puts, failNext: () => (failNext = true), items: () => items };
}

const ids = (m: PlaylistModel) => m.tracks.map((t) => t.node.id);

describe('PlaylistModel', () => {
  it('loads, and saves moves and removals in the order they were made', async () => {
    const s = server(['a', 'b', 'c']);
    const m = new PlaylistModel('pl', s.ops);
    await m.load();
    expect(m.status).toBe('ready');
    expect(m.name).toBe('Mix');
    void m.move(0, 2); // b c a — shown at once
    expect(ids(m)).toEqual(['b', 'c', 'a']);
    void m.removeAt(0); // c a
    expect(ids(m)).toEqual(['c', 'a']);
    await m.settled();
    expect(s.puts).toEqual([
      ['b', 'c', 'a'],
      ['c', 'a'],
    ]);
    expect(s.items()).toEqual(['c', 'a']);
    expect(ids(m)).toEqual(['c', 'a']);
  });

  it('shows the server order again after a failed save, and reports it', async () => {
    const s = server(['a', 'b']);
    const onerror = vi.fn();
    const m = new PlaylistModel('pl', s.ops, onerror);
    await m.load();
    s.failNext();
    await m.move(0, 1);
    expect(onerror).toHaveBeenCalled();
    expect(ids(m)).toEqual(['a', 'b']);
  });

  it('renames and deletes; a missing playlist says so', async () => {
    const s = server(['a']);
    const m = new PlaylistModel('pl', s.ops);
    await m.load();
    await m.rename('Road Trip');
    expect(m.name).toBe('Road Trip');
    expect(await m.remove()).toBe(true);
    const gone = new PlaylistModel('x', { ...s.ops, get: () => Promise.reject(new Error('404')) }, vi.fn());
    await gone.load();
    expect(gone.status).toBe('missing');
  });
});
