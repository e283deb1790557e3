import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, fireEvent, cleanup } from '@testing-library/svelte';
import { tick } from 'svelte';
import FileTable from './FileTable.svelte';
import { Selection } from '../lib/state/selection.svelte';
import type { Node } from '../lib/api/schema.gen';

const nodes = (n: number): Node[] =>
  Array.from({ length: n }, (_, i) => ({
    id: `id${i}`,
    parent_id: 'root',
    name: `file-${String(i).padStart(5, '0')}.txt`,
    kind: 'file',
    size: i,
    mime: 'text/plain',
    modified: 0,
    created: 0,
    etag: '"e"',
    favorite: false,
  }));

function setup(items: Node[], hasMore = false) {
  const selection = new Selection();
  const props = {
    items,
    hasMore,
    loading: false,
    sort: 'name' as const,
    order: 'asc' as const,
    selection,
    onsort: vi.fn(),
    onopen: vi.fn(),
    onmore: vi.fn(),
    oncontext: vi.fn(),
    onrename: vi.fn(),
    onkeyaction: vi.fn(),
  };
  const r = render(FileTable, { props });
  return { ...r, props, selection };
}

afterEach(cleanup);

describe('FileTable', () => {
  it('keeps the DOM row count bounded for a 20,000-entry folder', () => {
    const { container } = setup(nodes(20000));
    const rows = container.querySelectorAll('[role=option]');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(60);
    const spacer = container.querySelector('.spacer') as HTMLElement;
    expect(spacer.style.height).toBe(`${20000 * 44}px`);
  });

  it('asks for the next page when the loaded end is near', async () => {
    const { props } = setup(nodes(20), true);
    await tick();
    expect(props.onmore).toHaveBeenCalled();
  });

  it('selects with click, shift-range and ctrl-toggle', async () => {
    const { container, selection } = setup(nodes(10));
    const row = (i: number) => container.querySelector(`[data-name="file-0000${i}.txt"]`) as HTMLElement;
    await fireEvent.click(row(2));
    await fireEvent.click(row(5), { shiftKey: true });
    expect(selection.ids().sort()).toEqual(['id2', 'id3', 'id4', 'id5']);
    await fireEvent.click(row(3), { ctrlKey: true });
    expect(selection.ids().sort()).toEqual(['id2', 'id4', 'id5']);
    expect(row(4).getAttribute('aria-selected')).toBe('true');
    expect(row(3).getAttribute('aria-selected')).toBe('false');
  });

  it('maps keys: Ctrl+A, arrows, Enter, Delete, F2', async () => {
    const { getByTestId, selection, props } = setup(nodes(5));
    const list = getByTestId('file-list');
    await fireEvent.keyDown(list, { key: 'a', ctrlKey: true });
    expect(selection.count).toBe(5);
    await fireEvent.keyDown(list, { key: 'ArrowDown' });
    expect(selection.ids()).toHaveLength(1);
    await fireEvent.keyDown(list, { key: 'Enter' });
    expect(props.onopen).toHaveBeenCalledTimes(1);
    await fireEvent.keyDown(list, { key: 'Delete' });
    await fireEvent.keyDown(list, { key: 'F2' });
    expect(props.onkeyaction.mock.calls.map((c) => c[0])).toEqual(['delete', 'rename']);
  });

  it('keeps the shortcuts working after a row checkbox is ticked', async () => {
    const { container, selection, props, getByTestId } = setup(nodes(5));
    const box = container.querySelector('[data-name="file-00002.txt"] input[type=checkbox]') as HTMLInputElement;
    await fireEvent.click(box);
    expect(selection.ids()).toEqual(['id2']);
    expect(document.activeElement).toBe(getByTestId('file-list'));
    // Even with the focus left on the checkbox, its keys reach the list.
    for (const key of ['Escape', 'F2', 'Delete']) await fireEvent.keyDown(box, { key });
    expect(props.onkeyaction.mock.calls.map((c) => c[0])).toEqual(['escape', 'rename', 'delete']);
  });

  it('sets the virtual height and offset through the CSSOM, never a style attribute in markup', () => {
    const { container } = setup(nodes(100));
    const row = container.querySelector('[role=option]') as HTMLElement;
    expect(row.getAttribute('style')).toBeNull();
    expect((container.querySelector('.rows') as HTMLElement).style.transform).toBe('translateY(0px)');
  });

  it('sorts by a column header', async () => {
    const { getByRole, props } = setup(nodes(3));
    await fireEvent.click(getByRole('button', { name: /Sort by Size/ }));
    expect(props.onsort).toHaveBeenCalledWith('size');
  });
});

