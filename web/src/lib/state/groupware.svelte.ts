// The model of the Calendars and Contacts pages: the user's calendars (or
// address books), creating, renaming (and recolouring), deleting, and
// importing a file into one. The DAV requests come in as an object
// (services/dav.ts in the app, a fake in groupware.test.ts); failures go
// through the one error funnel.
import type { Collection, CollectionKind, ImportObject, ImportSummary, PutOutcome, Sharee } from '../dav';
import { importObjects, runImport, shareePrincipal } from '../dav';
import { handleError } from '../services/errors';
import { t } from '../i18n/index.svelte';
import { toasts } from './toasts.svelte';

export interface GroupwareApi {
  list(kind: CollectionKind, user: string): Promise<Collection[]>;
  create(kind: CollectionKind, user: string, displayName: string, color?: string | null): Promise<string>;
  update(href: string, displayName: string, color?: string | null): Promise<void>;
  remove(href: string): Promise<void>;
  put(kind: CollectionKind, collection: string, o: ImportObject): Promise<PutOutcome>;
  /** who an own collection is shared with */
  shares(href: string): Promise<Sharee[]>;
  /** shares it with a principal (read-only unless readWrite), or ends that when readWrite is null */
  share(href: string, principal: string, readWrite: boolean | null): Promise<void>;
}

/** The default collection of each kind, listed first. */
export const DEFAULT_SLUG: Record<CollectionKind, string> = { calendar: 'personal', addressbook: 'contacts' };

/** Default first, then by name. */
export function sortCollections(kind: CollectionKind, list: Collection[]): Collection[] {
  return [...list].sort(
    (a, b) =>
      Number(b.slug === DEFAULT_SLUG[kind]) - Number(a.slug === DEFAULT_SLUG[kind]) ||
      a.displayName.localeCompare(b.displayName) ||
      a.slug.localeCompare(b.slug),
  );
}

/** "2 imported, 1 already there, 1 refused (first reason: …)" in the user's language. */
export function importMessage(s: ImportSummary): string {
  const parts = [t('dav.imported', { count: s.created })];
  if (s.skipped) parts.push(t('dav.skipped', { count: s.skipped }));
  if (s.refused) parts.push(t('dav.refused', { count: s.refused }));
  let text = parts.join(', ');
  if (s.reason) text += ' ' + t('dav.firstReason', { reason: s.reason });
  return text;
}

export class DavCollections {
  items = $state.raw<Collection[]>([]);
  loading = $state(true);
  /** the href being imported into, while an import runs */
  importing = $state<string | null>(null);
  /** the outcome of the last import, by collection href */
  lastImport = $state<{ href: string; summary: ImportSummary; message: string } | null>(null);

  constructor(
    readonly kind: CollectionKind,
    private readonly user: string,
    private readonly api: GroupwareApi,
  ) {}

  byHref(href: string | null | undefined): Collection | null {
    return this.items.find((c) => c.href === href) ?? null;
  }

  async load(): Promise<void> {
    this.loading = true;
    try {
      this.items = sortCollections(this.kind, await this.api.list(this.kind, this.user));
    } catch (e) {
      handleError(e, this.kind);
    } finally {
      this.loading = false;
    }
  }

  /** Creates one; resolves to it (null when that failed). */
  async create(displayName: string, color?: string | null): Promise<Collection | null> {
    try {
      const href = await this.api.create(this.kind, this.user, displayName, color);
      await this.load();
      toasts.push('success', t('dav.created', { name: displayName }));
      return this.byHref(href);
    } catch (e) {
      handleError(e, `create ${this.kind}`);
      return null;
    }
  }

  async update(c: Collection, displayName: string, color?: string | null): Promise<boolean> {
    try {
      await this.api.update(c.href, displayName, this.kind === 'calendar' ? color : undefined);
      this.items = sortCollections(
        this.kind,
        this.items.map((x) => (x.href === c.href ? { ...x, displayName, color: this.kind === 'calendar' ? (color ?? x.color) : null } : x)),
      );
      toasts.push('success', t('dav.saved', { name: displayName }));
      return true;
    } catch (e) {
      handleError(e, `update ${this.kind}`);
      return false;
    }
  }

  /** the sharees of the collection whose sharing is open, by its href */
  sharees = $state<{ href: string; list: Sharee[] } | null>(null);

  async loadShares(c: Collection): Promise<void> {
    try {
      this.sharees = { href: c.href, list: await this.api.shares(c.href) };
    } catch (e) {
      handleError(e, `shares of ${this.kind}`);
    }
  }

  /** Shares `c` with a user or a group (or changes its access), then lists the sharees again. */
  async share(c: Collection, name: string, group: boolean, readWrite: boolean): Promise<boolean> {
    try {
      await this.api.share(c.href, shareePrincipal(name, group), readWrite);
      toasts.push('success', t('dav.sharedWith', { name }));
      await this.loadShares(c);
      return true;
    } catch (e) {
      handleError(e, `share ${this.kind}`);
      return false;
    }
  }

  async unshare(c: Collection, s: Sharee): Promise<boolean> {
    try {
      await this.api.share(c.href, s.principal, null);
      await this.loadShares(c);
      return true;
    } catch (e) {
      handleError(e, `unshare ${this.kind}`);
      return false;
    }
  }

  async remove(c: Collection): Promise<boolean> {
    try {
      await this.api.remove(c.href);
      this.items = this.items.filter((x) => x.href !== c.href);
      if (this.lastImport?.href === c.href) this.lastImport = null;
      toasts.push('success', t(c.sharedBy ? 'dav.left' : 'dav.deleted', { name: c.displayName }));
      return true;
    } catch (e) {
      handleError(e, `delete ${this.kind}`);
      return false;
    }
  }

  /**
   * Imports a file's text into `c`: split into objects, each PUT without
   * overwriting. Resolves to the counts (null when nothing was found or the
   * import failed as a whole); the message goes to a toast and `lastImport`.
   */
  async import(c: Collection, text: string, fileName: string): Promise<ImportSummary | null> {
    const objects = importObjects(this.kind, text);
    if (objects.length === 0) {
      toasts.push('error', t(this.kind === 'calendar' ? 'dav.noEvents' : 'dav.noCards', { file: fileName }));
      return null;
    }
    this.importing = c.href;
    try {
      const summary = await runImport(objects, (o) => this.api.put(this.kind, c.href, o));
      const message = importMessage(summary);
      this.lastImport = { href: c.href, summary, message };
      toasts.push(summary.refused ? 'error' : 'success', message);
      return summary;
    } catch (e) {
      handleError(e, `import ${this.kind}`);
      return null;
    } finally {
      this.importing = null;
    }
  }
}
