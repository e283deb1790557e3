import { describe, it, expect, vi, beforeEach } from 'vitest';
import { Player, type AudioLike } from './player.svelte';
import { fakeSession } from '../media-session.fake';
import type { Track } from '../services/music';

function track(n: number, over: Partial<Track> = {}): Track {
  return {
    node: {
      id: `id${n}`,
      parent_id: 'p',
      name: `t${n}.mp3`,
      kind: 'file',
      size: 1,
      mime: 'audio/mpeg',
      modified: 0,
      created: 0,
      etag: '"e"',
      favorite: false,
    },
    title: `Track ${n}`,
    artist: 'Artist',
    album_artist: 'Artist',
    album: 'Album',
    artist_key: 'artist',
    album_key: 'album',
    track: n,
    disc: 1,
    year: 2020,
    genre: '',
    duration_ms: 180_000,
    ...over,
  };
}

/** An <audio> stand-in: play() resolves and fires "play", pause() fires "pause". */
class FakeAudio implements AudioLike {
  src = '';
  currentTime = 0;
  duration = NaN;
  paused = true;
  played: string[] = [];
  private listeners = new Map<string, Set<() => void>>();
  play() {
    this.played.push(this.src);
    this.paused = false;
    this.fire('play');
    return Promise.resolve();
  }
  pause() {
    if (this.paused) return;
    this.paused = true;
    this.fire('pause');
  }
  removeAttribute(name: string) {
    if (name === 'src') this.src = '';
  }
  load() {}
  addEventListener(type: string, fn: () => void) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(fn);
  }
  removeEventListener(type: string, fn: () => void) {
    this.listeners.get(type)?.delete(fn);
  }
  fire(type: string) {
    for (const fn of this.listeners.get(type) ?? []) fn();
  }
  count() {
    return [...this.listeners.values()].reduce((n, s) => n + s.size, 0);
  }
}

let audio: FakeAudio;
let ms: ReturnType<typeof fakeSession>;
let player: Player;
beforeEach(() => {
  vi.stubGlobal('MediaMetadata', undefined);
  audio = new FakeAudio();
  ms = fakeSession();
  player = new Player((t) => `/content/${t.node.id}`, () => ms);
  player.attach(audio);
});

const title = () => (ms.metadata as { title: string } | null)?.title;

