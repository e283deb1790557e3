// Shared drives over the REST API (docs/sharing.md "Shared drives"): the
// caller's drives, creating, renaming, quotas, deleting, and members. The
// drive settings dialog's model gets these as one object, so its tests can
// hand it a fake.
import { api } from './api';
import { allGroups, sharing } from './sharing';
import type { Drive, DriveMember, Group, Role, Sharee } from '../api/schema.gen';

/** A member to add or change: a user by name or a group by id, with a role. */
export type DriveMemberSpec = ({ user: string } | { group: string }) & { role: Role };

export interface DrivesApi {
  /** the personal drive first, then every shared drive the caller is a member of */
  list(): Promise<Drive[]>;
  create(spec: { name: string; quota_bytes?: number }): Promise<Drive>;
  /** name: managers; quota_bytes: administrators (0 removes it) */
  update(id: string, patch: { name?: string; quota_bytes?: number }): Promise<Drive>;
  /** the drive and everything in it, for good */
  remove(id: string): Promise<void>;
  members(id: string): Promise<DriveMember[]>;
  /** adds a member, or changes its role */
  setMember(id: string, spec: DriveMemberSpec): Promise<void>;
  removeUser(id: string, name: string): Promise<void>;
  removeGroup(id: string, member: string): Promise<void>;
  /** the groups one may add: every group for administrators, one's own for others */
  groups(): Promise<Group[]>;
  sharees(q: string): Promise<Sharee[]>;
}

export const drivesApi: DrivesApi = {
  async list() {
    return (await api.call('GET /api/v1/drives')).drives;
  },
  create(spec) {
    return api.call('POST /api/v1/drives', { body: spec });
  },
  update(id, patch) {
    return api.call('PATCH /api/v1/drives/{id}', { path: { id }, body: patch });
  },
  remove(id) {
    return api.call('DELETE /api/v1/drives/{id}', { path: { id } });
  },
  async members(id) {
    return (await api.call('GET /api/v1/drives/{id}/members', { path: { id } })).items;
  },
  setMember(id, spec) {
    return api.call('POST /api/v1/drives/{id}/members', { path: { id }, body: spec });
  },
  removeUser(id, name) {
    return api.call('DELETE /api/v1/drives/{id}/members/users/{name}', { path: { id, name } });
  },
  removeGroup(id, member) {
    return api.call('DELETE /api/v1/drives/{id}/members/groups/{member}', { path: { id, member } });
  },
  groups: allGroups,
  sharees: sharing.sharees,
};
