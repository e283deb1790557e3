import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import ContentResults from './ContentResults.svelte';
import { ContentSearch } from '../lib/state/content-search.svelte';
import type { ContentHit } from '../lib/services/files';

afterEach(cleanup);

const hit = (id: string, mime: string, snippet: ContentHit['snippet']): ContentHit => ({
  node: {
    id,
    parent_id: 'root',
    name: `${id}`,
    kind: 'file',
    size: 1,
    mime,
    modified: 0,
    created: 0,
    etag: '"e"',
    favorite: false,
  },
  snippet,
});

describe('ContentResults', () => {
  it('lists each file with its name, the excerpt marked, and "More" while pages follow', async () => {
    const pages = [
      {
        items: [
          hit('notes.txt', 'text/plain', [
            { text: 'meet the ', match: false },
            { text: 'zebra', match: true },
            { text: ' <img src=x onerror=alert(1)>', match: false },
          ]),
        ],
        next_cursor: 'next',
      },
      { items: [hit('report.pdf', 'application/pdf', [{ text: 'zebras', match: true }])], next_cursor: null },
    ];
    const load = vi.fn(async (_q: string, cursor: string | null) => pages[cursor ? 1 : 0]);
    const model = new ContentSearch(load);
    await model.run('zebra');
    const onopen = vi.fn();
    const { getByTestId, getAllByTestId, getByRole, queryByTestId } = render(ContentResults, {
      props: { model, onopen, thumb: (n) => (n.mime === 'application/pdf' ? `/t/${n.id}` : null) },
    });
    expect(getByTestId('content-results').querySelector('h2')?.textContent).toBe('In file contents');
    const first = getAllByTestId('content-hit')[0];
    expect(first.dataset.name).toBe('notes.txt');
    expect(first.querySelector('mark')?.textContent).toBe('zebra');
    expect(first.querySelector('img')).toBeNull(); // the excerpt's "<img>" is text
    expect(first.querySelector('[data-testid=snippet]')?.textContent).toBe('meet the zebra <img src=x onerror=alert(1)>');
    await fireEvent.click(getByRole('button', { name: 'notes.txt' }));
    expect(onopen).toHaveBeenCalledWith(model.hits[0].node);
    await fireEvent.click(getByTestId('content-more'));
    await vi.waitFor(() => expect(getAllByTestId('content-hit')).toHaveLength(2));
    expect(load).toHaveBeenLastCalledWith('zebra', 'next', expect.any(AbortSignal));
    expect(queryByTestId('content-more')).toBeNull();
  });

  it('says when no file contains the words', async () => {
    const model = new ContentSearch(async () => ({ items: [], next_cursor: null }));
    await model.run('nothing');
    const { getByTestId } = render(ContentResults, { props: { model, onopen: vi.fn() } });
    expect(getByTestId('content-results').textContent).toContain('No file contains "nothing".');
  });
});
