import { describe, it, expect, vi, beforeEach } from 'vitest';
import { ShareModel } from './share-model.svelte';
import { toasts } from './toasts.svelte';
import { ApiError } from '../api/client';
import type { SharingApi } from '../services/sharing';
import type { Grant, GrantPatch, GrantSpec, Link, LinkPatch, LinkSpec, Node } from '../api/schema.gen';

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
const grant = (id: string, name: string, role: Grant['role'] = 'viewer'): Grant => ({
  id,
  node_id: 'team',
  grantee: { type: 'user', id: 'u-' + name, name },
  role,
  may_reshare: false,
  expires_at: null,
  created: 0,
});
const link = (id: string, extra: Partial<Link> = {}): Link => ({
  id,
  node_id: 'team',
  role: 'view',
  has_password: false,
  expires_at: null,
  max_downloads: null,
  downloads: 0,
  label: '',
  token_hint: 'beef',
  created: 0,
  ...extra,
});

function fakeApi() {
  return {
    grants: vi.fn(async (_node: string) => [grant('g1', 'carol')]),
    addGrant: vi.fn(async (_node: string, spec: GrantSpec) => grant('g2', spec.user ?? 'group', spec.role)),
    patchGrant: vi.fn(async (id: string, patch: GrantPatch) => ({ ...grant(id, 'carol'), ...patch })),
    removeGrant: vi.fn(async (_id: string) => undefined),
    links: vi.fn(async (_node: string) => [link('l1')]),
    createLink: vi.fn(async (_node: string, spec: LinkSpec) =>
      link('l2', { role: spec.role, has_password: !!spec.password, token: 'f'.repeat(36) + 'beef', url: '/s/' + 'f'.repeat(36) + 'beef' }),
    ),
    updateLink: vi.fn(async (id: string, patch: LinkPatch) => link(id, { label: patch.label ?? '' })),
    removeLink: vi.fn(async (_id: string) => undefined),
    groups: vi.fn(async () => [{ id: 'grp', name: 'Staff', created: 0 }]),
    sharees: vi.fn(async (q: string) =>
      [
        { type: 'user' as const, id: 'u1', name: 'bob', display_name: 'Bob' },
        { type: 'user' as const, id: 'u2', name: 'bea', display_name: 'Bea' },
        { type: 'group' as const, id: 'g1', name: 'board', display_name: 'board' },
      ].filter((s) => s.name.startsWith(q)),
    ),
  } satisfies SharingApi;
}

const lastToast = () => toasts.items[toasts.items.length - 1];

describe('ShareModel', () => {
  beforeEach(() => {
    toasts.items = [];
  });

  it('loads grants, links and groups', async () => {
    const m = new ShareModel(folder, fakeApi(), 'https://cloud.example');
    await m.load();
    expect(m.loading).toBe(false);
    expect(m.grants.map((g) => g.grantee.name)).toEqual(['carol']);
    expect(m.links.map((l) => l.id)).toEqual(['l1']);
    expect(m.groups.map((g) => g.name)).toEqual(['Staff']);
    expect(m.denied).toBe(false);
  });

  it('says so when the caller may not share (403), without an error toast', async () => {
    const api = fakeApi();
    api.grants.mockRejectedValueOnce(new ApiError(403, 'permission_denied', 'you may not see who shares this'));
    const m = new ShareModel(folder, api, 'https://cloud.example');
    await m.load();
    expect(m.denied).toBe(true);
    expect(toasts.items).toEqual([]);
  });

  it('adds, changes and revokes grants', async () => {
    const api = fakeApi();
    const m = new ShareModel(folder, api, 'https://cloud.example');
    await m.load();
    expect(await m.share({ user: 'bob', role: 'editor' })).toBe(true);
    expect(api.addGrant).toHaveBeenCalledWith('team', { user: 'bob', role: 'editor' });
    expect(m.grants.map((g) => `${g.grantee.name}:${g.role}`)).toEqual(['carol:viewer', 'bob:editor']);
    await m.setRole(m.grants[0], 'manager');
    expect(api.patchGrant).toHaveBeenCalledWith('g1', { role: 'manager' });
    expect(m.grants[0].role).toBe('manager');
    await m.revoke(m.grants[0]);
    expect(api.removeGrant).toHaveBeenCalledWith('g1');
    expect(m.grants.map((g) => g.grantee.name)).toEqual(['bob']);
  });

  it('words "no such user" and "shared already" for the share form', async () => {
    const api = fakeApi();
    const m = new ShareModel(folder, api, 'https://cloud.example');
    api.addGrant.mockRejectedValueOnce(new ApiError(404, 'not_found', 'no such user'));
    expect(await m.share({ user: 'nobody', role: 'viewer' })).toBe(false);
    expect(lastToast()).toMatchObject({ kind: 'error', text: 'No user or group by that name.' });
    api.addGrant.mockRejectedValueOnce(new ApiError(409, 'already_exists', '"bob" has a share of this already'));
    expect(await m.share({ user: 'bob', role: 'viewer' })).toBe(false);
    expect(lastToast()).toMatchObject({ kind: 'error', text: expect.stringContaining('already') });
    expect(m.grants).toEqual([]);
  });

  it('suggests users for the name being typed, dropping stale answers', async () => {
    vi.useFakeTimers();
    try {
      const api = fakeApi();
      const m = new ShareModel(folder, api, 'https://cloud.example');
      m.suggest('b');
      m.suggest('bo'); // before the first one was asked: only "bo" is
      await vi.advanceTimersByTimeAsync(200);
      expect(api.sharees).toHaveBeenCalledTimes(1);
      expect(api.sharees).toHaveBeenCalledWith('bo');
      expect(m.suggestions.map((s) => s.name)).toEqual(['bob']);
      m.suggest('b');
      await vi.advanceTimersByTimeAsync(200);
      expect(m.suggestions.map((s) => s.name)).toEqual(['bob', 'bea']); // users only
      m.suggest('  ');
      expect(m.suggestions).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows a new link once, as a full address, and keeps no token in the list', async () => {
    const api = fakeApi();
    const m = new ShareModel(folder, api, 'https://cloud.example');
    await m.load();
    expect(await m.createLink({ role: 'view', password: 'long enough' })).toBe(true);
    expect(m.fresh).toEqual({ id: 'l2', url: 'https://cloud.example/s/' + 'f'.repeat(36) + 'beef' });
    const stored = m.links.find((l) => l.id === 'l2')!;
    expect(stored.token).toBeUndefined();
    expect(stored.url).toBeUndefined();
    expect(stored).toMatchObject({ has_password: true, token_hint: 'beef' });
    await m.deleteLink(stored);
    expect(api.removeLink).toHaveBeenCalledWith('l2');
    expect(m.fresh).toBeNull();
    expect(m.links.map((l) => l.id)).toEqual(['l1']);
  });
});
