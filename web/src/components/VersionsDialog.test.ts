import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent, waitFor } from '@testing-library/svelte';
import VersionsDialog from './VersionsDialog.svelte';
import { VersionsModel } from '../lib/state/versions.svelte';
import type { VersionsApi } from '../lib/services/versions';
import type { Node, Version } from '../lib/api/schema.gen';

afterEach(cleanup);

const file: Node = {
  id: 'f1',
  parent_id: 'root',
  name: 'report.txt',
  kind: 'file',
  size: 2048,
  mime: 'text/plain',
  modified: Date.UTC(2026, 0, 3, 12),
  created: 0,
  etag: '"e"',
  favorite: false,
};
const older: Version = {
  id: 'v1',
  size: 1024,
  modified: Date.UTC(2026, 0, 1, 12),
  replaced_at: Date.UTC(2026, 0, 2, 12),
  hash: 'b'.repeat(64),
  charged_bytes: 45 * 1024,
  author: 'ann',
};

function api(versions: Version[]): VersionsApi & { remove: ReturnType<typeof vi.fn> } {
  return {
    list: async () => versions,
    restore: async () => file,
    remove: vi.fn(async () => undefined),
    downloadUrl: (node, vid) => `/dl/${node}/${vid ?? 'current'}`,
  };
}

async function setup(versions: Version[], readOnly = false) {
  const a = api(versions);
  const model = new VersionsModel(file, a, readOnly);
  await model.load();
  const r = render(VersionsDialog, { props: { model, onclose: () => {} } });
  return { ...r, api: a, model };
}

const rowTexts = (c: HTMLElement) =>
  [...c.querySelectorAll('[data-testid=versions-dialog] li')].map((li) => (li as HTMLElement).dataset.version);

describe('VersionsDialog', () => {
  it('says when there are no earlier versions, and still offers the current content', async () => {
    const { container, getByTestId } = await setup([]);
    expect(getByTestId('versions-none').textContent).toBe('No earlier versions');
    expect(rowTexts(container)).toEqual(['current']);
    const current = container.querySelector('li[data-version=current]')!;
    expect(current.textContent).toContain('Current');
    expect(current.querySelector('[data-action=download]')!.getAttribute('href')).toBe('/dl/f1/current');
    expect(current.querySelector('[data-action=restore], [data-action=delete]')).toBeNull();
  });

  it('lists a version with its size, author and charged size, and its buttons', async () => {
    const { container, queryByTestId } = await setup([older]);
    expect(queryByTestId('versions-none')).toBeNull();
    expect(rowTexts(container)).toEqual(['current', 'v1']);
    const li = container.querySelector('li[data-version=v1]') as HTMLElement;
    expect(li.querySelector('[data-testid=version-size]')!.textContent).toBe('1 KiB');
    expect(li.querySelector('[data-testid=version-charged]')!.textContent).toBe('+45 KiB');
    expect(li.textContent).toContain('by ann');
    expect(li.textContent).toMatch(/Replaced Jan \d, 2026/);
    expect(li.querySelector('[data-action=download]')!.getAttribute('href')).toBe('/dl/f1/v1');
    expect(li.querySelector('[data-action=restore]')).not.toBeNull();
    expect(li.querySelector('[data-action=delete]')).not.toBeNull();
  });

  it('asks before deleting a version', async () => {
    const { container, api, getByRole } = await setup([older]);
    await fireEvent.click(container.querySelector('li[data-version=v1] [data-action=delete]')!);
    expect(api.remove).not.toHaveBeenCalled();
    const dialogs = [...document.querySelectorAll('dialog')];
    expect(dialogs.at(-1)!.textContent).toMatch(/Delete the version of "report.txt" replaced .* for good\?/);
    await fireEvent.click(getByRole('button', { name: 'Delete' }));
    expect(api.remove).toHaveBeenCalledWith('f1', 'v1');
    await waitFor(() => expect(rowTexts(container)).toEqual(['current']));
  });

  it('offers a viewer downloads only', async () => {
    const { container } = await setup([older], true);
    expect(container.querySelectorAll('[data-action=download]').length).toBe(2);
    expect(container.querySelector('[data-action=restore], [data-action=delete]')).toBeNull();
  });
});
