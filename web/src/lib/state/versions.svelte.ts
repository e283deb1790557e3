// What the versions panel shows and does for one file: its current content
// and its earlier versions (newest first), download, restore (the content
// that was current becomes a version) and delete. The API comes in as an
// object, so tests hand it a fake; failures go through the one error funnel.
// After a restore or a delete `changed` hears of it: the Files page puts the
// file's new size and date in its row and asks for the usage again.
import type { Node, Version } from '../api/schema.gen';
import type { VersionsApi } from '../services/versions';
import { handleError } from '../services/errors';
import { versionRows, type VersionRow } from '../versions';
import { t } from '../i18n/index.svelte';
import { toasts } from './toasts.svelte';

export class VersionsModel {
  file = $state<Node>(undefined!);
  versions = $state<Version[]>([]);
  loading = $state(true);
  /** the first load has ended */
  ready = $state(false);
  busy = $state(false);
  /** the current content on top, then the versions, newest first */
  rows = $derived<VersionRow[]>(versionRows(this.file, this.versions));

  constructor(
    file: Node,
    private readonly api: VersionsApi,
    /** viewers of a shared drive download but neither restore nor delete */
    readonly readOnly: boolean,
    /** the file after a restore; null after a delete (only the usage changed) */
    private readonly changed: (file: Node | null) => void = () => {},
  ) {
    this.file = file;
  }

  async load() {
    this.loading = true;
    try {
      this.versions = await this.api.list(this.file.id);
    } catch (e) {
      handleError(e, 'versions');
    } finally {
      this.loading = false;
      this.ready = true;
    }
  }

  /** A URL that downloads the row's content (the current one is the file's own). */
  downloadUrl(row: VersionRow): string {
    return this.api.downloadUrl(this.file.id, row.id);
  }

  /** Makes the row's content current again; true when it worked. */
  async restore(row: VersionRow): Promise<boolean> {
    const id = row.id;
    if (!id || this.readOnly) return false;
    return this.run(async () => {
      const file = await this.api.restore(this.file.id, id);
      this.file = file;
      toasts.push('success', t('versions.restored', { name: file.name }));
      this.changed(file);
      await this.load();
    }, 'restore version');
  }

  /** Deletes the row's version for good; true when it worked. */
  async remove(row: VersionRow): Promise<boolean> {
    const id = row.id;
    if (!id || this.readOnly) return false;
    return this.run(async () => {
      await this.api.remove(this.file.id, id);
      this.versions = this.versions.filter((v) => v.id !== id);
      toasts.push('success', t('versions.deleted'));
      this.changed(null);
    }, 'delete version');
  }

  private async run(fn: () => Promise<void>, context: string): Promise<boolean> {
    this.busy = true;
    try {
      await fn();
      return true;
    } catch (e) {
      handleError(e, context);
      // A version that is gone (thinned out, deleted elsewhere): show what is true now.
      void this.load();
      return false;
    } finally {
      this.busy = false;
    }
  }
}
