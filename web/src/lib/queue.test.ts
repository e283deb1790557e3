import { describe, it, expect } from 'vitest';
import { nextIndex, previousStep, moveItem, indexAfterMove, removeItem, RESTART_AFTER_S } from './queue';

describe('queue rules', () => {
  it('next goes one on and stops at the end', () => {
    expect(nextIndex(3, 0)).toBe(1);
    expect(nextIndex(3, 1)).toBe(2);
    expect(nextIndex(3, 2)).toBeNull();
    expect(nextIndex(0, -1)).toBeNull();
    expect(nextIndex(2, -1)).toBe(0);
  });

  it('previous restarts a track that has played a while, else goes one back', () => {
    expect(previousStep(3, 2, 0.5)).toEqual({ index: 1, restart: false });
    expect(previousStep(3, 2, RESTART_AFTER_S + 0.1)).toEqual({ index: 2, restart: true });
    expect(previousStep(3, 0, 0)).toEqual({ index: 0, restart: true });
    expect(previousStep(0, -1, 0)).toBeNull();
    expect(previousStep(3, 5, 0)).toBeNull();
  });

  it('moves an item and follows the playing one', () => {
    expect(moveItem(['a', 'b', 'c', 'd'], 0, 2)).toEqual(['b', 'c', 'a', 'd']);
    expect(moveItem(['a', 'b', 'c', 'd'], 3, 0)).toEqual(['d', 'a', 'b', 'c']);
    expect(moveItem(['a', 'b'], 1, 9)).toEqual(['a', 'b']);
    expect(moveItem(['a', 'b'], 5, 0)).toEqual(['a', 'b']);
    const items = ['a', 'b', 'c', 'd'];
    for (const [from, to] of [
      [0, 2],
      [3, 0],
      [1, 1],
      [2, 3],
      [1, 3],
    ]) {
      for (let cur = 0; cur < items.length; cur++) {
        const moved = moveItem(items, from, to);
        expect(moved[indexAfterMove(cur, from, to)]).toBe(items[cur]);
      }
    }
  });

  it('removes an item; removing the playing one hands over to the next (or the new last)', () => {
    expect(removeItem(['a', 'b', 'c'], 0, 2)).toEqual({ items: ['b', 'c'], current: 1, removedCurrent: false });
    expect(removeItem(['a', 'b', 'c'], 2, 0)).toEqual({ items: ['a', 'b'], current: 0, removedCurrent: false });
    expect(removeItem(['a', 'b', 'c'], 1, 1)).toEqual({ items: ['a', 'c'], current: 1, removedCurrent: true });
    expect(removeItem(['a', 'b', 'c'], 2, 2)).toEqual({ items: ['a', 'b'], current: 1, removedCurrent: true });
    expect(removeItem(['a'], 0, 0)).toEqual({ items: [], current: -1, removedCurrent: true });
    expect(removeItem(['a'], 4, 0)).toEqual({ items: ['a'], current: 0, removedCurrent: false });
  });
});
