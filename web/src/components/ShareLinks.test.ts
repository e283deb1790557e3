import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import { tick } from 'svelte';
import ShareLinks from './ShareLinks.svelte';
import { ShareModel } from '../lib/state/share-model.svelte';
import type { SharingApi } from '../lib/services/sharing';
import type { Link, LinkPatch, LinkSpec, Node } from '../lib/api/schema.gen';

afterEach(cleanup);

const folder: Node = {
  id: 'team',
  parent_id: 'root',
  name: 'Team',
  kind: 'folder',
  size: 0,
  mime: 'inode/directory',
  modified: 0,
  created: 0,
  etag: '"e"',
  favorite: false,
};
const TOKEN = '0123456789abcdef0123456789abcdef0123c0de';
const made = (spec: LinkSpec): Link => ({
  id: 'l1',
  node_id: 'team',
  role: spec.role ?? 'view',
  has_password: !!spec.password,
  expires_at: null,
  max_downloads: spec.max_downloads ?? null,
  downloads: 0,
  label: spec.label ?? '',
  token_hint: 'c0de',
  created: 0,
  token: TOKEN,
  url: '/s/' + TOKEN,
});

async function setup() {
  const createLink = vi.fn(async (_node: string, spec: LinkSpec) => made(spec));
  const updateLink = vi.fn(async (_id: string, patch: LinkPatch): Promise<Link> => {
    const { token: _t, url: _u, ...stored } = made({ role: 'view', password: 'long enough', max_downloads: 5 });
    return {
      ...stored,
      has_password: patch.password === '' ? false : stored.has_password,
      max_downloads: patch.max_downloads === 0 ? null : (patch.max_downloads ?? stored.max_downloads),
      label: patch.label ?? stored.label,
    };
  });
  const api: SharingApi = {
    grants: async () => [],
    addGrant: async () => Promise.reject(new Error('unused')),
    patchGrant: async () => Promise.reject(new Error('unused')),
    removeGrant: async () => undefined,
    links: async () => [],
    createLink,
    updateLink,
    removeLink: async () => undefined,
    groups: async () => [],
    sharees: async () => [],
  };
  const model = new ShareModel(folder, api, 'https://cloud.example');
  await model.load();
  const copy = vi.fn(async () => true);
  const r = render(ShareLinks, { props: { model, copy } });
  return { ...r, createLink, updateLink, copy };
}

const field = (c: HTMLElement, name: string) => c.querySelector(`[name="${name}"]`) as HTMLInputElement;

describe('ShareLinks', () => {
  it('checks the form before asking the server', async () => {
    const { container, createLink, findByRole } = await setup();
    await fireEvent.input(field(container, 'link-password'), { target: { value: 'short' } });
    await fireEvent.submit(container.querySelector('[data-testid=link-form]')!);
    expect((await findByRole('alert')).textContent).toBe('A link password has at least 8 characters.');
    expect(createLink).not.toHaveBeenCalled();
  });

  it('shows a new link once, in full, with a copy button; the list keeps only its last characters', async () => {
    const { container, createLink, copy, getByText, getByTestId } = await setup();
    getByText('No links yet.');
    // A folder offers every kind of link (happy-dom cannot pick an option
    // for Svelte's select binding: the e2e run picks "drop").
    const role = container.querySelector('select[name=link-role]') as HTMLSelectElement;
    expect([...role.options].map((o) => o.value)).toEqual(['view', 'edit', 'drop']);
    await fireEvent.input(field(container, 'link-password'), { target: { value: 'long enough' } });
    await fireEvent.input(field(container, 'link-max'), { target: { value: '5' } });
    await fireEvent.submit(container.querySelector('[data-testid=link-form]')!);
    await tick();
    expect(createLink).toHaveBeenCalledWith('team', { role: 'view', password: 'long enough', max_downloads: 5 });
    expect((getByTestId('link-url') as HTMLInputElement).value).toBe('https://cloud.example/s/' + TOKEN);
    expect(getByTestId('link-once').textContent).toMatch(/shown only once/);
    const row = container.querySelector('li[data-hint=c0de]')!;
    expect(row.textContent).toMatch(/View and download/);
    expect(row.textContent).toMatch(/…c0de · password · no expiry · downloads: 0 of 5/);
    expect(row.textContent).not.toContain(TOKEN);
    await fireEvent.click(getByText('Copy'));
    expect(copy).toHaveBeenCalledWith('https://cloud.example/s/' + TOKEN);
    // The form is empty again for the next link.
    expect(field(container, 'link-password').value).toBe('');
  });

  it('edits a link in place: only what changed is sent, and the list shows the answer', async () => {
    const { container, updateLink, getByRole, findByRole } = await setup();
    await fireEvent.input(field(container, 'link-password'), { target: { value: 'long enough' } });
    await fireEvent.input(field(container, 'link-max'), { target: { value: '5' } });
    await fireEvent.submit(container.querySelector('[data-testid=link-form]')!);
    await tick();
    await fireEvent.click(getByRole('button', { name: 'Edit the link …c0de' }));
    const form = container.querySelector('[data-testid=link-edit]')!;
    // Filled with the link's values; the password is never shown.
    expect(field(container, 'edit-max').value).toBe('5');
    expect(field(container, 'edit-password').value).toBe('');
    // A bad value is caught before the server.
    await fireEvent.input(field(container, 'edit-max'), { target: { value: 'many' } });
    await fireEvent.submit(form);
    expect((await findByRole('alert')).textContent).toBe('Downloads: a whole number, at least 1.');
    expect(updateLink).not.toHaveBeenCalled();
    // No limit, no password, a label.
    await fireEvent.input(field(container, 'edit-max'), { target: { value: '' } });
    await fireEvent.click(field(container, 'edit-no-password'));
    await fireEvent.input(field(container, 'edit-label'), { target: { value: 'for the press' } });
    await fireEvent.submit(form);
    await tick();
    expect(updateLink).toHaveBeenCalledWith('l1', { password: '', max_downloads: 0, label: 'for the press' });
    await tick();
    expect(container.querySelector('[data-testid=link-edit]')).toBeNull();
    const row = container.querySelector('li[data-hint=c0de]')!;
    expect(row.textContent).toMatch(/for the press/);
    expect(row.textContent).toMatch(/no password · no expiry · downloads: 0/);
  });

  it('closes an edit that changes nothing without asking the server', async () => {
    const { container, updateLink, getByRole } = await setup();
    await fireEvent.submit(container.querySelector('[data-testid=link-form]')!);
    await tick();
    await fireEvent.click(getByRole('button', { name: 'Edit the link …c0de' }));
    await fireEvent.submit(container.querySelector('[data-testid=link-edit]')!);
    await tick();
    expect(updateLink).not.toHaveBeenCalled();
    expect(container.querySelector('[data-testid=link-edit]')).toBeNull();
  });
});
