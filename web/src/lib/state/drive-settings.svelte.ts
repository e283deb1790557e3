// What the drive settings dialog shows and does for one shared drive: its
// name (managers rename), its quota (administrators set or remove it), its
// members (any member sees them; managers add users or groups, change roles
// and remove them) and deleting it (managers and administrators). The API
// comes in as an object, so tests hand it a fake; failures go through the
// one error funnel, with "no such user" worded here. After anything that
// may change the caller's list of drives (a new name or quota, the caller's
// own role, a deleted drive) the model asks `refresh` for the caller's view
// of the drive again: its role may have changed, or the drive is gone.
import type { Drive, DriveMember, Group, Role, Sharee } from '../api/schema.gen';
import type { DriveMemberSpec, DrivesApi } from '../services/drives';
import { ApiError } from '../api/client';
import { handleError } from '../services/errors';
import { mayManage, quotaPatch } from '../drives';
import { t } from '../i18n/index.svelte';
import { toasts } from './toasts.svelte';
import { ShareeSuggestions } from './sharee-suggestions.svelte';

const ROLE_ORDER: Record<Role, number> = { manager: 0, editor: 1, viewer: 2 };

/** Members as the dialog lists them: managers first, then editors, viewers; by name within. */
export function sortMembers(members: readonly DriveMember[]): DriveMember[] {
  return [...members].sort(
    (a, b) => ROLE_ORDER[a.role] - ROLE_ORDER[b.role] || a.name.localeCompare(b.name) || a.type.localeCompare(b.type),
  );
}

export class DriveSettingsModel {
  drive = $state<Drive>(undefined!);
  members = $state<DriveMember[]>([]);
  /** groups one may add (every group for administrators, one's own for others) */
  groups = $state<Group[]>([]);
  loading = $state(true);
  /** the first load has ended */
  ready = $state(false);
  busy = $state(false);
  /** the drive is no longer the caller's (deleted, or they left it): the dialog closes */
  gone = $state(false);
  private readonly names = new ShareeSuggestions((q) => this.api.sharees(q));

  constructor(
    drive: Drive,
    private readonly api: DrivesApi,
    /** administrators set quotas and may delete any drive they see */
    readonly isAdmin: boolean,
    /** asks for the caller's drives again; the drive as the caller has it now, null when not any more */
    private readonly refresh: (id: string) => Promise<Drive | null>,
  ) {
    this.drive = drive;
  }

  /** managers rename the drive and change its members */
  get canManage(): boolean {
    return mayManage(this.drive.role);
  }

  /** managers and administrators delete it */
  get canDelete(): boolean {
    return this.canManage || this.isAdmin;
  }

  async load() {
    this.loading = true;
    try {
      const [members, groups] = await Promise.all([
        this.api.members(this.drive.id),
        this.canManage ? this.api.groups().catch(() => [] as Group[]) : Promise.resolve([] as Group[]),
      ]);
      this.members = sortMembers(members);
      this.groups = groups;
    } catch (e) {
      handleError(e, 'drive members');
    } finally {
      this.loading = false;
      this.ready = true;
    }
  }

  /** users to suggest for the name being typed */
  get suggestions(): Sharee[] {
    return this.names.list;
  }

  suggest(q: string, delayMs = 150) {
    this.names.suggest(q, delayMs);
  }

  async rename(name: string): Promise<boolean> {
    if (name === this.drive.name) return true;
    return this.run(async () => {
      this.drive = await this.api.update(this.drive.id, { name });
      toasts.push('success', t('drives.renamed', { name: this.drive.name }));
      await this.sync();
    }, 'rename drive');
  }

  /** Sets the quota (bytes) or removes it (null). */
  async setQuota(bytes: number | null): Promise<boolean> {
    const patch = quotaPatch(this.drive.quota_bytes, bytes);
    if (patch === undefined) return true;
    return this.run(async () => {
      this.drive = await this.api.update(this.drive.id, { quota_bytes: patch });
      toasts.push('success', t('drives.quotaSaved', { name: this.drive.name }));
      await this.sync();
    }, 'drive quota');
  }

  /** Adds a user or a group (or changes the role of one already in). */
  async addMember(spec: DriveMemberSpec): Promise<boolean> {
    return this.run(async () => {
      await this.api.setMember(this.drive.id, spec);
      await this.reloadMembers();
      await this.sync(); // the caller may be in the group just added
    }, 'add member');
  }

  async setRole(member: DriveMember, role: Role): Promise<boolean> {
    if (member.role === role) return true;
    const spec: DriveMemberSpec = member.type === 'user' ? { user: member.name, role } : { group: member.id, role };
    return this.run(async () => {
      await this.api.setMember(this.drive.id, spec);
      this.members = sortMembers(this.members.map((m) => (m.type === member.type && m.id === member.id ? { ...m, role } : m)));
      await this.sync();
    }, 'member role');
  }

  async removeMember(member: DriveMember): Promise<boolean> {
    return this.run(async () => {
      if (member.type === 'user') await this.api.removeUser(this.drive.id, member.name);
      else await this.api.removeGroup(this.drive.id, member.id);
      this.members = this.members.filter((m) => !(m.type === member.type && m.id === member.id));
      toasts.push('success', t('drives.memberRemoved', { name: member.name }));
      await this.sync();
    }, 'remove member');
  }

  /** Deletes the drive and everything in it, for good. */
  async remove(): Promise<boolean> {
    return this.run(async () => {
      await this.api.remove(this.drive.id);
      toasts.push('success', t('drives.deleted', { name: this.drive.name }));
      this.gone = true;
      await this.refresh(this.drive.id).catch(() => null);
    }, 'delete drive');
  }

  /** Takes the caller's fresh view of the drive (its role may have changed). */
  private async sync() {
    let fresh: Drive | null;
    try {
      fresh = await this.refresh(this.drive.id);
    } catch {
      return; // the change itself worked; the view catches up on the next refresh
    }
    if (fresh) this.drive = fresh;
    else this.gone = true;
  }

  private async reloadMembers() {
    this.members = sortMembers(await this.api.members(this.drive.id));
  }

  private async run(fn: () => Promise<void>, context: string): Promise<boolean> {
    this.busy = true;
    try {
      await fn();
      return true;
    } catch (e) {
      if (context === 'add member' && e instanceof ApiError && e.status === 404) toasts.push('error', t('drives.noSuchUser'));
      else handleError(e, context);
      // A change that failed may have been a stale view: show what is true now.
      if (context === 'member role' || context === 'remove member') await this.reloadMembers().catch(() => {});
      return false;
    } finally {
      this.busy = false;
    }
  }
}
