import { describe, it, expect, vi, afterEach } from 'vitest';
import { wireMediaSession, showTrack, showState, trackMetadata, ACTIONS } from './media-session';
import { fakeSession } from './media-session.fake';

afterEach(() => vi.unstubAllGlobals());

describe('media session', () => {
  it('hands play, pause, previous, next and seekto to the player, and takes them back', () => {
    const ms = fakeSession();
    const actions = { play: vi.fn(), pause: vi.fn(), previous: vi.fn(), next: vi.fn(), seekTo: vi.fn() };
    const undo = wireMediaSession(ms, actions);
    expect([...ms.handlers.keys()]).toEqual([...ACTIONS]);
    ms.handlers.get('play')!({ action: 'play' });
    ms.handlers.get('pause')!({ action: 'pause' });
    ms.handlers.get('previoustrack')!({ action: 'previoustrack' });
    ms.handlers.get('nexttrack')!({ action: 'nexttrack' });
    ms.handlers.get('seekto')!({ action: 'seekto', seekTime: 42.5 });
    ms.handlers.get('seekto')!({ action: 'seekto' }); // no time: ignored
    ms.handlers.get('seekto')!({ action: 'seekto', seekTime: -3 });
    expect(actions.play).toHaveBeenCalledTimes(1);
    expect(actions.pause).toHaveBeenCalledTimes(1);
    expect(actions.previous).toHaveBeenCalledTimes(1);
    expect(actions.next).toHaveBeenCalledTimes(1);
    expect(actions.seekTo.mock.calls).toEqual([[42.5], [0]]);
    undo();
    expect([...ms.handlers.values()].every((h) => h === null)).toBe(true);
  });

  it('skips actions the browser does not know, and does nothing without the API', () => {
    const ms = fakeSession(['seekto']);
    const undo = wireMediaSession(ms, { play() {}, pause() {}, previous() {}, next() {}, seekTo() {} });
    expect(ms.handlers.has('seekto')).toBe(false);
    expect(ms.handlers.get('play')).toBeTypeOf('function');
    undo();
    expect(() => wireMediaSession(null, { play() {}, pause() {}, previous() {}, next() {}, seekTo() {} })()).not.toThrow();
    expect(() => showTrack(null, { title: 't', artist: 'a', album: 'b' })).not.toThrow();
  });

  it('shows the track as MediaMetadata where the browser has it', () => {
    class FakeMetadata {
      constructor(readonly init: { title: string; artist: string; album: string }) {}
      get title() {
        return this.init.title;
      }
    }
    vi.stubGlobal('MediaMetadata', FakeMetadata);
    const ms = fakeSession();
    showTrack(ms, { title: 'Sine', artist: 'Osc', album: 'Waves' });
    expect(ms.metadata).toBeInstanceOf(FakeMetadata);
    expect((ms.metadata as FakeMetadata).title).toBe('Sine');
    expect((ms.metadata as FakeMetadata).init).toMatchObject({ artist: 'Osc', album: 'Waves' });
    showTrack(ms, null);
    expect(ms.metadata).toBeNull();
    expect(ms.playbackState).toBe('none');
  });

  it('falls back to a plain object without MediaMetadata', () => {
    vi.stubGlobal('MediaMetadata', undefined);
    expect(trackMetadata({ title: 'T', artist: 'A', album: 'B' })).toMatchObject({ title: 'T', artist: 'A', album: 'B' });
  });

  it('shows the play state and a position within the duration', () => {
    const ms = fakeSession();
    showState(ms, true, 12, 180);
    expect(ms.playbackState).toBe('playing');
    expect(ms.positions.at(-1)).toEqual({ duration: 180, position: 12, playbackRate: 1 });
    showState(ms, false, 500, 180);
    expect(ms.playbackState).toBe('paused');
    expect(ms.positions.at(-1)?.position).toBe(180);
    showState(ms, false, 1, NaN); // the length is not known yet: no position
    expect(ms.positions).toHaveLength(2);
  });
});
