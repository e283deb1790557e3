// The music player: one queue and one <audio> element for the whole app (the
// player bar owns the element and lives outside the pages, so the music
// keeps playing while the user moves between pages). The Media Session API
// shows the track and takes the system's play, pause, previous, next and
// seek buttons. The queue's rules are in lib/queue.ts.
import type { Track } from '../services/music';
import { contentUrl } from '../services/files';
import { nextIndex, previousStep, moveItem, indexAfterMove, removeItem } from '../queue';
import {
  browserMediaSession,
  wireMediaSession,
  showTrack,
  showState,
  type MediaSessionLike,
  type SessionTrack,
} from '../media-session';

/** The part of HTMLAudioElement the player uses (a fake in tests). */
export interface AudioLike {
  src: string;
  currentTime: number;
  readonly duration: number;
  readonly paused: boolean;
  play(): Promise<void> | void;
  pause(): void;
  removeAttribute(name: string): void;
  load(): void;
  addEventListener(type: string, fn: () => void): void;
  removeEventListener(type: string, fn: () => void): void;
}

/** What the system shows of a track: the tags, else the file's name. */
export function sessionTrack(t: Track): SessionTrack {
  return { title: t.title || t.node.name, artist: t.artist || t.album_artist, album: t.album };
}

export class Player {
  queue = $state.raw<Track[]>([]);
  /** the playing (or paused) track's place in the queue; -1: none */
  index = $state(-1);
  playing = $state(false);
  /** seconds */
  position = $state(0);
  /** seconds (the tag's length until the file says better) */
  duration = $state(0);
  current = $derived<Track | null>(this.queue[this.index] ?? null);
  /** the browser could not play the current track (a format it lacks, a file gone) */
  failed = $state(false);

  private audio: AudioLike | null = null;
  private session: MediaSessionLike | null = null;

  constructor(
    private readonly srcOf: (t: Track) => string,
    private readonly sessionOf: () => MediaSessionLike | null = browserMediaSession,
  ) {}

  /** Hands the player its <audio> element; returns the undo. */
  attach(audio: AudioLike): () => void {
    this.audio = audio;
    this.session = this.sessionOf();
    const on: Record<string, () => void> = {
      play: () => {
        this.playing = true;
        this.sync();
      },
      pause: () => {
        this.playing = false;
        this.sync();
      },
      timeupdate: () => {
        this.position = audio.currentTime;
      },
      durationchange: () => {
        if (Number.isFinite(audio.duration) && audio.duration > 0) this.duration = audio.duration;
        this.sync();
      },
      seeked: () => this.sync(),
      ended: () => this.advance(),
      error: () => {
        // An element without a source (after clear) reports an error too.
        if (!this.current) return;
        this.failed = true;
        this.playing = false;
        this.sync();
      },
    };
    for (const [type, fn] of Object.entries(on)) audio.addEventListener(type, fn);
    const unwire = wireMediaSession(this.session, {
      play: () => this.play(),
      pause: () => this.pause(),
      previous: () => this.previous(),
      next: () => this.next(),
      seekTo: (s) => this.seek(s),
    });
    if (this.current) this.load(this.index, false);
    return () => {
      for (const [type, fn] of Object.entries(on)) audio.removeEventListener(type, fn);
      unwire();
      if (this.audio === audio) this.audio = null;
    };
  }

  /** Plays `tracks` from `start`, replacing the queue. */
  playTracks(tracks: readonly Track[], start = 0) {
    if (tracks.length === 0) return;
    this.queue = tracks.slice();
    this.load(Math.max(0, Math.min(start, tracks.length - 1)), true);
  }

  /** Adds tracks at the end of the queue (and plays them when nothing was queued). */
  enqueue(tracks: readonly Track[]) {
    if (tracks.length === 0) return;
    const was = this.queue.length;
    this.queue = [...this.queue, ...tracks];
    if (was === 0) this.load(0, true);
  }

  playAt(i: number) {
    if (i >= 0 && i < this.queue.length) this.load(i, true);
  }

  play() {
    if (!this.audio) return;
    if (!this.current) {
      if (this.queue.length) this.load(0, true);
      return;
    }
    this.start();
  }

  pause() {
    this.audio?.pause();
  }

  /** Play or pause, as the button shows it. */
  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  /** The next track (keeps playing or paused as it was); nothing at the end. */
  next() {
    const n = nextIndex(this.queue.length, this.index);
    if (n !== null) this.load(n, this.playing);
  }

  /** The track before, or this one from its start when it has played a few seconds. */
  previous() {
    const step = previousStep(this.queue.length, this.index, this.audio?.currentTime ?? this.position);
    if (!step) return;
    if (step.restart) this.seek(0);
    else this.load(step.index, this.playing);
  }

  /** To `seconds` into the track. */
  seek(seconds: number) {
    if (!this.audio || !this.current) return;
    const max = this.duration > 0 ? this.duration : Infinity;
    const s = Math.max(0, Math.min(seconds, max));
    this.audio.currentTime = s;
    this.position = s;
    this.sync();
  }

  /** Moves a queued track (the playing one keeps playing). */
  move(from: number, to: number) {
    this.queue = moveItem(this.queue, from, to);
    this.index = indexAfterMove(this.index, from, to);
  }

  /** Takes a track out of the queue; removing the playing one goes on with the next. */
  remove(at: number) {
    const r = removeItem(this.queue, at, this.index);
    this.queue = r.items;
    if (!r.removedCurrent) {
      this.index = r.current;
    } else if (r.current < 0) {
      this.clear();
    } else {
      this.load(r.current, this.playing);
    }
  }

  /** Stops and empties the queue. */
  clear() {
    this.audio?.pause();
    this.queue = [];
    this.index = -1;
    this.position = 0;
    this.duration = 0;
    this.playing = false;
    if (this.audio) {
      this.audio.removeAttribute('src');
      this.audio.load();
    }
    showTrack(this.session, null);
  }

  /** The track ended: the next one, or stop at the end of the queue. */
  private advance() {
    const n = nextIndex(this.queue.length, this.index);
    if (n !== null) this.load(n, true);
    else {
      this.playing = false;
      this.position = 0;
      if (this.audio) this.audio.currentTime = 0;
      this.sync();
    }
  }

  private load(i: number, autoplay: boolean) {
    const t = this.queue[i];
    if (!t) return;
    this.index = i;
    this.failed = false;
    this.position = 0;
    this.duration = t.duration_ms > 0 ? t.duration_ms / 1000 : 0;
    showTrack(this.session, sessionTrack(t));
    if (!this.audio) return;
    this.audio.src = this.srcOf(t);
    if (autoplay) this.start();
    else this.sync();
  }

  private start() {
    const audio = this.audio;
    if (!audio) return;
    try {
      const p = audio.play();
      if (p && typeof p.catch === 'function') {
        p.catch((e: unknown) => {
          // A newer src replaced this one (AbortError): that load plays. Any
          // other refusal (autoplay policy, a file the browser cannot play)
          // leaves the player paused.
          if (!(e instanceof DOMException && e.name === 'AbortError') && audio.paused) this.playing = false;
        });
      }
    } catch {
      this.playing = false;
    }
  }

  private sync() {
    showState(this.session, this.playing, this.audio?.currentTime ?? this.position, this.duration);
  }
}

/** The app's one player; its <audio> streams the file's content (Range requests, the session cookie). */
export const player = new Player((t) => contentUrl(t.node.id));
