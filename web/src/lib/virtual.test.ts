import { describe, it, expect } from 'vitest';
import { virtualWindow, needsMore, scrollToReveal } from './virtual';

describe('virtualWindow', () => {
  it('renders only the visible rows plus overscan', () => {
    const w = virtualWindow(0, 440, 44, 20000, 10);
    expect(w).toEqual({ start: 0, end: 21, offsetTop: 0, totalHeight: 880000 });
  });

  it('keeps the rendered count bounded anywhere in a huge list', () => {
    for (const top of [0, 12345, 440000, 879560, 10_000_000]) {
      const w = virtualWindow(top, 600, 44, 20000, 10);
      expect(w.end - w.start).toBeLessThanOrEqual(Math.ceil(600 / 44) + 1 + 20);
      expect(w.end).toBeLessThanOrEqual(20000);
      expect(w.offsetTop).toBe(w.start * 44);
    }
  });

  it('clamps past the end so the last rows are rendered', () => {
    const w = virtualWindow(10_000_000, 440, 44, 100, 5);
    expect(w.end).toBe(100);
    expect(w.start).toBe(90 - 5);
  });

  it('handles empty lists and short lists', () => {
    expect(virtualWindow(0, 500, 44, 0)).toEqual({ start: 0, end: 0, offsetTop: 0, totalHeight: 0 });
    const w = virtualWindow(0, 500, 44, 3);
    expect([w.start, w.end]).toEqual([0, 3]);
  });

  it('asks for the next page near the loaded end only when there is more', () => {
    const w = virtualWindow(440 * 44, 440, 44, 500, 10);
    expect(needsMore(w, 500, true, 50)).toBe(true);
    expect(needsMore(w, 500, false, 50)).toBe(false);
    expect(needsMore(virtualWindow(0, 440, 44, 500), 500, true, 50)).toBe(false);
  });

  it('scrolls just enough to reveal a row', () => {
    expect(scrollToReveal(0, 440, 440, 44)).toBe(0);
    expect(scrollToReveal(20, 0, 440, 44)).toBe(21 * 44 - 440);
    expect(scrollToReveal(5, 0, 440, 44)).toBe(0);
  });
});
