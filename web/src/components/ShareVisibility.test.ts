import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import ShareVisibility from './ShareVisibility.svelte';
import type { SharedItem } from '../lib/api/schema.gen';

afterEach(cleanup);

const item = (hidden: boolean): SharedItem =>
  ({
    node: { id: 'n1', name: 'Holiday', kind: 'folder' },
    role: 'viewer',
    permissions: ['read'],
    owner: { username: 'ann', display_name: 'Ann' },
    hidden,
  }) as unknown as SharedItem;

describe('ShareVisibility', () => {
  it('shows a hidden share again', async () => {
    const onchange = vi.fn(async () => undefined);
    const { getByRole, container } = render(ShareVisibility, { props: { item: item(true), onchange } });
    expect(container.textContent).toContain('Hidden');
    await fireEvent.click(getByRole('button', { name: 'Show Holiday in my files again' }));
    expect(onchange).toHaveBeenCalledWith('n1', false);
  });

  it('hides a shown share, and waits for the answer before another click', async () => {
    let done!: () => void;
    const onchange = vi.fn(() => new Promise<void>((r) => (done = r)));
    const { getByRole, container } = render(ShareVisibility, { props: { item: item(false), onchange } });
    expect(container.textContent).toContain('Shown');
    const button = getByRole('button', { name: 'Hide Holiday from my files' }) as HTMLButtonElement;
    await fireEvent.click(button);
    expect(onchange).toHaveBeenCalledWith('n1', true);
    expect(button.disabled).toBe(true);
    done();
    await new Promise((r) => setTimeout(r, 0));
    expect(button.disabled).toBe(false);
  });
});
