// Window math of the virtualized list: which rows of a fixed-row-height list
// are in the DOM for a scroll position. Only [start, end) is rendered; a
// spacer of `offsetTop` before and `totalHeight - offsetTop - rendered` after
// keeps the scrollbar honest.
export interface VirtualWindow {
  /** first rendered index */
  start: number;
  /** one past the last rendered index */
  end: number;
  /** pixels above the first rendered row */
  offsetTop: number;
  /** pixels of the whole list */
  totalHeight: number;
}

export function virtualWindow(
  scrollTop: number,
  viewportHeight: number,
  rowHeight: number,
  count: number,
  overscan = 8,
): VirtualWindow {
  const totalHeight = Math.max(0, count * rowHeight);
  if (count <= 0 || rowHeight <= 0) return { start: 0, end: 0, offsetTop: 0, totalHeight };
  const top = Math.min(Math.max(0, scrollTop), Math.max(0, totalHeight - viewportHeight));
  const first = Math.floor(top / rowHeight);
  const visible = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + visible + overscan);
  return { start, end, offsetTop: start * rowHeight, totalHeight };
}

/** True when the rendered window comes within `threshold` rows of the loaded end. */
export function needsMore(win: VirtualWindow, loaded: number, hasMore: boolean, threshold = 50): boolean {
  return hasMore && win.end + threshold >= loaded;
}

/** The scrollTop that brings `index` fully into view (unchanged when it is). */
export function scrollToReveal(index: number, scrollTop: number, viewportHeight: number, rowHeight: number): number {
  const top = index * rowHeight;
  const bottom = top + rowHeight;
  if (top < scrollTop) return top;
  if (bottom > scrollTop + viewportHeight) return bottom - viewportHeight;
  return scrollTop;
}
