import { describe, it, expect, vi, afterEach, beforeAll, afterAll } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import { tick } from 'svelte';
import PhotoTimeline from './PhotoTimeline.svelte';
import type { Photo } from '../lib/services/photos';

// Every tile is on screen as soon as it is observed (happy-dom has no layout).
class SeeAll {
  constructor(private readonly cb: (entries: { target: Element; isIntersecting: boolean }[]) => void) {}
  observe(target: Element) {
    queueMicrotask(() => this.cb([{ target, isIntersecting: true }]));
  }
  unobserve() {}
  disconnect() {}
}
vi.stubGlobal('IntersectionObserver', SeeAll);

// happy-dom lays nothing out: the timeline's viewport is 1000×800 here.
const sizes = { clientWidth: 1000, clientHeight: 800 };
const saved: Record<string, PropertyDescriptor | undefined> = {};
beforeAll(() => {
  for (const [k, v] of Object.entries(sizes)) {
    saved[k] = Object.getOwnPropertyDescriptor(HTMLElement.prototype, k);
    Object.defineProperty(HTMLElement.prototype, k, { configurable: true, get: () => v });
  }
});
afterAll(() => {
  for (const k of Object.keys(sizes)) {
    const d = saved[k];
    if (d) Object.defineProperty(HTMLElement.prototype, k, d);
    else delete (HTMLElement.prototype as unknown as Record<string, unknown>)[k];
  }
});
afterEach(cleanup);

// 5,000 photos over 60 months (2019-12 back to 2015-01), newest first.
const MONTHS = Array.from({ length: 60 }, (_, i) => ({
  month: `${2019 - Math.floor(i / 12)}-${String(12 - (i % 12)).padStart(2, '0')}`,
  count: i < 20 ? 84 : 83,
}));
const TOTAL = MONTHS.reduce((n, m) => n + m.count, 0);

function photosFor(n: number): Photo[] {
  const out: Photo[] = [];
  for (const m of MONTHS) {
    const [y, mo] = m.month.split('-').map(Number);
    for (let j = 0; j < m.count && out.length < n; j++) {
      out.push({
        node: {
          id: `p${out.length}`,
          parent_id: 'f',
          name: `p${out.length}.jpg`,
          kind: 'file',
          size: 1,
          mime: 'image/jpeg',
          modified: 0,
          created: 0,
          etag: `"${out.length}"`,
          favorite: false,
        },
        taken_at: Date.UTC(y, mo - 1, 28 - (j % 27), 12),
        taken_exact: true,
        width: 64,
        height: 48,
        orientation: 1,
        camera: '',
        lat: null,
        lon: null,
      });
    }
  }
  return out;
}

const headers = (c: HTMLElement) => [...c.querySelectorAll('[data-testid=month-header]')].map((h) => (h as HTMLElement).dataset.month);

describe('PhotoTimeline', () => {
  it('shows month headers in order and only the rows in view, asking for more photos', async () => {
    const onmore = vi.fn();
    const { container } = render(PhotoTimeline, {
      props: { months: MONTHS, photos: photosFor(500), hasMore: true, loading: false, thumb: () => null, onmore, onopen: vi.fn() },
    });
    await tick();
    expect(TOTAL).toBe(5000);
    const hs = headers(container);
    expect(hs[0]).toBe('2019-12');
    expect(hs).toEqual(MONTHS.slice(0, hs.length).map((m) => m.month));
    expect(container.querySelector('[data-testid=month-header]')?.textContent).toContain('December 2019');
    const tiles = container.querySelectorAll('[data-testid=photo-tile]').length;
    expect(tiles).toBeGreaterThan(0);
    expect(tiles).toBeLessThan(200);
    // 500 loaded cover the first screen: nothing asked yet.
    expect(onmore).not.toHaveBeenCalled();
    // The spacer holds the whole timeline's height.
    const spacer = container.querySelector('.spacer') as HTMLElement;
    expect(parseInt(spacer.style.height)).toBeGreaterThan(5000 / 7 * 100);
  });

  it('jumps to a month from the scrubber; its rows are placeholders until the photos arrive', async () => {
    const onmore = vi.fn();
    const { container, getByRole } = render(PhotoTimeline, {
      props: { months: MONTHS, photos: photosFor(500), hasMore: true, loading: false, thumb: () => null, onmore, onopen: vi.fn() },
    });
    await tick();
    const viewport = container.querySelector('[data-testid=photo-timeline]') as HTMLElement;
    await fireEvent.click(getByRole('button', { name: 'January 2015, 83 photos' }));
    await tick();
    expect(viewport.scrollTop).toBeGreaterThan(0);
    expect(headers(container)).toContain('2015-01');
    expect(headers(container)).not.toContain('2019-12');
    expect(container.querySelectorAll('.placeholder').length).toBeGreaterThan(0);
    expect(container.querySelectorAll('.tile').length).toBeLessThan(200);
    expect(onmore).toHaveBeenCalled();
    expect(getByRole('button', { name: 'January 2015, 83 photos' }).getAttribute('aria-current')).toBe('true');
  });

  it('opens a photo', async () => {
    const onopen = vi.fn();
    const photos = photosFor(30);
    const { container } = render(PhotoTimeline, {
      props: { months: MONTHS, photos, hasMore: false, loading: false, thumb: () => '/t.webp', onmore: vi.fn(), onopen },
    });
    await tick();
    const tile = container.querySelector('[data-testid=photo-tile][data-id=p3]') as HTMLElement;
    await fireEvent.click(tile);
    expect(onopen).toHaveBeenCalledWith(photos[3]);
    expect(tile.getAttribute('aria-label')).toMatch(/^p3\.jpg, .*December \d+, 2019/);
  });
});

describe('PhotoTimeline thumbnails while flinging', () => {
  it('gives the tiles a fling passes no thumbnail until it settles; those shown before keep theirs', async () => {
    const { container } = render(PhotoTimeline, {
      props: {
        months: MONTHS,
        photos: photosFor(5000),
        hasMore: false,
        loading: false,
        thumb: (n: { id: string }) => `/thumb/${n.id}`,
        onmore: vi.fn(),
        onopen: vi.fn(),
      },
    });
    await tick();
    await tick();
    const viewport = container.querySelector('[data-testid=photo-timeline]') as HTMLElement;
    const imgs = () => [...container.querySelectorAll('[data-testid=photo-tile] img')].map((i) => i.getAttribute('src'));
    const ids = () => [...container.querySelectorAll('[data-testid=photo-tile]')].map((t) => (t as HTMLElement).dataset.id);
    expect(imgs().length).toBeGreaterThan(0); // at rest: thumbnails
    const top = ids();
    // A jump far down: the tiles are there, their thumbnails are not asked for yet.
    viewport.scrollTop = 40_000;
    await fireEvent.scroll(viewport);
    await tick();
    const below = ids();
    expect(below.length).toBeGreaterThan(0);
    expect(below.some((id) => top.includes(id))).toBe(false);
    expect(imgs()).toEqual([]);
    await new Promise((r) => setTimeout(r, 200));
    await tick();
    await tick();
    expect(imgs().length).toBe(below.length);
    expect(imgs()[0]).toBe(`/thumb/${below[0]}`);
    // Back to the top in one jump: the thumbnails handed out before show at once.
    viewport.scrollTop = 0;
    await fireEvent.scroll(viewport);
    await tick();
    await tick();
    expect(imgs().length).toBe(top.length);
  });
});
