import { describe, it, expect } from 'vitest';
import { click, selectAll, moveFocus, retain, focusOnly, EMPTY } from './selection';

const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
const sel = (s: { selected: ReadonlySet<string> }) => [...s.selected].sort();

describe('selection', () => {
  it('focusOnly highlights a row without selecting it; arrows go on from there', () => {
    const s = focusOnly('c');
    expect(sel(s)).toEqual([]);
    expect(s.focus).toBe('c');
    expect(sel(moveFocus(s, ids, 1))).toEqual(['d']);
    expect(sel(click(s, ids, 'e', { shift: true }))).toEqual(['c', 'd', 'e']);
  });

  it('plain click selects only that row and anchors there', () => {
    let s = click(EMPTY, ids, 'b');
    s = click(s, ids, 'd');
    expect(sel(s)).toEqual(['d']);
    expect(s.anchor).toBe('d');
  });

  it('ctrl/cmd click toggles rows', () => {
    let s = click(EMPTY, ids, 'a');
    s = click(s, ids, 'c', { toggle: true });
    s = click(s, ids, 'e', { toggle: true });
    expect(sel(s)).toEqual(['a', 'c', 'e']);
    s = click(s, ids, 'c', { toggle: true });
    expect(sel(s)).toEqual(['a', 'e']);
  });

  it('shift click selects the range from the anchor, both directions, replacing', () => {
    let s = click(EMPTY, ids, 'b');
    s = click(s, ids, 'e', { shift: true });
    expect(sel(s)).toEqual(['b', 'c', 'd', 'e']);
    s = click(s, ids, 'a', { shift: true }); // anchor stays at b
    expect(sel(s)).toEqual(['a', 'b']);
    expect(s.anchor).toBe('b');
  });

  it('ctrl+shift click adds the range to the selection', () => {
    let s = click(EMPTY, ids, 'a');
    s = click(s, ids, 'd', { toggle: true });
    s = click(s, ids, 'f', { shift: true, toggle: true });
    expect(sel(s)).toEqual(['a', 'd', 'e', 'f']);
  });

  it('shift click without an anchor behaves like a click', () => {
    expect(sel(click(EMPTY, ids, 'c', { shift: true }))).toEqual(['c']);
  });

  it('select all keeps the anchor', () => {
    const s = selectAll(ids, click(EMPTY, ids, 'c'));
    expect(sel(s)).toEqual(ids);
    expect(s.anchor).toBe('c');
  });

  it('arrow keys move the focus, clamp at the ends, and shift extends', () => {
    let s = moveFocus(EMPTY, ids, 1);
    expect(s.focus).toBe('a');
    s = moveFocus(s, ids, 1, { shift: true });
    s = moveFocus(s, ids, 1, { shift: true });
    expect(sel(s)).toEqual(['a', 'b', 'c']);
    s = moveFocus(s, ids, 100);
    expect(s.focus).toBe('f');
    expect(sel(s)).toEqual(['f']);
    s = moveFocus(s, ids, -100);
    expect(s.focus).toBe('a');
  });

  it('Home and End without a focus row go to the first and the last row', () => {
    expect(moveFocus(EMPTY, ids, -Infinity).focus).toBe('a');
    expect(moveFocus(EMPTY, ids, Infinity).focus).toBe('f');
    expect(moveFocus(focusOnly('c'), ids, Infinity).focus).toBe('f');
    expect(moveFocus(focusOnly('c'), ids, -Infinity, { shift: true }).selected).toEqual(new Set(['a', 'b', 'c']));
    expect(moveFocus(EMPTY, ids, -1).focus).toBe('f');
    expect(moveFocus(EMPTY, ids, 1).focus).toBe('a');
  });

  it('ctrl+arrow moves the focus without changing the selection', () => {
    let s = click(EMPTY, ids, 'b');
    s = moveFocus(s, ids, 2, { toggle: true });
    expect(s.focus).toBe('d');
    expect(sel(s)).toEqual(['b']);
  });

  it('retain drops vanished ids', () => {
    const s = retain(selectAll(ids), ['a', 'c']);
    expect(sel(s)).toEqual(['a', 'c']);
  });
});
