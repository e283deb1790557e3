import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import { tick } from 'svelte';
import PlayerBar from './PlayerBar.svelte';
import { Player } from '../lib/state/player.svelte';
import { fakeSession } from '../lib/media-session.fake';
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
  duration_ms: 125_000,
});

describe('PlayerBar', () => {
  it('owns the <audio> element and shows nothing until something plays', async () => {
    const player = new Player((t) => `/c/${t.node.id}`, () => fakeSession());
    const { container, queryByTestId } = render(PlayerBar, { props: { player } });
    expect(container.querySelector('audio')).not.toBeNull();
    expect(queryByTestId('player-bar')).toBeNull();
  });

  it('plays, pauses, skips, seeks and shows the queue', async () => {
    const ms = fakeSession();
    const player = new Player((t) => `/c/${t.node.id}`, () => ms);
    const play = vi.spyOn(HTMLMediaElement.prototype, 'play').mockImplementation(function (this: HTMLMediaElement) {
      this.dispatchEvent(new Event('play'));
      return Promise.resolve();
    });
    const pause = vi.spyOn(HTMLMediaElement.prototype, 'pause').mockImplementation(function (this: HTMLMediaElement) {
      this.dispatchEvent(new Event('pause'));
    });
    try {
      const { getByTestId, getByRole, container } = render(PlayerBar, { props: { player } });
      player.playTracks([track(1), track(2)]);
      await tick();
      const audio = container.querySelector('audio') as HTMLAudioElement;
      expect(audio.getAttribute('src')).toBe('/c/id1');
      expect(getByTestId('player-title').textContent).toBe('Song 1');
      expect(getByTestId('player-toggle').getAttribute('aria-label')).toBe('Pause');
      expect(container.textContent).toContain('2:05');
      await fireEvent.click(getByTestId('player-toggle'));
      expect(pause).toHaveBeenCalled();
      expect(getByTestId('player-toggle').getAttribute('aria-label')).toBe('Play');
      await fireEvent.click(getByTestId('player-next'));
      expect(getByTestId('player-title').textContent).toBe('Song 2');
      expect((getByTestId('player-next') as HTMLButtonElement).disabled).toBe(true);
      const seek = getByTestId('player-seek') as HTMLInputElement;
      seek.value = '61';
      await fireEvent.input(seek);
      expect(player.position).toBe(61);
      expect(getByTestId('player-time').textContent).toBe('1:01');
      await fireEvent.click(getByTestId('player-queue-toggle'));
      const queue = getByTestId('player-queue');
      expect(queue.querySelectorAll('li').length).toBe(2);
      expect(queue.querySelector('[aria-current=true]')?.textContent).toContain('Song 2');
      await fireEvent.click(getByRole('button', { name: /^Song 1/ }));
      expect(getByTestId('player-title').textContent).toBe('Song 1');
      expect(play).toHaveBeenCalled();
      await fireEvent.click(getByTestId('player-stop'));
      expect(player.queue).toEqual([]);
    } finally {
      play.mockRestore();
      pause.mockRestore();
    }
  });
});
