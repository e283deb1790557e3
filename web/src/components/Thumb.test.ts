import { describe, it, expect, afterEach, vi } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import { tick } from 'svelte';
import Thumb from './Thumb.svelte';
import { forgetThumbFailures } from '../lib/thumbnails';

// An IntersectionObserver the test scrolls: `scrollIntoView()` reports every
// observed element as on screen.
const observed = new Set<Element>();
let report: ((entries: { target: Element; isIntersecting: boolean }[]) => void) | null = null;
class FakeObserver {
  constructor(cb: (entries: { target: Element; isIntersecting: boolean }[]) => void) {
    report = cb;
  }
  observe(el: Element) {
    observed.add(el);
  }
  unobserve(el: Element) {
    observed.delete(el);
  }
  disconnect() {}
}
vi.stubGlobal('IntersectionObserver', FakeObserver);
async function scrollIntoView() {
  report?.([...observed].map((target) => ({ target, isIntersecting: true })));
  await tick();
}

afterEach(() => {
  cleanup();
  forgetThumbFailures();
});

const png = { kind: 'file', mime: 'image/png', name: 'pic.png' };

describe('Thumb', () => {
  it('shows the icon alone without a thumbnail URL', () => {
    const { container } = render(Thumb, { props: { node: { kind: 'file', mime: 'text/plain', name: 'a.txt' } } });
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('.file-icon')).not.toBeNull();
  });

  it('loads the thumbnail lazily and replaces the icon once it has loaded', async () => {
    const { container } = render(Thumb, { props: { node: png, src: '/thumb/1?size=small&v=a' } });
    await tick();
    expect(container.querySelector('img')).toBeNull(); // not on screen yet
    await scrollIntoView();
    const img = container.querySelector('img') as HTMLImageElement;
    expect(img.getAttribute('src')).toBe('/thumb/1?size=small&v=a');
    expect(img.getAttribute('loading')).toBe('lazy');
    expect(img.getAttribute('alt')).toBe('');
    expect(container.querySelector('.file-icon')).not.toBeNull(); // until it has loaded
    await fireEvent.load(img);
    expect(container.querySelector('.file-icon')).toBeNull();
  });

  it('falls back to the icon on an error and does not ask again for that URL', async () => {
    const src = '/thumb/2?size=small&v=b';
    const first = render(Thumb, { props: { node: png, src } });
    await scrollIntoView();
    await fireEvent.error(first.container.querySelector('img') as HTMLImageElement);
    expect(first.container.querySelector('img')).toBeNull();
    expect(first.container.querySelector('.file-icon')).not.toBeNull();
    // The row scrolls away and back: a new instance, no new request.
    first.unmount();
    const again = render(Thumb, { props: { node: png, src } });
    await scrollIntoView();
    expect(again.container.querySelector('img')).toBeNull();
    // Another version of the file is another URL: asked for.
    const next = render(Thumb, { props: { node: png, src: '/thumb/2?size=small&v=c' } });
    await scrollIntoView();
    expect(next.container.querySelector('img')).not.toBeNull();
  });
});

describe('Thumb without an icon', () => {
  it('shows no icon with icon={0} (the box stands in)', () => {
    const { container } = render(Thumb, { props: { node: { kind: 'file', mime: 'image/jpeg', name: 'p.jpg' }, icon: 0, big: true } });
    expect(container.querySelector('.file-icon')).toBeNull();
  });
});
