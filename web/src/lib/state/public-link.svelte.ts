// What the public link page (/s/<token>) shows: the link (its role), then
// either the password form (401 "password required"), "no such link" (404:
// unknown, revoked and expired links answer alike), a file, a folder's
// listing, or — for a file-drop link — nothing but an upload target: a drop
// link may not read what it points at, so nothing is asked for.
import type { NodeWithPath, PathEntry, PublicLink } from '../api/schema.gen';
import type { PublicApi } from '../services/public-link';
import { ApiError } from '../api/client';
import { describeError, handleError } from '../services/errors';
import { pathWithin } from '../share';
import { t } from '../i18n/index.svelte';
import { FolderListing } from './listing.svelte';

export type PublicStatus = 'loading' | 'missing' | 'locked' | 'ready' | 'failed';

export class PublicLinkView {
  status = $state<PublicStatus>('loading');
  link = $state<PublicLink | null>(null);
  /** the folder or file on screen (null for a drop link) */
  node = $state<NodeWithPath | null>(null);
  /** why the last unlock failed, in the user's language */
  unlockError = $state<string | null>(null);
  unlocking = $state(false);
  listing: FolderListing;
  private target: string | null = null;
  private generation = 0;

  constructor(
    readonly token: string,
    private readonly api: PublicApi,
  ) {
    this.listing = new FolderListing((id, sort, order, cursor, signal) =>
      this.api.children(this.token, id, sort, order, cursor, signal),
    );
  }

  /** The breadcrumbs: from the linked folder down to the parent, never above it. */
  get crumbs(): PathEntry[] {
    if (!this.node || !this.link) return [];
    return pathWithin(this.node.path, this.link.node_id);
  }

  /** Opens the link at `folderId` (a folder inside it), or at its top. */
  async open(folderId: string | null) {
    this.target = folderId;
    const gen = ++this.generation;
    try {
      if (!this.link) this.link = await this.api.info(this.token);
      if (gen !== this.generation) return;
      if (this.link.role === 'drop') {
        this.status = 'ready';
        return;
      }
      const id = folderId ?? this.link.node_id;
      const node = await this.api.node(this.token, id);
      if (gen !== this.generation) return;
      if (node.kind === 'folder') {
        await this.listing.open(id);
        if (gen !== this.generation) return;
        if (this.listing.error) throw this.listing.error;
      }
      this.node = node;
      this.status = 'ready';
    } catch (e) {
      if (gen !== this.generation) return;
      this.fail(e);
    }
  }

  /** Sends the link's password; on success the link opens where it was asked to. */
  async unlock(password: string) {
    this.unlocking = true;
    this.unlockError = null;
    try {
      await this.api.unlock(this.token, password);
      this.status = 'loading';
      await this.open(this.target);
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) this.unlockError = t('public.wrongPassword');
      else if (e instanceof ApiError && e.status === 404) this.status = 'missing';
      else this.unlockError = describeError(e);
    } finally {
      this.unlocking = false;
    }
  }

  private fail(e: unknown) {
    if (e instanceof ApiError && e.status === 401) {
      // The link has a password and this browser has not (or no longer) opened it.
      this.link = null;
      this.status = 'locked';
    } else if (e instanceof ApiError && e.status === 404) {
      this.status = 'missing';
    } else {
      this.status = 'failed';
      handleError(e, 'public link');
    }
  }
}
