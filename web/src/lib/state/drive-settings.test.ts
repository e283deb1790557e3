import { describe, it, expect, vi, beforeEach } from 'vitest';
import { DriveSettingsModel, sortMembers } from './drive-settings.svelte';
import { toasts } from './toasts.svelte';
import { ApiError } from '../api/client';
import type { DriveMemberSpec, DrivesApi } from '../services/drives';
import type { Drive, DriveMember } from '../api/schema.gen';

const GIB = 1024 ** 3;
const team = (extra: Partial<Drive> = {}): Drive => ({
  id: 'd1',
  kind: 'shared',
  name: 'Team space',
  root_id: 'r1',
  used_bytes: 10,
  versions_bytes: 0,
  quota_bytes: GIB,
  role: 'manager',
  ...extra,
});

/** A server of one drive whose caller is "ann", holding `role` directly. */
function fakeApi(role: Drive['role'] = 'manager') {
  const db = {
    drive: team({ role }),
    members: [
      { type: 'user', id: 'u-ann', name: 'ann', role },
      { type: 'group', id: 'g-staff', name: 'Staff', role: 'viewer' },
    ] as DriveMember[],
    exists: true,
  };
  const api = {
    list: vi.fn(async () => (db.exists ? [db.drive] : [])),
    create: vi.fn(async () => Promise.reject(new Error('unused'))),
    update: vi.fn(async (_id: string, patch: { name?: string; quota_bytes?: number }) => {
      if (patch.name !== undefined) db.drive = { ...db.drive, name: patch.name };
      if (patch.quota_bytes !== undefined) db.drive = { ...db.drive, quota_bytes: patch.quota_bytes || null };
      return db.drive;
    }),
    remove: vi.fn(async () => {
      db.exists = false;
    }),
    members: vi.fn(async () => structuredClone(db.members)),
    setMember: vi.fn(async (_id: string, spec: DriveMemberSpec) => {
      if ('user' in spec && spec.user === 'nobody') throw new ApiError(404, 'not_found', 'no such user');
      const m = db.members.find((x) => ('user' in spec ? x.name === spec.user : x.id === spec.group));
      if (m) m.role = spec.role;
      else if ('user' in spec) db.members.push({ type: 'user', id: 'u-' + spec.user, name: spec.user, role: spec.role });
      else db.members.push({ type: 'group', id: spec.group, name: spec.group, role: spec.role });
      if ('user' in spec && spec.user === 'ann') db.drive = { ...db.drive, role: spec.role };
    }),
    removeUser: vi.fn(async (_id: string, name: string) => {
      db.members = db.members.filter((m) => m.name !== name);
      if (name === 'ann') db.exists = false;
    }),
    removeGroup: vi.fn(async (_id: string, id: string) => {
      db.members = db.members.filter((m) => m.id !== id);
    }),
    groups: vi.fn(async () => [{ id: 'g-ops', name: 'Ops', created: 0 }]),
    sharees: vi.fn(async (q: string) => [
      { type: 'user' as const, id: 'u-bob', name: 'bob', display_name: 'Bob' },
      { type: 'group' as const, id: 'g-b', name: 'b-team', display_name: 'b-team' },
    ].filter((s) => s.name.startsWith(q))),
  } satisfies DrivesApi;
  const refresh = vi.fn(async (id: string) => (await api.list()).find((d) => d.id === id) ?? null);
  return { api, db, refresh };
}

const lastToast = () => toasts.items.at(-1);

