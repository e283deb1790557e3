// What the Files page shows and does: the open folder (with its path and the
// drive it lies in), its paged listing, the selection, inline rename, the open
// dialog. Commands call lib/services and report through the one error funnel.
import type { Drive, Node, NodeWithPath } from '../api/schema.gen';
import * as files from '../services/files';
import { handleError } from '../services/errors';
import { refreshUsage } from '../services/session';
import { FolderListing } from './listing.svelte';
import { Selection } from './selection.svelte';
import { toasts } from './toasts.svelte';
import { uploads } from './uploads.svelte';
import { router } from './router.svelte';
import { t } from '../i18n/index.svelte';
import { fileKind, previewable } from '../format';
import type { PickedFile } from '../services/dropped';
import { sharing } from '../services/sharing';
import { ShareModel } from './share-model.svelte';
import { drives } from './drives.svelte';
import { session } from './session.svelte';
import { driveOf, mayWrite } from '../drives';
import { drivesApi } from '../services/drives';
import { DriveSettingsModel } from './drive-settings.svelte';
import { versionsApi } from '../services/versions';
import { VersionsModel } from './versions.svelte';

export type FilesDialog =
  | { kind: 'new-folder' }
  | { kind: 'pick'; mode: 'move' | 'copy'; ids: string[] }
  | { kind: 'viewer'; index: number }
  | { kind: 'share'; model: ShareModel }
  | { kind: 'drive'; model: DriveSettingsModel }
  | { kind: 'versions'; model: VersionsModel }
  | null;

export class FilesView {
  listing = new FolderListing((id, sort, order, cursor, signal) =>
    files.listChildren(id, sort, order, cursor, files.PAGE_SIZE, signal),
  );
  selection = new Selection();
  node = $state<NodeWithPath | null>(null);
  renamingId = $state<string | null>(null);
  dialog = $state<FilesDialog>(null);
  menu = $state<{ x: number; y: number } | null>(null);

  selectedNodes = $derived(this.listing.items.filter((n) => this.selection.has(n.id)));
  previewables = $derived(this.listing.items.filter((n) => previewable(fileKind(n))));
  /** the caller's drive the folder lies in; null in a share received */
  drive = $derived<Drive | null>(this.node ? driveOf(this.node, drives.all) : null);
  /** a shared drive the caller only views: no uploads, new folders, renames, moves or trash */
  readOnly = $derived(!!this.drive && !mayWrite(this.drive.role));

  async open(folderId: string) {
    this.selection.clear();
    this.renamingId = null;
    this.dialog = null;
    try {
      const [node] = await Promise.all([files.getNode(folderId), this.listing.open(folderId)]);
      if (node.kind !== 'folder') {
        // A file URL: open its folder and preview it.
        router.navigate(`/files/${node.parent_id}`, { replace: true });
        return;
      }
      this.node = node;
      if (this.listing.error) handleError(this.listing.error, 'list');
    } catch (e) {
      handleError(e, 'open folder');
    }
  }

  async reload() {
    const keep = this.selection.ids();
    await this.listing.reload();
    this.selection.retain(this.listing.items.map((n) => n.id).filter((id) => keep.includes(id)));
  }

  openNode(node: Node) {
    if (node.kind === 'folder') {
      router.navigate(`/files/${node.id}`);
      return;
    }
    const index = this.previewables.findIndex((n) => n.id === node.id);
    if (index >= 0) this.dialog = { kind: 'viewer', index };
    else files.startDownload(files.downloadUrl(node.id));
  }

  async createFolder(name: string) {
    if (!this.listing.folderId) return;
    this.dialog = null;
    try {
      const n = await files.createFolder(this.listing.folderId, name);
      toasts.push('success', t('files.created', { name: n.name }));
      await this.reload();
      // Highlight the new folder (keyboard focus, scrolled into view) without
      // selecting it: the toolbar keeps New folder and Upload.
      this.selection.focusOn(n.id);
    } catch (e) {
      handleError(e, 'create folder');
    }
  }

  startRename() {
    const only = this.selectedNodes.length === 1 ? this.selectedNodes[0] : null;
    if (only) this.renamingId = only.id;
  }

  async commitRename(node: Node, name: string | null) {
    if (this.renamingId !== node.id) return;
    this.renamingId = null;
    const clean = name?.trim();
    if (!clean || clean === node.name) return;
    try {
      const updated = await files.rename(node.id, clean);
      this.listing.replace(updated);
      toasts.push('success', t('files.renamed', { name: updated.name }));
    } catch (e) {
      handleError(e, 'rename');
    }
  }

