// File and folder operations over the REST API. Pages call these; components
// only get their results.
import { api } from './api';
import type { Node, NodeWithPath, Children, NodeList, TrashList, Operations } from '../api/schema.gen';
import { etagValue, hasThumbnail, type ThumbSize } from '../thumbnails';

export type SortKey = 'name' | 'size' | 'modified' | 'type';
export type SortOrder = 'asc' | 'desc';
export const PAGE_SIZE = 500;

export function getNode(id: string): Promise<NodeWithPath> {
  return api.call('GET /api/v1/nodes/{id}', { path: { id } });
}

export function listChildren(
  id: string,
  sort: SortKey,
  order: SortOrder,
  cursor?: string | null,
  limit = PAGE_SIZE,
  signal?: AbortSignal,
): Promise<Children> {
  return api.call('GET /api/v1/nodes/{id}/children', {
    path: { id },
    query: { sort, order, limit, cursor: cursor ?? undefined },
    signal,
  });
}

export function createFolder(parentId: string, name: string): Promise<Node> {
  return api.call('POST /api/v1/nodes/{id}/folders', { path: { id: parentId }, body: { name, conflict: 'fail' } });
}

export function rename(id: string, name: string): Promise<Node> {
  return api.call('PATCH /api/v1/nodes/{id}', { path: { id }, body: { name } });
}

export interface BatchOutcome {
  ok: number;
  failed: { id: string; message: string }[];
}

type BatchBody = Operations['POST /api/v1/batch']['body'];

async function batch(body: BatchBody): Promise<BatchOutcome> {
  const r = await api.call('POST /api/v1/batch', { body });
  const failed = r.results
    .filter((x) => x.status >= 300)
    .map((x) => ({ id: x.id, message: x.error?.message ?? String(x.status) }));
  return { ok: r.results.length - failed.length, failed };
}

export function move(ids: string[], parentId: string): Promise<BatchOutcome> {
  return batch({ op: 'move', ids, parent_id: parentId, conflict: 'fail' });
}

/** Copies keep both on a name clash ("name (1).ext"): copying next to the original is common. */
export function copy(ids: string[], parentId: string): Promise<BatchOutcome> {
  return batch({ op: 'copy', ids, parent_id: parentId, conflict: 'rename' });
}

export function trash(ids: string[]): Promise<BatchOutcome> {
  return batch({ op: 'trash', ids });
}

export function restore(ids: string[]): Promise<BatchOutcome> {
  return batch({ op: 'restore', ids });
}

export function deleteForever(ids: string[]): Promise<BatchOutcome> {
  return batch({ op: 'delete', ids });
}

export function restoreOne(id: string): Promise<Node> {
  return api.call('POST /api/v1/nodes/{id}/restore', { path: { id } });
}

export function deleteOneForever(id: string): Promise<void> {
  return api.call('DELETE /api/v1/nodes/{id}', { path: { id }, query: { permanent: true } });
}

/** The personal trash, or a shared drive's (`drive`: its id; editors and managers). */
export function listTrash(cursor?: string | null, drive?: string | null): Promise<TrashList> {
  return api.call('GET /api/v1/trash', { query: { limit: 500, cursor: cursor ?? undefined, drive: drive ?? undefined } });
}

export function emptyTrash(drive?: string | null): Promise<{ deleted: number }> {
  return api.call('DELETE /api/v1/trash', { query: { drive: drive ?? undefined } });
}

export async function setFavorite(id: string, on: boolean): Promise<void> {
  if (on) await api.call('PUT /api/v1/favorites/{id}', { path: { id } });
  else await api.call('DELETE /api/v1/favorites/{id}', { path: { id } });
}

export function listFavorites(cursor?: string | null): Promise<NodeList> {
  return api.call('GET /api/v1/favorites', { query: { limit: 500, cursor: cursor ?? undefined } });
}

export async function listRecent(): Promise<Node[]> {
  return (await api.call('GET /api/v1/recent', { query: { limit: 100 } })).items;
}

export type SearchQuery = Operations['GET /api/v1/search']['query'];

export function search(q: SearchQuery, cursor?: string | null): Promise<NodeList> {
  return api.call('GET /api/v1/search', { query: { ...q, limit: 200, cursor: cursor ?? undefined } });
}

export type ContentSearchPage = Operations['GET /api/v1/search/content']['response'];
/** One file found by its content: the node and the excerpt as segments (matched words marked). */
export type ContentHit = ContentSearchPage['items'][number];
export const CONTENT_PAGE_SIZE = 20;

/** Full-text search in file contents (best match first). */
export function searchContent(q: string, cursor?: string | null, signal?: AbortSignal): Promise<ContentSearchPage> {
  return api.call('GET /api/v1/search/content', {
    query: { q, limit: CONTENT_PAGE_SIZE, cursor: cursor ?? undefined },
    signal,
  });
}

/**
 * A file's thumbnail (WebP), or null for files that have none (not an image,
 * video or PDF). The ETag as `v` lets the browser keep it for good.
 */
export function thumbnailUrl(node: Node, size: ThumbSize = 'small'): string | null {
  if (!hasThumbnail(node)) return null;
  return api.url('GET /api/v1/nodes/{id}/thumbnail', { id: node.id }, { size, v: etagValue(node.etag) });
}

/** Inline content URL (viewers: <img>, <video>, <audio>, <iframe>). */
export function contentUrl(id: string): string {
  return api.url('GET /api/v1/nodes/{id}/content', { id });
}

export function downloadUrl(id: string): string {
  return api.url('GET /api/v1/nodes/{id}/content', { id }, { download: 1 });
}

/** The selection as one ZIP archive named `name`.zip (the server checks the name). */
export function zipUrl(ids: string[], name?: string): string {
  return api.url('GET /api/v1/zip', undefined, { ids: ids.join(','), name });
}

/** What a ZIP of these nodes is called: the one node's name, else "3 items" (from the caller). */
export function zipName(nodes: readonly Node[], several: (count: number) => string): string {
  return nodes.length === 1 && nodes[0].name ? nodes[0].name : several(nodes.length);
}

export function folderZipUrl(id: string): string {
  return api.url('GET /api/v1/nodes/{id}/zip', { id });
}

/** A text file's first `maxBytes` (the viewer does not load huge logs whole). */
export async function fetchText(id: string, maxBytes = 1 << 20): Promise<{ text: string; truncated: boolean }> {
  const res = await api.raw('GET /api/v1/nodes/{id}/content', {
    path: { id },
    headers: { Range: `bytes=0-${maxBytes - 1}` },
  });
  return textOf(res, maxBytes);
}

/** The text of a ranged content response, and whether the file goes on. */
export async function textOf(res: Response, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
  const text = await res.text();
  const range = res.headers.get('Content-Range');
  const total = range ? Number(range.split('/')[1]) : text.length;
  return { text, truncated: res.status === 206 && total > maxBytes };
}

/** Starts a browser download of a same-origin URL (the cookie authenticates it). */
export function startDownload(url: string) {
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}