describe('DriveSettingsModel', () => {
  beforeEach(() => {
    toasts.items = [];
  });

  it('lists managers first and loads the groups a manager may add', async () => {
    const { api, refresh } = fakeApi();
    const m = new DriveSettingsModel(team(), api, false, refresh);
    await m.load();
    expect(m.ready).toBe(true);
    expect(m.members.map((x) => x.name)).toEqual(['ann', 'Staff']);
    expect(m.groups.map((g) => g.name)).toEqual(['Ops']);
    expect(m.canManage).toBe(true);
    expect(m.canDelete).toBe(true);
  });

  it('shows the members to a viewer, who may change nothing', async () => {
    const { api, refresh } = fakeApi('viewer');
    const m = new DriveSettingsModel(team({ role: 'viewer' }), api, false, refresh);
    await m.load();
    expect(m.members.map((x) => x.name)).toEqual(['ann', 'Staff']); // both viewers: by name
    expect(api.groups).not.toHaveBeenCalled();
    expect([m.canManage, m.canDelete]).toEqual([false, false]);
    // An administrator may delete (and set the quota) without managing it.
    expect(new DriveSettingsModel(team({ role: 'editor' }), api, true, refresh).canDelete).toBe(true);
  });

  it('renames, and sets and removes the quota (0 on the wire)', async () => {
    const { api, refresh } = fakeApi();
    const m = new DriveSettingsModel(team(), api, true, refresh);
    expect(await m.rename('Team space')).toBe(true);
    expect(api.update).not.toHaveBeenCalled();
    expect(await m.rename('Ops room')).toBe(true);
    expect(m.drive.name).toBe('Ops room');
    expect(lastToast()?.text).toBe('Renamed the drive to "Ops room"');
    expect(await m.setQuota(GIB)).toBe(true);
    expect(api.update).toHaveBeenCalledTimes(1); // unchanged: nothing sent
    expect(await m.setQuota(2 * GIB)).toBe(true);
    expect(api.update).toHaveBeenLastCalledWith('d1', { quota_bytes: 2 * GIB });
    expect(await m.setQuota(null)).toBe(true);
    expect(api.update).toHaveBeenLastCalledWith('d1', { quota_bytes: 0 });
    expect(m.drive.quota_bytes).toBeNull();
  });

  it('adds users and groups, changes roles and removes members', async () => {
    const { api, refresh } = fakeApi();
    const m = new DriveSettingsModel(team(), api, false, refresh);
    await m.load();
    expect(await m.addMember({ user: 'bob', role: 'editor' })).toBe(true);
    expect(await m.addMember({ group: 'g-ops', role: 'viewer' })).toBe(true);
    expect(m.members.map((x) => `${x.name}:${x.role}`)).toEqual(['ann:manager', 'bob:editor', 'g-ops:viewer', 'Staff:viewer']);
    const bob = m.members.find((x) => x.name === 'bob')!;
    expect(await m.setRole(bob, 'manager')).toBe(true);
    expect(api.setMember).toHaveBeenLastCalledWith('d1', { user: 'bob', role: 'manager' });
    expect(m.members.map((x) => x.name).slice(0, 2)).toEqual(['ann', 'bob']);
    const staff = m.members.find((x) => x.name === 'Staff')!;
    expect(await m.setRole(staff, 'editor')).toBe(true);
    expect(api.setMember).toHaveBeenLastCalledWith('d1', { group: 'g-staff', role: 'editor' });
    expect(await m.removeMember(staff)).toBe(true);
    expect(api.removeGroup).toHaveBeenCalledWith('d1', 'g-staff');
    expect(await m.removeMember(m.members.find((x) => x.name === 'bob')!)).toBe(true);
    expect(api.removeUser).toHaveBeenCalledWith('d1', 'bob');
    expect(m.members.map((x) => x.name)).toEqual(['ann', 'g-ops']);
  });

  it('words an unknown user and shows what is true after a failed change', async () => {
    const { api, refresh } = fakeApi();
    const m = new DriveSettingsModel(team(), api, false, refresh);
    await m.load();
    expect(await m.addMember({ user: 'nobody', role: 'viewer' })).toBe(false);
    expect(lastToast()).toMatchObject({ kind: 'error', text: 'No user by that name.' });
    api.setMember.mockRejectedValueOnce(new ApiError(403, 'permission_denied', 'only the drive\'s managers change its members'));
    expect(await m.setRole(m.members[1], 'editor')).toBe(false);
    expect(lastToast()).toMatchObject({ kind: 'error', text: 'You are not allowed to do that.' });
    expect(m.members.map((x) => `${x.name}:${x.role}`)).toEqual(['ann:manager', 'Staff:viewer']);
  });

  it('follows the caller\'s own role, and leaving or deleting makes it gone', async () => {
    const { api, refresh } = fakeApi();
    const m = new DriveSettingsModel(team(), api, false, refresh);
    await m.load();
    expect(await m.setRole(m.members[0], 'editor')).toBe(true); // ann demotes herself
    expect(m.drive.role).toBe('editor');
    expect(m.canManage).toBe(false);
    expect(m.gone).toBe(false);

    const other = fakeApi();
    const left = new DriveSettingsModel(team(), other.api, false, other.refresh);
    await left.load();
    expect(await left.removeMember(left.members[0])).toBe(true); // ann leaves
    expect(left.gone).toBe(true);

    const third = fakeApi();
    const deleted = new DriveSettingsModel(team(), third.api, true, third.refresh);
    expect(await deleted.remove()).toBe(true);
    expect(third.api.remove).toHaveBeenCalledWith('d1');
    expect(deleted.gone).toBe(true);
    expect(third.refresh).toHaveBeenCalled();
    expect(lastToast()?.text).toBe('Deleted the shared drive "Team space" and everything in it');
  });

  it('suggests users only, for the last prefix typed', async () => {
    vi.useFakeTimers();
    try {
      const { api, refresh } = fakeApi();
      const m = new DriveSettingsModel(team(), api, false, refresh);
      m.suggest('b');
      m.suggest('bo');
      await vi.advanceTimersByTimeAsync(200);
      expect(api.sharees).toHaveBeenCalledTimes(1);
      expect(m.suggestions.map((s) => s.name)).toEqual(['bob']);
      m.suggest('b');
      await vi.advanceTimersByTimeAsync(200);
      expect(m.suggestions.map((s) => s.name)).toEqual(['bob']); // not the group
      m.suggest('');
      expect(m.suggestions).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('sortMembers', () => {
  it('orders by role, then name', () => {
    const m = (name: string, role: DriveMember['role']): DriveMember => ({ type: 'user', id: name, name, role });
    expect(sortMembers([m('zed', 'viewer'), m('amy', 'viewer'), m('bob', 'manager'), m('cat', 'editor')]).map((x) => x.name)).toEqual([
      'bob',
      'cat',
      'amy',
      'zed',
    ]);
  });
});
