// The play queue's rules, without state: what "next" and "previous" lead to,
// and how a list changes when an item moves or leaves. The player
// (state/player.svelte.ts) and the playlist editor both use them.

/** A previous press this far into a track (seconds) starts it again instead. */
export const RESTART_AFTER_S = 3;

/** The index after `index` in a queue of `length`: null at the end (or for an empty queue). */
export function nextIndex(length: number, index: number): number | null {
  if (length <= 0) return null;
  const i = index + 1;
  return i >= 0 && i < length ? i : null;
}

/**
 * What "previous" does at `position` seconds into track `index`: start the
 * track again (past the first seconds, or on the first track) or go to the
 * one before.
 */
export function previousStep(length: number, index: number, position: number): { index: number; restart: boolean } | null {
  if (length <= 0 || index < 0 || index >= length) return null;
  if (position > RESTART_AFTER_S || index === 0) return { index, restart: true };
  return { index: index - 1, restart: false };
}

/** A copy of `items` with the item at `from` moved to `to` (both clamped). */
export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  const out = items.slice();
  if (from < 0 || from >= out.length) return out;
  const dest = Math.max(0, Math.min(out.length - 1, to));
  const [it] = out.splice(from, 1);
  out.splice(dest, 0, it);
  return out;
}

/** Where the playing item (`current`) is after moving `from` to `to`. */
export function indexAfterMove(current: number, from: number, to: number): number {
  if (current === from) return to;
  if (from < current && to >= current) return current - 1;
  if (from > current && to <= current) return current + 1;
  return current;
}

/**
 * Removes the item at `at`; returns the list and where the playing item is
 * now (`current`), or, when the playing item itself left, the one that takes
 * its place (-1 when none is left).
 */
export function removeItem<T>(items: readonly T[], at: number, current: number): { items: T[]; current: number; removedCurrent: boolean } {
  if (at < 0 || at >= items.length) return { items: items.slice(), current, removedCurrent: false };
  const out = items.slice();
  out.splice(at, 1);
  if (at < current) return { items: out, current: current - 1, removedCurrent: false };
  if (at > current) return { items: out, current, removedCurrent: false };
  return { items: out, current: out.length === 0 ? -1 : Math.min(at, out.length - 1), removedCurrent: true };
}
