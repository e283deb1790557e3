// Tests only: a navigator.mediaSession stand-in.
import type { MediaSessionLike } from './media-session';

/** A navigator.mediaSession stand-in that records what the page hands it. */
export function fakeSession(unsupported: string[] = []) {
  const handlers = new Map<string, ((d: { seekTime?: number; action: string }) => void) | null>();
  const positions: { duration: number; position: number; playbackRate?: number }[] = [];
  const ms: MediaSessionLike & { handlers: typeof handlers; positions: typeof positions } = {
    metadata: null,
    playbackState: 'none',
    handlers,
    positions,
    setActionHandler(action, handler) {
      if (unsupported.includes(action)) throw new TypeError(`'${action}' is not a valid MediaSessionAction`);
      handlers.set(action, handler);
    },
    setPositionState(s) {
      if (s.position > s.duration) throw new TypeError('position past the duration');
      positions.push(s);
    },
  };
  return ms;
}
