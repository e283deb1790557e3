import { describe, it, expect } from 'vitest';
import { driveName, driveOf, GIB, mayManage, mayWrite, newDriveSpec, parseQuota, quotaField, quotaPatch, trashDrives } from './drives';
import type { Drive } from './api/schema.gen';

const drive = (id: string, kind: Drive['kind'], role: Drive['role']): Drive => ({
  id,
  kind,
  name: id === 'me' ? 'Personal' : id,
  root_id: id + '-root',
  used_bytes: 0,
  versions_bytes: 0,
  quota_bytes: null,
  role,
});
const mine = drive('me', 'personal', 'owner');
const team = drive('Team', 'shared', 'editor');
const board = drive('Board', 'shared', 'viewer');
const ops = drive('Ops', 'shared', 'manager');
const all = [mine, team, board, ops];

describe('driveOf', () => {
  it('tells the own drive from a share received', () => {
    expect(driveOf({ id: 'me-root', path: [] }, all)).toBe(mine);
    expect(driveOf({ id: 'a', path: [{ id: 'me-root', name: '' }] }, all)).toBe(mine);
    expect(driveOf({ id: 'shared', path: [] }, all)).toBeNull();
    expect(driveOf({ id: 'docs', path: [{ id: 'shared', name: 'Shared' }] }, all)).toBeNull();
  });
  it('finds the shared drive of its root and of anything below it', () => {
    expect(driveOf({ id: 'Team-root', path: [] }, all)).toBe(team);
    expect(driveOf({ id: 'x', path: [{ id: 'Ops-root', name: '' }, { id: 'y', name: 'y' }] }, all)).toBe(ops);
    expect(driveOf({ id: 'Team-root', path: [] }, [])).toBeNull();
  });
});

describe('roles', () => {
  it('lets viewers only read, managers manage', () => {
    expect([mine, team, board, ops].map((d) => mayWrite(d.role))).toEqual([true, true, false, true]);
    expect([mine, team, board, ops].map((d) => mayManage(d.role))).toEqual([false, false, false, true]);
  });
  it("offers the trash of the shared drives one may empty", () => {
    expect(trashDrives(all).map((d) => d.id)).toEqual(['Team', 'Ops']);
  });
});

describe('quota field', () => {
  it('reads GiB, with a point or a comma', () => {
    expect(parseQuota('1')).toEqual({ ok: true, value: GIB });
    expect(parseQuota(' 1.5 ')).toEqual({ ok: true, value: 1.5 * GIB });
    expect(parseQuota('0,5')).toEqual({ ok: true, value: GIB / 2 });
    expect(parseQuota('')).toEqual({ ok: true, value: null });
  });
  it('refuses zero, negatives and words', () => {
    for (const bad of ['0', '0.0000000001', '-1', 'ten', '1e3', '1.2.3']) {
      expect(parseQuota(bad)).toEqual({ ok: false, error: 'drives.badQuota' });
    }
  });
  it('shows a quota in GiB and nothing for none', () => {
    expect(quotaField(null)).toBe('');
    expect(quotaField(GIB * 2)).toBe('2');
    expect(quotaField(1536 * 1024 * 1024)).toBe('1.5');
  });
  it('patches only a change, with 0 for "no quota"', () => {
    expect(quotaPatch(null, null)).toBeUndefined();
    expect(quotaPatch(GIB, GIB)).toBeUndefined();
    expect(quotaPatch(null, GIB)).toBe(GIB);
    expect(quotaPatch(GIB, null)).toBe(0);
  });
});

describe('new drive form', () => {
  it('checks the name as the server does', () => {
    expect(driveName('  Team space ')).toEqual({ ok: true, value: 'Team space' });
    expect(driveName('  ')).toEqual({ ok: false, error: 'drives.needName' });
    expect(driveName('a/b')).toEqual({ ok: false, error: 'drives.badName' });
    expect(driveName('..')).toEqual({ ok: false, error: 'drives.badName' });
    expect(driveName('ä'.repeat(128))).toEqual({ ok: false, error: 'drives.nameLong' }); // 256 bytes
    expect(driveName('a'.repeat(255)).ok).toBe(true);
  });
  it('sends a quota only when one is given', () => {
    expect(newDriveSpec({ name: 'Team', quota: '' })).toEqual({ ok: true, value: { name: 'Team' } });
    expect(newDriveSpec({ name: 'Team', quota: '2' })).toEqual({ ok: true, value: { name: 'Team', quota_bytes: 2 * GIB } });
    expect(newDriveSpec({ name: 'Team', quota: '0' })).toEqual({ ok: false, error: 'drives.badQuota' });
    expect(newDriveSpec({ name: '', quota: '2' })).toEqual({ ok: false, error: 'drives.needName' });
  });
});
