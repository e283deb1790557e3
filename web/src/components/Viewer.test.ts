import { describe, it, expect, vi, afterEach, beforeAll } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import Viewer from './Viewer.svelte';
import type { Node } from '../lib/api/schema.gen';

afterEach(cleanup);

beforeAll(() => {
  // jsdom has <dialog> without the modal methods.
  const proto = HTMLDialogElement.prototype as unknown as Record<string, unknown>;
  proto.showModal ??= function (this: HTMLDialogElement) {
    this.setAttribute('open', '');
  };
  proto.close ??= function (this: HTMLDialogElement) {
    this.removeAttribute('open');
  };
});

const file = (id: string, name: string, mime: string): Node =>
  ({ id, name, kind: 'file', mime, size: 10, etag: '"e"', modified: '2026-01-01T00:00:00Z' }) as unknown as Node;

const props = (nodes: Node[], extra: Record<string, unknown> = {}) => ({
  nodes,
  index: 0,
  src: (id: string) => `/content/${id}`,
  loadText: vi.fn(async () => ({ text: 'hello', truncated: false })),
  ondownload: vi.fn(),
  onnavigate: vi.fn(),
  onclose: vi.fn(),
  ...extra,
});

describe('Viewer', () => {
  it('shows an original photo when no preview picture is given', () => {
    const { container } = render(Viewer, { props: props([file('p1', 'a.jpg', 'image/jpeg')]) });
    expect(container.querySelector('img')?.getAttribute('src')).toBe('/content/p1');
  });

  it('shows the preview picture in the original’s place, and the original when it fails', async () => {
    const { container } = render(Viewer, {
      props: props([file('p1', 'a.jpg', 'image/jpeg')], { picture: (n: Node) => `/thumb/${n.id}`, counted: true }),
    });
    const img = container.querySelector('img')!;
    expect(img.getAttribute('src')).toBe('/thumb/p1');
    // A picture costs no download: no note.
    expect(container.querySelector('[data-testid="viewer-counted"]')).toBeNull();
    await fireEvent.error(img);
    expect(container.querySelector('img')?.getAttribute('src')).toBe('/content/p1');
  });

  it('starts the next photo from its preview even when this one fell back to its original', async () => {
    const nodes = [file('p1', 'a.png', 'image/png'), file('p2', 'b.jpg', 'image/jpeg')];
    const { container, rerender } = render(Viewer, {
      props: props(nodes, { picture: (n: Node) => `/thumb/${n.id}`, counted: true }),
    });
    await fireEvent.error(container.querySelector('img')!);
    expect(container.querySelector('img')?.getAttribute('src')).toBe('/content/p1');
    // Every src the next photo's <img> ever had: a browser starts fetching
    // the first one at once (the original would take a download).
    const seen: string[] = [];
    const watch = new MutationObserver((records) => {
      for (const r of records) if (r.oldValue) seen.push(r.oldValue);
    });
    watch.observe(container, { subtree: true, attributes: true, attributeFilter: ['src'], attributeOldValue: true });
    await rerender(props(nodes, { index: 1, picture: (n: Node) => `/thumb/${n.id}`, counted: true }));
    for (const r of watch.takeRecords()) if (r.oldValue) seen.push(r.oldValue);
    watch.disconnect();
    expect(container.querySelector('img')?.getAttribute('src')).toBe('/thumb/p2');
    expect(seen).not.toContain('/content/p2');
  });

  it('says when viewing fetches the bytes and counts as a download', () => {
    const counted = render(Viewer, { props: props([file('t1', 'notes.txt', 'text/plain')], { counted: true }) });
    expect(counted.getByTestId('viewer-counted').textContent).toContain('counts as one download');
    cleanup();
    const free = render(Viewer, { props: props([file('t1', 'notes.txt', 'text/plain')]) });
    expect(free.queryByTestId('viewer-counted')).toBeNull();
  });
});
