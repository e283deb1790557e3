import { describe, it, expect, vi } from 'vitest';
import { Locations, type FolderLoader } from './locations.svelte';
import type { NodeWithPath } from '../api/schema.gen';

const folder = (id: string, name: string, path: [string, string][]): NodeWithPath => ({
  id,
  parent_id: path.length ? path[path.length - 1][0] : null,
  name,
  kind: 'folder',
  size: 0,
  mime: 'inode/directory',
  modified: 0,
  created: 0,
  etag: '"e"',
  favorite: false,
  path: path.map(([pid, pname]) => ({ id: pid, name: pname })),
});

const TREE: Record<string, NodeWithPath> = {
  root: folder('root', '', []),
  docs: folder('docs', 'Documents', [['root', '']]),
  reports: folder('reports', 'Reports', [
    ['root', ''],
    ['docs', 'Documents'],
  ]),
};

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('Locations', () => {
  it('names a folder by its path below the root; the root is []', async () => {
    const load = vi.fn<FolderLoader>(async (id) => TREE[id]);
    const loc = new Locations(load);
    loc.want('reports');
    loc.want('root');
    expect(loc.get('reports')).toBeUndefined();
    await settle();
    expect(loc.get('reports')).toEqual(['Documents', 'Reports']);
    expect(loc.get('root')).toEqual([]);
  });

  it('asks once per folder, and learns the folders above from one answer', async () => {
    const load = vi.fn<FolderLoader>(async (id) => TREE[id]);
    const loc = new Locations(load, 1);
    loc.want('reports');
    loc.want('reports');
    await settle();
    loc.want('docs');
    loc.want('root');
    await settle();
    expect(load.mock.calls.map((c) => c[0])).toEqual(['reports']);
    expect(loc.get('docs')).toEqual(['Documents']);
    expect(loc.get('root')).toEqual([]);
  });

  it('names a folder shared with the user from the shared folder down', async () => {
    // The path of a shared node starts at the highest folder the caller may read.
    const shared: Record<string, NodeWithPath> = {
      team: folder('team', 'Team', []),
      specs: folder('specs', 'specs', [
        ['team', 'Team'],
        ['docs', 'docs'],
      ]),
    };
    const loc = new Locations(async (id) => shared[id]);
    loc.want('specs');
    loc.want('team');
    await settle();
    expect(loc.get('specs')).toEqual(['Team', 'docs', 'specs']);
    expect(loc.get('docs')).toEqual(['Team', 'docs']);
    expect(loc.get('team')).toEqual(['Team']);
  });

  it("names a folder in a shared drive from the drive's name down", async () => {
    const drive: Record<string, NodeWithPath> = {
      droot: folder('droot', '', []),
      plans: folder('plans', 'plans', [
        ['droot', ''],
        ['q1', 'Q1'],
      ]),
    };
    const load = vi.fn<FolderLoader>(async (id) => ({ ...TREE, ...drive })[id]);
    const loc = new Locations(load, 4, (rootId) => (rootId === 'droot' ? 'Team space' : null));
    loc.want('plans');
    loc.want('droot');
    loc.want('reports');
    await settle();
    expect(loc.get('plans')).toEqual(['Team space', 'Q1', 'plans']);
    expect(loc.get('q1')).toEqual(['Team space', 'Q1']);
    expect(loc.get('droot')).toEqual(['Team space']);
    expect(loc.get('reports')).toEqual(['Documents', 'Reports']); // the personal drive: no name
    expect(loc.get('root')).toEqual([]);
  });

  it('keeps at most `concurrency` requests in flight and marks failures', async () => {
    let inflight = 0;
    let most = 0;
    const load = vi.fn<FolderLoader>(async (id) => {
      most = Math.max(most, ++inflight);
      await settle();
      inflight--;
      if (id === 'gone') throw new Error('404');
      return folder(id, id, [['root', '']]);
    });
    const loc = new Locations(load, 2);
    for (const id of ['a', 'b', 'c', 'd', 'gone']) loc.want(id);
    for (let i = 0; i < 10; i++) await settle();
    expect(most).toBe(2);
    expect(loc.get('d')).toEqual(['d']);
    expect(loc.get('gone')).toBeNull();
  });
});
