import { describe, it, expect, afterEach } from 'vitest';
import { render, cleanup } from '@testing-library/svelte';
import SnippetText from './SnippetText.svelte';

afterEach(cleanup);

describe('SnippetText', () => {
  it('marks the matched segments and keeps the rest as plain text', () => {
    const { getByTestId } = render(SnippetText, {
      props: {
        segments: [
          { text: 'the ', match: false },
          { text: 'quarterly', match: true },
          { text: ' report for ', match: false },
          { text: 'Q3', match: true },
        ],
      },
    });
    const el = getByTestId('snippet');
    expect(el.textContent).toBe('the quarterly report for Q3');
    expect([...el.querySelectorAll('mark')].map((m) => m.textContent)).toEqual(['quarterly', 'Q3']);
    expect(el.children).toHaveLength(2); // only the marks are elements
  });

  it('renders markup in the excerpt as text, never as HTML', () => {
    const evil = '<img src=x onerror="window.__pwned = 1">';
    const { getByTestId } = render(SnippetText, {
      props: {
        segments: [
          { text: 'before ', match: false },
          { text: evil, match: false },
          { text: '<b>bold</b>', match: true },
        ],
      },
    });
    const el = getByTestId('snippet');
    expect(el.querySelector('img')).toBeNull();
    expect(el.querySelector('b')).toBeNull();
    expect(el.textContent).toBe(`before ${evil}<b>bold</b>`);
    expect(el.querySelector('mark')?.textContent).toBe('<b>bold</b>');
    expect(el.innerHTML).toContain('&lt;img src=x onerror=');
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });
});
