// The administrator's groups: the list (keyset pages), creating, renaming and
// deleting, and the members of the groups that are expanded (users by name,
// groups by id). The API comes in as an object; failures go through the one
// error funnel, with "no such user" and "that would be a cycle" worded here.
import type { Group, GroupMember, GroupWithMembers } from '../api/schema.gen';
import type { GroupsApi, MemberRef } from '../services/groups';
import { ApiError } from '../api/client';
import { handleError } from '../services/errors';
import { t } from '../i18n/index.svelte';
import { toasts } from './toasts.svelte';

export class GroupsAdmin {
  groups = $state<Group[]>([]);
  next = $state<string | null>(null);
  loading = $state(false);
  /** expanded groups with their members, by id */
  details = $state<Record<string, GroupWithMembers>>({});

  constructor(private readonly api: GroupsApi) {}

  async load(more = false) {
    this.loading = true;
    try {
      const page = await this.api.list(more ? (this.next ?? undefined) : undefined);
      this.groups = more ? [...this.groups, ...page.items] : page.items;
      this.next = page.next_after;
    } catch (e) {
      handleError(e, 'groups');
    } finally {
      this.loading = false;
    }
  }

  isOpen(id: string): boolean {
    return id in this.details;
  }

  /** Shows or hides a group's members (asked for when shown). */
  async toggle(id: string) {
    if (this.isOpen(id)) {
      delete this.details[id];
      return;
    }
    await this.refresh(id);
  }

  async create(name: string): Promise<boolean> {
    return this.run(async () => {
      const g = await this.api.create(name);
      this.groups = [...this.groups, g].sort((a, b) => a.name.localeCompare(b.name));
      toasts.push('success', t('groups.created', { name: g.name }));
    }, 'create group');
  }

  async rename(group: Group, name: string): Promise<boolean> {
    return this.run(async () => {
      const g = await this.api.rename(group.id, name);
      this.groups = this.groups.map((x) => (x.id === g.id ? g : x));
      if (this.details[g.id]) this.details[g.id] = { ...this.details[g.id], name: g.name };
      // Other groups list it as a member under its old name.
      for (const id of Object.keys(this.details)) {
        if (id !== g.id && this.details[id].members.some((m) => m.type === 'group' && m.id === g.id)) void this.refresh(id);
      }
    }, 'rename group');
  }

  async remove(group: Group): Promise<boolean> {
    return this.run(async () => {
      await this.api.remove(group.id);
      this.groups = this.groups.filter((x) => x.id !== group.id);
      delete this.details[group.id];
      for (const d of Object.values(this.details)) d.members = d.members.filter((m) => !(m.type === 'group' && m.id === group.id));
      toasts.push('success', t('groups.deleted', { name: group.name }));
    }, 'delete group');
  }

  async addMember(groupId: string, member: MemberRef): Promise<boolean> {
    return this.run(async () => {
      await this.api.addMember(groupId, member);
      await this.refresh(groupId);
    }, 'add member');
  }

  async removeMember(groupId: string, member: GroupMember): Promise<boolean> {
    return this.run(async () => {
      if (member.type === 'user') await this.api.removeUser(groupId, member.name);
      else await this.api.removeGroup(groupId, member.id);
      const d = this.details[groupId];
      if (d) d.members = d.members.filter((m) => !(m.type === member.type && m.id === member.id));
    }, 'remove member');
  }

  private async refresh(id: string) {
    try {
      this.details[id] = await this.api.get(id);
    } catch (e) {
      handleError(e, 'group');
    }
  }

  private async run(fn: () => Promise<void>, context: string): Promise<boolean> {
    try {
      await fn();
      return true;
    } catch (e) {
      if (context === 'add member' && e instanceof ApiError && e.status === 404) toasts.push('error', t('groups.noSuchUser'));
      else if (context === 'add member' && e instanceof ApiError && e.status === 409 && e.code === 'conflict')
        toasts.push('error', t('groups.cycle'));
      else if (context === 'add member' && e instanceof ApiError && e.status === 409) toasts.push('error', t('groups.already'));
      else handleError(e, context);
      return false;
    }
  }
}