describe('FileTable as a grid', () => {
  const media = (n: number): Node[] =>
    nodes(n).map((node, i) => (i % 2 === 0 ? { ...node, name: `pic-${i}.png`, mime: 'image/png', etag: `"e${i}"` } : node));

  function grid(items: Node[], width = 800, layout: 'grid' | 'list' = 'grid') {
    // The viewport's size as a browser would lay it out.
    vi.spyOn(HTMLElement.prototype, 'clientWidth', 'get').mockReturnValue(width);
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockReturnValue(600);
    const selection = new Selection();
    const props = {
      items,
      hasMore: false,
      loading: false,
      sort: 'name' as const,
      order: 'asc' as const,
      selection,
      layout,
      thumb: (n: Node) => (n.mime.startsWith('image/') ? `/thumb/${n.id}?size=small&v=${n.etag.replaceAll('"', '')}` : null),
      onsort: vi.fn(),
      onopen: vi.fn(),
      onmore: vi.fn(),
      oncontext: vi.fn(),
      onrename: vi.fn(),
      onkeyaction: vi.fn(),
    };
    const r = render(FileTable, { props });
    return { ...r, props, selection };
  }

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it('shows tiles in lines as wide as the list, and keeps the DOM bounded', async () => {
    const { container } = grid(media(20000));
    await tick();
    const tiles = container.querySelectorAll('[role=option].tile');
    expect(tiles.length).toBeGreaterThan(0);
    expect(tiles.length).toBeLessThan(60);
    // 800 px fit five tiles of at least 160 px: 4,000 lines of 188 px.
    const spacer = container.querySelector('.spacer') as HTMLElement;
    expect(spacer.style.height).toBe(`${4000 * 188}px`);
    expect((container.querySelector('.rows') as HTMLElement).style.getPropertyValue('--cols')).toBe('5');
    expect(tiles.length % 5).toBe(0);
  });

  it('moves by a tile with left and right and by a line with up and down', async () => {
    const { getByTestId, selection, props } = grid(media(30));
    await tick();
    const list = getByTestId('file-list');
    await fireEvent.keyDown(list, { key: 'ArrowRight' });
    expect(selection.ids()).toEqual(['id0']);
    await fireEvent.keyDown(list, { key: 'ArrowRight' });
    expect(selection.ids()).toEqual(['id1']);
    await fireEvent.keyDown(list, { key: 'ArrowDown' });
    expect(selection.ids()).toEqual(['id6']);
    await fireEvent.keyDown(list, { key: 'ArrowLeft' });
    expect(selection.ids()).toEqual(['id5']);
    await fireEvent.keyDown(list, { key: 'ArrowUp', shiftKey: true });
    expect(selection.ids().sort()).toEqual(['id0', 'id1', 'id2', 'id3', 'id4', 'id5']);
    await fireEvent.keyDown(list, { key: 'Enter' });
    expect(props.onopen).toHaveBeenCalledWith(expect.objectContaining({ id: 'id0' }));
    expect(list.getAttribute('aria-activedescendant')).toMatch(/-id0$/);
  });

  it('selects and opens tiles like rows', async () => {
    const { container, selection, props } = grid(media(10));
    await tick();
    const tile = (name: string) => container.querySelector(`[role=option][data-name="${name}"]`) as HTMLElement;
    await fireEvent.click(tile('pic-2.png'));
    await fireEvent.click(tile('file-00003.txt'), { ctrlKey: true });
    expect(selection.ids().sort()).toEqual(['id2', 'id3']);
    expect(tile('pic-2.png').getAttribute('aria-selected')).toBe('true');
    await fireEvent.dblClick(tile('pic-4.png'));
    expect(props.onopen).toHaveBeenCalledWith(expect.objectContaining({ id: 'id4' }));
    await fireEvent.click(tile('pic-4.png').querySelector('button.name') as HTMLElement);
    expect(props.onopen).toHaveBeenCalledTimes(2);
  });

  it('asks for thumbnails of images only, with the version in the URL', async () => {
    vi.stubGlobal('IntersectionObserver', undefined); // every tile counts as on screen
    const { container } = grid(media(4));
    await tick();
    const tile = (name: string) => container.querySelector(`[role=option][data-name="${name}"]`) as HTMLElement;
    await vi.waitFor(() => expect(tile('pic-0.png').querySelector('img')).not.toBeNull());
    expect(tile('pic-0.png').querySelector('img')?.getAttribute('src')).toBe('/thumb/id0?size=small&v=e0');
    expect(tile('file-00001.txt').querySelector('img')).toBeNull();
    expect(tile('file-00001.txt').querySelector('.file-icon')).not.toBeNull();
  });

  it('shows the same thumbnails in the list', async () => {
    vi.stubGlobal('IntersectionObserver', undefined);
    const { container } = grid(media(4), 800, 'list');
    await tick();
    const row = (name: string) => container.querySelector(`.row[data-name="${name}"]`) as HTMLElement;
    await vi.waitFor(() => expect(row('pic-2.png').querySelector('.c-name img')).not.toBeNull());
    expect(row('pic-2.png').querySelector('img')?.getAttribute('src')).toBe('/thumb/id2?size=small&v=e2');
    expect(row('file-00003.txt').querySelector('img')).toBeNull();
    expect(container.querySelector('.tile')).toBeNull();
  });
});
