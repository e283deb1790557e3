import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import {
  monthOf,
  groupByMonth,
  monthLabel,
  monthShort,
  takenLabel,
  monthsByYear,
  tileColumns,
  timelineLayout,
  rowAt,
  visibleRows,
  photosNeeded,
  monthAt,
  monthTop,
  pinnedMonth,
  formatCoordinates,
} from './photos';

const at = (iso: string) => Date.parse(iso + 'Z');

// A browser far west of UTC: a camera time of 02:00 on the 1st is the evening
// before there. The timeline must still show the camera's day and month.
let zone: string | undefined;
beforeAll(() => {
  zone = process.env.TZ;
  process.env.TZ = 'Pacific/Honolulu';
});
afterAll(() => {
  if (zone === undefined) delete process.env.TZ;
  else process.env.TZ = zone;
});

describe('months', () => {
  it('reads the camera clock as UTC: a photo late on the last day stays in its month', () => {
    expect(monthOf(at('2023-07-31T23:59:59'))).toBe('2023-07');
    expect(monthOf(at('2023-08-01T00:00:00'))).toBe('2023-08');
    expect(monthOf(at('1999-12-31T23:30:00'))).toBe('1999-12');
  });

  it('groups loaded photos by month, keeping their order (newest first)', () => {
    const photos = [
      { id: 'a', taken_at: at('2023-08-01T02:00:00') },
      { id: 'b', taken_at: at('2023-07-14T21:30:00') },
      { id: 'c', taken_at: at('2023-07-02T10:00:00') },
      { id: 'd', taken_at: at('2021-12-31T23:30:00') },
    ];
    const g = groupByMonth(photos);
    expect([...g.keys()]).toEqual(['2023-08', '2023-07', '2021-12']);
    expect(g.get('2023-07')!.map((p) => p.id)).toEqual(['b', 'c']);
    expect(groupByMonth([]).size).toBe(0);
  });

  it('labels months and dates in UTC whatever the browser zone', () => {
    expect(monthLabel('2023-08', 'en')).toBe('August 2023');
    expect(monthLabel('2023-08', 'de')).toBe('August 2023');
    expect(monthShort('2023-03', 'en')).toBe('Mar');
    expect(monthLabel('garbage', 'en')).toBe('garbage');
    const s = takenLabel(at('2023-08-01T02:00:00'), 'en');
    expect(s).toContain('August 1, 2023');
    expect(s).toMatch(/2:00\sAM/);
    expect(new Date(at('2023-08-01T02:00:00')).getDate()).toBe(31); // the zone is in effect
  });

  it('groups the scrubber by year', () => {
    const y = monthsByYear([
      { month: '2023-08', count: 1 },
      { month: '2023-07', count: 2 },
      { month: '2021-12', count: 3 },
    ]);
    expect(y.map((x) => [x.year, x.months.map((m) => m.month)])).toEqual([
      ['2023', ['2023-08', '2023-07']],
      ['2021', ['2021-12']],
    ]);
  });
});