describe('Player', () => {
  it('plays a list from a track, shows it in the media session, and follows the element', () => {
    player.playTracks([track(1), track(2), track(3)], 1);
    expect(audio.src).toBe('/content/id2');
    expect(audio.played).toEqual(['/content/id2']);
    expect(player.current?.title).toBe('Track 2');
    expect(player.playing).toBe(true);
    expect(title()).toBe('Track 2');
    expect(ms.playbackState).toBe('playing');
    expect(player.duration).toBe(180); // from the tag until the file says
    audio.currentTime = 12;
    audio.fire('timeupdate');
    expect(player.position).toBe(12);
    audio.duration = 181.5;
    audio.fire('durationchange');
    expect(player.duration).toBe(181.5);
    expect(ms.positions.at(-1)).toMatchObject({ duration: 181.5, position: 12 });
    player.toggle();
    expect(audio.paused).toBe(true);
    expect(player.playing).toBe(false);
    expect(ms.playbackState).toBe('paused');
  });

  it('next and previous move through the queue; previous restarts a track past its start', () => {
    player.playTracks([track(1), track(2), track(3)]);
    player.next();
    expect(player.index).toBe(1);
    expect(audio.src).toBe('/content/id2');
    audio.currentTime = 10;
    player.previous();
    expect(player.index).toBe(1); // restarted
    expect(audio.currentTime).toBe(0);
    player.previous();
    expect(player.index).toBe(0);
    expect(title()).toBe('Track 1');
    player.next();
    player.next();
    player.next(); // at the end: stays
    expect(player.index).toBe(2);
  });

  it('goes on with the next track when one ends, and stops after the last', () => {
    player.playTracks([track(1), track(2)]);
    audio.fire('ended');
    expect(player.index).toBe(1);
    expect(audio.played).toEqual(['/content/id1', '/content/id2']);
    audio.paused = true;
    audio.fire('ended');
    expect(player.index).toBe(1);
    expect(player.playing).toBe(false);
    expect(audio.played).toHaveLength(2);
  });

  it("answers the media session's buttons", () => {
    player.playTracks([track(1), track(2), track(3)]);
    ms.handlers.get('nexttrack')!({ action: 'nexttrack' });
    expect(title()).toBe('Track 2');
    ms.handlers.get('seekto')!({ action: 'seekto', seekTime: 30 });
    expect(audio.currentTime).toBe(30);
    expect(player.position).toBe(30);
    ms.handlers.get('pause')!({ action: 'pause' });
    expect(audio.paused).toBe(true);
    ms.handlers.get('play')!({ action: 'play' });
    expect(audio.paused).toBe(false);
    audio.currentTime = 1;
    ms.handlers.get('previoustrack')!({ action: 'previoustrack' });
    expect(title()).toBe('Track 1');
  });

  it('enqueues, moves and removes queued tracks, keeping the playing one', () => {
    player.enqueue([track(1)]);
    expect(player.current?.title).toBe('Track 1'); // an empty queue starts playing
    player.enqueue([track(2), track(3)]);
    expect(player.queue.map((t) => t.track)).toEqual([1, 2, 3]);
    player.move(0, 2);
    expect(player.queue.map((t) => t.track)).toEqual([2, 3, 1]);
    expect(player.index).toBe(2);
    player.remove(0);
    expect(player.index).toBe(1);
    expect(player.current?.title).toBe('Track 1');
    player.remove(1); // the playing one: the new last one takes over
    expect(player.current?.title).toBe('Track 3');
    expect(audio.src).toBe('/content/id3');
    player.remove(0);
    expect(player.current).toBeNull();
    expect(player.queue).toEqual([]);
    expect(ms.metadata).toBeNull();
  });

  it('says when the browser cannot play a track; the next one clears it', () => {
    player.playTracks([track(1), track(2)]);
    audio.fire('error');
    expect(player.failed).toBe(true);
    expect(player.playing).toBe(false);
    player.next();
    expect(player.failed).toBe(false);
  });

  it('stays paused when the browser refuses to play', async () => {
    audio.play = () => {
      audio.played.push(audio.src);
      return Promise.reject(new DOMException('no gesture', 'NotAllowedError'));
    };
    player.playTracks([track(1)]);
    await Promise.resolve();
    await Promise.resolve();
    expect(player.playing).toBe(false);
  });

  it('lets go of the element and the media session when detached', () => {
    const undo = player.attach(new FakeAudio());
    undo();
    const other = new FakeAudio();
    const undo2 = player.attach(other);
    expect(other.count()).toBeGreaterThan(0);
    undo2();
    expect(other.count()).toBe(0);
    expect([...ms.handlers.values()].every((h) => h === null)).toBe(true);
  });
});

describe('Player with the browser media session', () => {
  it('wires navigator.mediaSession by default', () => {
    const session = fakeSession();
    Object.defineProperty(navigator, 'mediaSession', { value: session, configurable: true });
    try {
      const p = new Player((t) => `/c/${t.node.id}`);
      const el = new FakeAudio();
      const undo = p.attach(el);
      p.playTracks([track(7, { title: 'Sine Song' })]);
      expect((session.metadata as { title: string }).title).toBe('Sine Song');
      expect(session.playbackState).toBe('playing');
      session.handlers.get('pause')!({ action: 'pause' });
      expect(el.paused).toBe(true);
      undo();
    } finally {
      delete (navigator as unknown as { mediaSession?: unknown }).mediaSession;
    }
  });
});
