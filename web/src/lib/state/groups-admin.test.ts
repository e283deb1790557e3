import { describe, it, expect, vi, beforeEach } from 'vitest';
import { GroupsAdmin } from './groups-admin.svelte';
import { toasts } from './toasts.svelte';
import { ApiError } from '../api/client';
import type { GroupsApi } from '../services/groups';
import type { GroupWithMembers } from '../api/schema.gen';

function fakeApi() {
  const db: Record<string, GroupWithMembers> = {
    a: { id: 'a', name: 'Admins', created: 0, members: [{ type: 'user', id: 'u1', name: 'ann' }] },
    s: { id: 's', name: 'Staff', created: 0, members: [{ type: 'group', id: 'a', name: 'Admins' }] },
  };
  const api = {
    list: vi.fn(async () => ({ items: Object.values(db).map(({ members: _m, ...g }) => g), next_after: null })),
    get: vi.fn(async (id: string) => structuredClone(db[id])),
    create: vi.fn(async (name: string) => {
      db.n = { id: 'n', name, created: 1, members: [] };
      return { id: 'n', name, created: 1 };
    }),
    rename: vi.fn(async (id: string, name: string) => {
      db[id].name = name;
      for (const g of Object.values(db)) for (const m of g.members) if (m.type === 'group' && m.id === id) m.name = name;
      return { id, name, created: 0 };
    }),
    remove: vi.fn(async () => undefined),
    addMember: vi.fn(async (id: string, m: { user?: string; group?: string }) => {
      if (m.user === 'nobody') throw new ApiError(404, 'not_found', 'no such user');
      if (m.group === 's') throw new ApiError(409, 'conflict', 'that group contains this one: membership would be a cycle');
      db[id].members.push(m.user ? { type: 'user', id: 'u-' + m.user, name: m.user } : { type: 'group', id: m.group!, name: db[m.group!].name });
    }),
    removeUser: vi.fn(async () => undefined),
    removeGroup: vi.fn(async () => undefined),
  } satisfies GroupsApi;
  return api;
}

describe('GroupsAdmin', () => {
  beforeEach(() => {
    toasts.items = [];
  });

  it('lists, creates (kept in name order) and deletes groups', async () => {
    const api = fakeApi();
    const g = new GroupsAdmin(api);
    await g.load();
    expect(g.groups.map((x) => x.name)).toEqual(['Admins', 'Staff']);
    expect(await g.create('Interns')).toBe(true);
    expect(g.groups.map((x) => x.name)).toEqual(['Admins', 'Interns', 'Staff']);
    await g.toggle('s');
    expect(await g.remove(g.groups[0])).toBe(true);
    expect(api.remove).toHaveBeenCalledWith('a');
    expect(g.groups.map((x) => x.name)).toEqual(['Interns', 'Staff']);
    expect(g.details.s.members).toEqual([]); // Admins was a member of Staff
  });

  it('shows members when expanded and adds and removes users and groups', async () => {
    const api = fakeApi();
    const g = new GroupsAdmin(api);
    await g.load();
    await g.toggle('a');
    expect(g.isOpen('a')).toBe(true);
    expect(g.details.a.members.map((m) => m.name)).toEqual(['ann']);
    expect(await g.addMember('a', { user: 'bob' })).toBe(true);
    expect(g.details.a.members.map((m) => m.name)).toEqual(['ann', 'bob']);
    await g.removeMember('a', g.details.a.members[0]);
    expect(api.removeUser).toHaveBeenCalledWith('a', 'ann');
    await g.toggle('s');
    await g.removeMember('s', g.details.s.members[0]);
    expect(api.removeGroup).toHaveBeenCalledWith('s', 'a');
    await g.toggle('a');
    expect(g.isOpen('a')).toBe(false);
  });

  it('words an unknown user and a cycle', async () => {
    const g = new GroupsAdmin(fakeApi());
    await g.load();
    await g.toggle('a');
    expect(await g.addMember('a', { user: 'nobody' })).toBe(false);
    expect(toasts.items.at(-1)?.text).toBe('No user by that name.');
    expect(await g.addMember('a', { group: 's' })).toBe(false);
    expect(toasts.items.at(-1)?.text).toMatch(/contains this one/);
  });

  it('renames a group everywhere it is shown', async () => {
    const g = new GroupsAdmin(fakeApi());
    await g.load();
    await g.toggle('s');
    await g.rename(g.groups[0], 'Root');
    await new Promise((r) => setTimeout(r, 0));
    expect(g.groups[0].name).toBe('Root');
    expect(g.details.s.members[0].name).toBe('Root');
  });
});
