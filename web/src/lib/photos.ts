// The photos timeline's arithmetic: months and dates (the camera's wall clock,
// which the server hands over read as UTC, so every date here is formatted in
// UTC: a photo taken at 23:30 stays on its day wherever the browser is), the
// grouping of loaded photos by month, and the virtual layout. The layout is
// known before any photo has loaded, from /photos/months alone: each month
// is a header row and ceil(count / cols) rows of square tiles, so the
// scrollbar is right from the start and a jump to any month is a scrollTop.
// Rows have two heights (headers, tiles): the window is found by binary
// search over the rows' tops instead of a division.

export interface MonthCount {
  /** YYYY-MM */
  month: string;
  count: number;
}

/** The month (YYYY-MM) of a time taken from the camera's clock (read as UTC). */
export function monthOf(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
}

/**
 * Loaded photos by month, in the order given (newest first), months in the
 * order first seen. A month's j-th photo is the tile at position j of that
 * month in the layout.
 */
export function groupByMonth<T extends { taken_at: number }>(items: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const it of items) {
    const m = monthOf(it.taken_at);
    let list = out.get(m);
    if (!list) out.set(m, (list = []));
    list.push(it);
  }
  return out;
}

// Formatters are made once per locale and style: a screen of tiles formats
// a hundred dates on every scroll step.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(locale: string, style: 'month' | 'short' | 'taken'): Intl.DateTimeFormat {
  const key = `${locale}\u0000${style}`;
  let f = formatters.get(key);
  if (!f) {
    const opts: Intl.DateTimeFormatOptions =
      style === 'month'
        ? { year: 'numeric', month: 'long', timeZone: 'UTC' }
        : style === 'short'
          ? { month: 'short', timeZone: 'UTC' }
          : { dateStyle: 'full', timeStyle: 'short', timeZone: 'UTC' };
    f = new Intl.DateTimeFormat(locale, opts);
    formatters.set(key, f);
  }
  return f;
}

/** "July 2023" for "2023-07", in the locale. */
export function monthLabel(month: string, locale: string): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  return formatter(locale, 'month').format(Date.UTC(y, m - 1, 1));
}

/** "Jul" for "2023-07": the scrubber's short label. */
export function monthShort(month: string, locale: string): string {
  const [y, m] = month.split('-').map(Number);
  if (!y || !m) return month;
  return formatter(locale, 'short').format(Date.UTC(y, m - 1, 1));
}

/** When a photo was taken, as the camera's clock said (no time zone shift). */
export function takenLabel(ms: number, locale: string): string {
  return formatter(locale, 'taken').format(new Date(ms));
}

/** Months grouped by year (newest first, as given): the scrubber's sections. */
export function monthsByYear(months: readonly MonthCount[]): { year: string; months: MonthCount[] }[] {
  const out: { year: string; months: MonthCount[] }[] = [];
  for (const m of months) {
    const year = m.month.slice(0, 4);
    const last = out[out.length - 1];
    if (last && last.year === year) last.months.push(m);
    else out.push({ year, months: [m] });
  }
  return out;
}

/** How many square tiles fit a line of `width` px (at least `minTile` each), and their size. */
export function tileColumns(width: number, minTile: number): { cols: number; tile: number } {
  const w = Math.max(0, Math.floor(width));
  const cols = Math.max(1, Math.floor(w / Math.max(1, minTile)));
  return { cols, tile: Math.max(1, Math.floor(w / cols)) };
}

export interface TimelineRow {
  kind: 'header' | 'tiles';
  month: string;
  /** px from the top of the timeline */
  top: number;
  height: number;
  /** tiles: the position within the month of the row's first tile */
  first: number;
  /** tiles: how many tiles the row holds; a header: the month's photo count */
  count: number;
  /** tiles: the timeline-wide index (newest first) of the row's first photo */
  index: number;
}

export interface TimelineLayout {
  rows: TimelineRow[];
  /** px of the whole timeline */
  height: number;
  cols: number;
  tile: number;
  /** photos in all months */
  total: number;
}

export function timelineLayout(months: readonly MonthCount[], cols: number, tile: number, header: number): TimelineLayout {
  const rows: TimelineRow[] = [];
  const c = Math.max(1, cols);
  let top = 0;
  let index = 0;
  for (const { month, count } of months) {
    if (count <= 0) continue;
    rows.push({ kind: 'header', month, top, height: header, first: 0, count, index });
    top += header;
    for (let first = 0; first < count; first += c) {
      rows.push({ kind: 'tiles', month, top, height: tile, first, count: Math.min(c, count - first), index: index + first });
      top += tile;
    }
    index += count;
  }
  return { rows, height: top, cols: c, tile, total: index };
}

/** The index of the row covering `y` px (the last one for y past the end; 0 for none). */
export function rowAt(rows: readonly TimelineRow[], y: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (rows[mid].top <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface RowWindow {
  /** first rendered row */
  start: number;
  /** one past the last rendered row */
  end: number;
  /** px above the first rendered row */
  offsetTop: number;
}

/** The rows to render for a scroll position: those in view plus `overscan` px above and below. */
export function visibleRows(layout: TimelineLayout, scrollTop: number, viewportHeight: number, overscan = 400): RowWindow {
  const { rows } = layout;
  if (rows.length === 0) return { start: 0, end: 0, offsetTop: 0 };
  const top = Math.min(Math.max(0, scrollTop), Math.max(0, layout.height - viewportHeight));
  const start = rowAt(rows, Math.max(0, top - overscan));
  const end = Math.min(rows.length, rowAt(rows, top + Math.max(0, viewportHeight) + overscan) + 1);
  return { start, end, offsetTop: rows[start].top };
}

/** How many photos (from the newest) must be loaded to fill the rendered rows. */
export function photosNeeded(layout: TimelineLayout, win: RowWindow): number {
  let need = 0;
  for (let i = win.start; i < win.end; i++) {
    const r = layout.rows[i];
    need = Math.max(need, r.kind === 'tiles' ? r.index + r.count : r.index);
  }
  return need;
}

/** The month shown at the top of the view (the scrubber marks it). */
export function monthAt(layout: TimelineLayout, scrollTop: number): string | null {
  if (layout.rows.length === 0) return null;
  return layout.rows[rowAt(layout.rows, Math.max(0, scrollTop) + 1)].month;
}

/**
 * The month whose header has scrolled out above the view while its photos
 * still fill the top of it (the timeline pins its name there), or null when
 * a header is at the top itself.
 */
export function pinnedMonth(layout: TimelineLayout, scrollTop: number): string | null {
  if (layout.rows.length === 0 || scrollTop <= 0) return null;
  const r = layout.rows[rowAt(layout.rows, scrollTop)];
  return r.kind === 'header' && r.top >= scrollTop ? null : r.month;
}

/** The scrollTop of a month's header (null: no such month). */
export function monthTop(layout: TimelineLayout, month: string): number | null {
  const r = layout.rows.find((x) => x.kind === 'header' && x.month === month);
  return r ? r.top : null;
}

/** "52.5167° N, 13.4000° E" */
export function formatCoordinates(lat: number, lon: number, locale: string): string {
  const f = new Intl.NumberFormat(locale, { minimumFractionDigits: 4, maximumFractionDigits: 4 });
  return `${f.format(Math.abs(lat))}° ${lat < 0 ? 'S' : 'N'}, ${f.format(Math.abs(lon))}° ${lon < 0 ? 'W' : 'E'}`;
}
