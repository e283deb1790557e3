// Group administration over the REST API (administrators; docs/sharing.md
// "Groups"). The admin page's model gets these as one object.
import { api } from './api';
import type { Group, GroupList, GroupWithMembers } from '../api/schema.gen';

export type MemberRef = { user: string } | { group: string };

export interface GroupsApi {
  list(after?: string): Promise<GroupList>;
  get(id: string): Promise<GroupWithMembers>;
  create(name: string): Promise<Group>;
  rename(id: string, name: string): Promise<Group>;
  remove(id: string): Promise<void>;
  addMember(id: string, member: MemberRef): Promise<void>;
  removeUser(id: string, name: string): Promise<void>;
  removeGroup(id: string, member: string): Promise<void>;
}

export const groups: GroupsApi = {
  list(after) {
    return api.call('GET /api/v1/groups', { query: { limit: 200, after } });
  },
  get(id) {
    return api.call('GET /api/v1/groups/{id}', { path: { id } });
  },
  create(name) {
    return api.call('POST /api/v1/groups', { body: { name } });
  },
  rename(id, name) {
    return api.call('PATCH /api/v1/groups/{id}', { path: { id }, body: { name } });
  },
  remove(id) {
    return api.call('DELETE /api/v1/groups/{id}', { path: { id } });
  },
  addMember(id, member) {
    return api.call('POST /api/v1/groups/{id}/members', { path: { id }, body: member });
  },
  removeUser(id, name) {
    return api.call('DELETE /api/v1/groups/{id}/members/users/{name}', { path: { id, name } });
  },
  removeGroup(id, member) {
    return api.call('DELETE /api/v1/groups/{id}/members/groups/{member}', { path: { id, member } });
  },
};

/** The groups the caller may share with (its own; every group for administrators). */
export async function myGroups(): Promise<Group[]> {
  return (await groups.list()).items;
}
