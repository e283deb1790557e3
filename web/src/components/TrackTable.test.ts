import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import { tick } from 'svelte';
import TrackTable from './TrackTable.svelte';
import { moveItem } from '../lib/queue';
import type { Track } from '../lib/services/music';

afterEach(cleanup);

const track = (n: number): Track => ({
  node: { id: `id${n}`, parent_id: 'p', name: `t${n}.mp3`, kind: 'file', size: 1, mime: 'audio/mpeg', modified: 0, created: 0, etag: '"e"', favorite: false },
  title: `Song ${n}`,
  artist: 'Artist',
  album_artist: 'Artist',
  album: 'Album',
  artist_key: 'artist',
  album_key: 'album',
  track: n,
  disc: 1,
  year: 2020,
  genre: '',
  duration_ms: 61_000,
});

const titles = (c: HTMLElement) => [...c.querySelectorAll('[data-testid=track-row]')].map((r) => (r as HTMLElement).dataset.title);

describe('TrackTable', () => {
  it('lists tracks with their length, marks the playing one, and plays from a title', async () => {
    const onplay = vi.fn();
    const { container, getByRole } = render(TrackTable, { props: { tracks: [track(1), track(2)], playingId: 'id2', onplay } });
    expect(titles(container)).toEqual(['Song 1', 'Song 2']);
    expect(container.querySelector('[data-index="1"]')?.getAttribute('aria-current')).toBe('true');
    expect(container.querySelector('[data-index="0"]')?.textContent).toContain('1:01');
    await fireEvent.click(getByRole('button', { name: 'Song 2' }));
    expect(onplay).toHaveBeenCalledWith(1);
    // Without onmove: no reordering.
    expect(container.querySelector('button[data-move]')).toBeNull();
    expect(container.querySelector('tr[draggable=true]')).toBeNull();
  });

  it('reorders with Move up / Move down and Alt+arrows, the focus staying on the moved track', async () => {
    let tracks = [track(1), track(2), track(3)];
    const onmove = vi.fn((from: number, to: number) => {
      tracks = moveItem(tracks, from, to);
      rerender({ tracks, onplay: vi.fn(), onmove });
    });
    const { container, getByRole, rerender } = render(TrackTable, { props: { tracks, onplay: vi.fn(), onmove } });
    expect((getByRole('button', { name: 'Move Song 1 up' }) as HTMLButtonElement).disabled).toBe(true);
    expect((getByRole('button', { name: 'Move Song 3 down' }) as HTMLButtonElement).disabled).toBe(true);

    await fireEvent.click(getByRole('button', { name: 'Move Song 1 down' }));
    await tick();
    expect(onmove).toHaveBeenLastCalledWith(0, 1);
    expect(titles(container)).toEqual(['Song 2', 'Song 1', 'Song 3']);
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Move Song 1 down');

    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowDown', altKey: true });
    await tick();
    expect(titles(container)).toEqual(['Song 2', 'Song 3', 'Song 1']);
    // At the bottom "down" is disabled: the focus goes to "up" of the same track.
    expect(document.activeElement?.getAttribute('aria-label')).toBe('Move Song 1 up');

    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp', altKey: true });
    await tick();
    expect(titles(container)).toEqual(['Song 2', 'Song 1', 'Song 3']);
    // Plain arrows do nothing.
    await fireEvent.keyDown(document.activeElement!, { key: 'ArrowUp' });
    expect(onmove).toHaveBeenCalledTimes(3);
  });

  it('reorders by dragging a row onto another', async () => {
    const onmove = vi.fn();
    const { container } = render(TrackTable, { props: { tracks: [track(1), track(2), track(3)], onplay: vi.fn(), onmove } });
    const rows = [...container.querySelectorAll('tr[data-testid=track-row]')] as HTMLElement[];
    expect(rows[0].getAttribute('draggable')).toBe('true');
    await fireEvent.dragStart(rows[2]);
    await fireEvent.dragOver(rows[0]);
    expect(rows[0].classList.contains('drop-target')).toBe(true);
    await fireEvent.drop(rows[0]);
    expect(onmove).toHaveBeenCalledWith(2, 0);
  });
});