describe('timeline layout', () => {
  const months = [
    { month: '2023-08', count: 3 },
    { month: '2023-07', count: 10 },
    { month: '2023-06', count: 0 },
    { month: '2021-12', count: 4 },
  ];

  it('fits as many square tiles as the width takes', () => {
    expect(tileColumns(1000, 130)).toEqual({ cols: 7, tile: 142 });
    expect(tileColumns(100, 130)).toEqual({ cols: 1, tile: 100 });
    expect(tileColumns(0, 130).cols).toBe(1);
  });

  it('makes a header and lines of tiles per month, with tops, heights and photo indices', () => {
    const l = timelineLayout(months, 4, 100, 50);
    expect(l.rows.map((r) => [r.kind, r.month, r.top, r.first, r.count, r.index])).toEqual([
      ['header', '2023-08', 0, 0, 3, 0],
      ['tiles', '2023-08', 50, 0, 3, 0],
      ['header', '2023-07', 150, 0, 10, 3],
      ['tiles', '2023-07', 200, 0, 4, 3],
      ['tiles', '2023-07', 300, 4, 4, 7],
      ['tiles', '2023-07', 400, 8, 2, 11],
      ['header', '2021-12', 500, 0, 4, 13],
      ['tiles', '2021-12', 550, 0, 4, 13],
    ]);
    expect(l.height).toBe(650);
    expect(l.total).toBe(17);
    expect(monthTop(l, '2021-12')).toBe(500);
    expect(monthTop(l, '2023-06')).toBeNull(); // empty months get no header
  });

  it('finds the row under a position by binary search', () => {
    const l = timelineLayout(months, 4, 100, 50);
    expect(rowAt(l.rows, 0)).toBe(0);
    expect(rowAt(l.rows, 49)).toBe(0);
    expect(rowAt(l.rows, 50)).toBe(1);
    expect(rowAt(l.rows, 310)).toBe(4);
    expect(rowAt(l.rows, 10_000)).toBe(7);
    expect(rowAt([], 10)).toBe(0);
    expect(monthAt(l, 0)).toBe('2023-08');
    expect(monthAt(l, 420)).toBe('2023-07');
    expect(monthAt(l, 600)).toBe('2021-12');
  });

  it('renders only the rows in view plus the overscan, and says how many photos they need', () => {
    const l = timelineLayout(months, 4, 100, 50);
    const w = visibleRows(l, 300, 100, 0);
    expect([w.start, w.end, w.offsetTop]).toEqual([4, 6, 300]);
    expect(photosNeeded(l, w)).toBe(13);
    const top = visibleRows(l, 0, 100, 0);
    expect([top.start, top.end]).toEqual([0, 2]);
    expect(photosNeeded(l, top)).toBe(3);
    // Scrolled past the end: clamped to the last screen.
    const end = visibleRows(l, 99_999, 100, 0);
    expect(end.end).toBe(l.rows.length);
    expect(l.rows[end.start].top).toBeLessThanOrEqual(l.height - 100);
    expect(visibleRows(timelineLayout([], 4, 100, 50), 0, 100)).toEqual({ start: 0, end: 0, offsetTop: 0 });
  });

  it('keeps the window small for 5,000 photos anywhere in the timeline', () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      month: `${2019 - Math.floor(i / 12)}-${String(12 - (i % 12)).padStart(2, '0')}`,
      count: i === 59 ? 5000 - 59 * 83 : 83,
    }));
    const { cols, tile } = tileColumns(1000, 132);
    const l = timelineLayout(many, cols, tile, 52);
    expect(l.total).toBe(5000);
    for (const y of [0, l.height / 3, l.height / 2, l.height]) {
      const w = visibleRows(l, y, 800, 600);
      const tiles = l.rows.slice(w.start, w.end).reduce((n, r) => n + (r.kind === 'tiles' ? r.count : 0), 0);
      expect(tiles).toBeLessThan(200);
      expect(tiles).toBeGreaterThan(0);
    }
    // At the bottom the last month (the oldest) is in the window.
    const last = visibleRows(l, l.height, 800, 0);
    expect(l.rows[last.end - 1].month).toBe(many[59].month);
    expect(photosNeeded(l, last)).toBe(5000);
  });
});

describe('places', () => {
  it('formats coordinates with hemispheres', () => {
    expect(formatCoordinates(52.5166667, 13.4, 'en')).toBe('52.5167° N, 13.4000° E');
    expect(formatCoordinates(-33.8688, -151.2093, 'de')).toBe('33,8688° S, 151,2093° W');
  });
});

describe('the pinned month', () => {
  it('names the month whose header scrolled away while its photos fill the top', () => {
    const l = timelineLayout(
      [
        { month: '2023-08', count: 3 },
        { month: '2023-07', count: 10 },
      ],
      4,
      100,
      50,
    );
    expect(pinnedMonth(l, 0)).toBeNull(); // the header is at the top
    expect(pinnedMonth(l, 10)).toBe('2023-08'); // its header is partly scrolled away
    expect(pinnedMonth(l, 150)).toBeNull(); // the next header is at the top
    expect(pinnedMonth(l, 320)).toBe('2023-07');
  });
});
