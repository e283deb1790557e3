// The Media Session API: what the system (lock screen, media keys, headset
// buttons, the browser's media hub) shows of the playing track and which of
// its buttons work. Every call is guarded: browsers without the API, or
// without one of the actions, simply get less.

export interface SessionTrack {
  title: string;
  artist: string;
  album: string;
}

export interface SessionActions {
  play(): void;
  pause(): void;
  previous(): void;
  next(): void;
  /** seconds from the start */
  seekTo(seconds: number): void;
}

/** The subset of MediaSession used here (a fake in tests). */
export interface MediaSessionLike {
  metadata: unknown;
  playbackState: 'none' | 'paused' | 'playing';
  setActionHandler(action: string, handler: ((details: { seekTime?: number; action: string }) => void) | null): void;
  setPositionState?(state: { duration: number; position: number; playbackRate?: number }): void;
}

export const ACTIONS = ['play', 'pause', 'previoustrack', 'nexttrack', 'seekto'] as const;

/** The page's media session, if the browser has one. */
export function browserMediaSession(): MediaSessionLike | null {
  if (typeof navigator === 'undefined' || !('mediaSession' in navigator)) return null;
  return (navigator.mediaSession as unknown as MediaSessionLike) ?? null;
}

/** Hands the session's buttons to `actions`; returns the undo. */
export function wireMediaSession(ms: MediaSessionLike | null, actions: SessionActions): () => void {
  if (!ms) return () => {};
  const handlers: Record<(typeof ACTIONS)[number], (d: { seekTime?: number; action: string }) => void> = {
    play: () => actions.play(),
    pause: () => actions.pause(),
    previoustrack: () => actions.previous(),
    nexttrack: () => actions.next(),
    seekto: (d) => {
      if (typeof d.seekTime === 'number' && Number.isFinite(d.seekTime)) actions.seekTo(Math.max(0, d.seekTime));
    },
  };
  const set: string[] = [];
  for (const a of ACTIONS) {
    try {
      ms.setActionHandler(a, handlers[a]);
      set.push(a);
    } catch {
      // this browser does not know the action
    }
  }
  return () => {
    for (const a of set) {
      try {
        ms.setActionHandler(a, null);
      } catch {
        // gone already
      }
    }
  };
}

/** The metadata object for a track: a MediaMetadata where the browser has one. */
export function trackMetadata(track: SessionTrack): unknown {
  const init = { title: track.title, artist: track.artist, album: track.album, artwork: [] };
  const Ctor = (globalThis as { MediaMetadata?: new (init: object) => unknown }).MediaMetadata;
  return typeof Ctor === 'function' ? new Ctor(init) : init;
}

/** Shows `track` (null: nothing) in the session. */
export function showTrack(ms: MediaSessionLike | null, track: SessionTrack | null) {
  if (!ms) return;
  try {
    ms.metadata = track ? trackMetadata(track) : null;
    if (!track) ms.playbackState = 'none';
  } catch {
    // a read-only or odd implementation: nothing to show
  }
}

/** The play state and position (seconds) the session shows. */
export function showState(ms: MediaSessionLike | null, playing: boolean, position: number, duration: number) {
  if (!ms) return;
  try {
    ms.playbackState = playing ? 'playing' : 'paused';
  } catch {
    // ignored
  }
  if (ms.setPositionState && Number.isFinite(duration) && duration > 0) {
    try {
      ms.setPositionState({ duration, position: Math.min(Math.max(0, position), duration), playbackRate: 1 });
    } catch {
      // an inconsistent position (the metadata is still loading)
    }
  }
}
