// What the share dialog shows and does for one file or folder: its grants
// (people and groups, with role changes and removal), its public links, the
// groups one may share with, and the address of a link just made (the
// server shows a token once; it is stored hashed). The API comes in as an
// object, so tests hand it a fake; failures go through the one error funnel,
// with the sharing-specific ones (no such user, shared already) worded here.
import type {
  Grant,
  GrantPatch,
  GrantSpec,
  Group,
  Link,
  LinkPatch,
  LinkSpec,
  Node,
  Role,
  Sharee,
} from '../api/schema.gen';
import type { SharingApi } from '../services/sharing';
import { ApiError } from '../api/client';
import { handleError } from '../services/errors';
import { absoluteUrl } from '../share';
import { t } from '../i18n/index.svelte';
import { toasts } from './toasts.svelte';
import { ShareeSuggestions } from './sharee-suggestions.svelte';

export class ShareModel {
  grants = $state<Grant[]>([]);
  links = $state<Link[]>([]);
  groups = $state<Group[]>([]);
  loading = $state(true);
  /** the first load has ended (later reloads keep the forms on screen) */
  ready = $state(false);
  /** true when the caller may not share this node (403): the dialog says so */
  denied = $state(false);
  /** the full address of the link just made, shown once */
  fresh = $state<{ id: string; url: string } | null>(null);
  busy = $state(false);
  private readonly names = new ShareeSuggestions((q) => this.api.sharees(q));

  constructor(
    readonly node: Node,
    private readonly api: SharingApi,
    private readonly origin: string = typeof location === 'undefined' ? '' : location.origin,
  ) {}

  async load() {
    this.loading = true;
    try {
      const [grants, links, groups] = await Promise.all([
        this.api.grants(this.node.id),
        this.api.links(this.node.id),
        this.api.groups().catch(() => [] as Group[]), // sharing with users still works
      ]);
      this.grants = grants;
      this.links = links;
      this.groups = groups;
    } catch (e) {
      if (e instanceof ApiError && e.status === 403) this.denied = true;
      else handleError(e, 'load shares');
    } finally {
      this.loading = false;
      this.ready = true;
    }
  }

  /** users to suggest for the name being typed */
  get suggestions(): Sharee[] {
    return this.names.list;
  }

  /** Asks for users whose names start with `q` (see ShareeSuggestions). */
  suggest(q: string, delayMs = 150) {
    this.names.suggest(q, delayMs);
  }

  /** Shares with a user or a group; true when it worked (the form clears). */
  async share(spec: GrantSpec): Promise<boolean> {
    return this.run(async () => {
      const g = await this.api.addGrant(this.node.id, spec);
      this.grants = [...this.grants, g];
      toasts.push('success', t('share.shared', { name: g.grantee.name }));
    }, 'share');
  }

  setRole(grant: Grant, role: Role): Promise<boolean> {
    return this.patch(grant, { role });
  }

  setReshare(grant: Grant, on: boolean): Promise<boolean> {
    return this.patch(grant, { may_reshare: on });
  }

  async revoke(grant: Grant): Promise<boolean> {
    return this.run(async () => {
      await this.api.removeGrant(grant.id);
      this.grants = this.grants.filter((g) => g.id !== grant.id);
      toasts.push('success', t('share.revoked', { name: grant.grantee.name }));
    }, 'revoke');
  }

  /** Makes a link; its address is kept in `fresh` until the dialog closes. */
  async createLink(spec: LinkSpec): Promise<boolean> {
    return this.run(async () => {
      const link = await this.api.createLink(this.node.id, spec);
      const { token: _token, url, ...stored } = link;
      this.links = [...this.links, stored];
      this.fresh = url ? { id: link.id, url: absoluteUrl(this.origin, url) } : null;
    }, 'create link');
  }

  /** Changes what a link allows (its token stays); true when it worked. */
  async updateLink(link: Link, patch: LinkPatch): Promise<boolean> {
    return this.run(async () => {
      const l = await this.api.updateLink(link.id, patch);
      this.links = this.links.map((x) => (x.id === l.id ? l : x));
      toasts.push('success', t('share.linkSaved'));
    }, 'change link');
  }

  async deleteLink(link: Link): Promise<boolean> {
    return this.run(async () => {
      await this.api.removeLink(link.id);
      this.links = this.links.filter((l) => l.id !== link.id);
      if (this.fresh?.id === link.id) this.fresh = null;
      toasts.push('success', t('share.linkDeleted'));
    }, 'delete link');
  }

  private async patch(grant: Grant, patch: GrantPatch): Promise<boolean> {
    return this.run(async () => {
      const g = await this.api.patchGrant(grant.id, patch);
      this.grants = this.grants.map((x) => (x.id === g.id ? g : x));
    }, 'change share');
  }

  private async run(fn: () => Promise<void>, context: string): Promise<boolean> {
    this.busy = true;
    try {
      await fn();
      return true;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404 && context === 'share') toasts.push('error', t('share.noSuchUser'));
      else if (e instanceof ApiError && e.status === 409 && context === 'share') toasts.push('error', t('share.already'));
      else handleError(e, context);
      // A change that failed may have been a stale view: show what is true now.
      if (context !== 'share' && context !== 'create link') void this.load();
      return false;
    } finally {
      this.busy = false;
    }
  }
}