  private report(outcome: files.BatchOutcome, doneKey: 'files.moved' | 'files.copied' | 'files.trashed') {
    if (outcome.ok > 0) toasts.push('success', t(doneKey, { count: outcome.ok }));
    if (outcome.failed.length > 0) {
      toasts.push(
        'error',
        t('files.partial', {
          failed: outcome.failed.length,
          total: outcome.ok + outcome.failed.length,
          message: outcome.failed[0].message,
        }),
      );
    }
  }

  async transfer(mode: 'move' | 'copy', ids: string[], dest: string) {
    this.dialog = null;
    try {
      const outcome = mode === 'move' ? await files.move(ids, dest) : await files.copy(ids, dest);
      this.report(outcome, mode === 'move' ? 'files.moved' : 'files.copied');
      await this.reload();
      if (mode === 'copy') void refreshUsage().catch(() => {});
    } catch (e) {
      handleError(e, mode);
    }
  }

  async trashSelected() {
    const ids = this.selection.ids();
    if (ids.length === 0) return;
    try {
      const outcome = await files.trash(ids);
      this.report(outcome, 'files.trashed');
      this.listing.remove(ids);
      this.selection.clear();
      void refreshUsage().catch(() => {});
    } catch (e) {
      handleError(e, 'trash');
    }
  }

  async toggleFavorite() {
    const nodes = this.selectedNodes;
    if (nodes.length === 0) return;
    const on = !nodes.every((n) => n.favorite);
    try {
      await Promise.all(nodes.map((n) => files.setFavorite(n.id, on)));
      for (const n of nodes) this.listing.replace({ ...n, favorite: on });
    } catch (e) {
      handleError(e, 'favorite');
    }
  }

  /** Opens the share dialog of the one selected item. */
  share() {
    const nodes = this.selectedNodes;
    if (nodes.length !== 1) return;
    const model = new ShareModel(nodes[0], sharing);
    this.dialog = { kind: 'share', model };
    void model.load();
  }

  /** Opens the versions panel of the one selected file. */
  versions() {
    const nodes = this.selectedNodes;
    if (nodes.length !== 1 || nodes[0].kind !== 'file') return;
    const model = new VersionsModel(nodes[0], versionsApi, this.readOnly, (file) => {
      // A restore changes the row (size, date); any change, the usage.
      if (file) this.listing.replace(file);
      void refreshUsage().catch(() => {});
    });
    this.dialog = { kind: 'versions', model };
    void model.load();
  }

  /** Opens the settings (or, for those who do not manage it, the members) of the shared drive shown. */
  driveSettings() {
    const d = this.drive;
    if (!d || d.kind !== 'shared') return;
    const model = new DriveSettingsModel(d, drivesApi, session.isAdmin, (id) => this.driveChanged(id));
    this.dialog = { kind: 'drive', model };
    void model.load();
  }

  /** The caller's view of a drive after a change; when it is gone (deleted, or left), back to the own files. */
  private async driveChanged(id: string): Promise<Drive | null> {
    await refreshUsage();
    const d = drives.byId(id);
    if (!d) {
      this.dialog = null;
      router.navigate('/files');
    }
    return d;
  }

  download() {
    const nodes = this.selectedNodes;
    if (nodes.length === 1 && nodes[0].kind === 'file') files.startDownload(files.downloadUrl(nodes[0].id));
    else this.downloadZip();
  }

  /** The selection as a ZIP named after it: "Reports.zip", "3 items.zip". */
  downloadZip() {
    const nodes = this.selectedNodes;
    if (nodes.length === 0) return;
    const name = files.zipName(nodes, (count) => t('files.zipName', { count }));
    files.startDownload(files.zipUrl(nodes.map((n) => n.id), name));
  }

  upload(picked: PickedFile[]) {
    if (!this.listing.folderId || picked.length === 0 || this.readOnly) return;
    uploads.add(
      this.listing.folderId,
      picked.map((p) => ({ file: p.file, dir: p.dir, name: p.file.name })),
    );
  }

  /** Destinations for the folder picker: a folder, its path and its subfolders. */
  async pickerLevel(id: string) {
    const node = await files.getNode(id);
    const folders: Node[] = [];
    let cursor: string | null = null;
    // Folders come first in every sort order: stop at the first file.
    do {
      const page = await files.listChildren(id, 'name', 'asc', cursor);
      const dirs = page.items.filter((n) => n.kind === 'folder');
      folders.push(...dirs);
      cursor = dirs.length === page.items.length ? page.next_cursor : null;
    } while (cursor);
    return { id: node.id, name: node.name, path: node.path, folders };
  }
}
