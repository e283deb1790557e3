// A public link as its bearer uses it: no account, no session. Everything is
// under /api/v1/public/{token}/ (the client never refreshes a session for
// these routes); a password-protected link is opened with POST …/unlock,
// which sets an HttpOnly cookie scoped to this link's routes, so the links
// built here (previews, downloads, the ZIP) carry it by themselves.
import { api } from './api';
import { textOf, type SortKey, type SortOrder, PAGE_SIZE } from './files';
import { makeXhrTransport } from './upload-transport';
import type { Children, Node, NodeWithPath, PublicLink } from '../api/schema.gen';
import { etagValue, hasThumbnail, type ThumbSize } from '../thumbnails';
import type { UploadTransport } from '../state/upload-queue.svelte';

export interface PublicApi {
  info(token: string): Promise<PublicLink>;
  unlock(token: string, password: string): Promise<void>;
  node(token: string, id: string): Promise<NodeWithPath>;
  children(
    token: string,
    id: string,
    sort: SortKey,
    order: SortOrder,
    cursor: string | null,
    signal?: AbortSignal,
  ): Promise<Children>;
}

export const publicApi: PublicApi = {
  info(token) {
    return api.call('GET /api/v1/public/{token}', { path: { token } });
  },
  unlock(token, password) {
    return api.call('POST /api/v1/public/{token}/unlock', { path: { token }, body: { password } });
  },
  node(token, id) {
    return api.call('GET /api/v1/public/{token}/nodes/{id}', { path: { token, id } });
  },
  children(token, id, sort, order, cursor, signal) {
    return api.call('GET /api/v1/public/{token}/nodes/{id}/children', {
      path: { token, id },
      query: { sort, order, limit: PAGE_SIZE, cursor: cursor ?? undefined },
      signal,
    });
  },
};

/** Inline content URL for the viewer. */
export function publicContentUrl(token: string, id: string): string {
  return api.url('GET /api/v1/public/{token}/nodes/{id}/content', { token, id });
}

/** A file's thumbnail through the link (its unlock cookie goes along), or null when it has none. */
export function publicThumbnailUrl(token: string, node: Node, size: ThumbSize = 'small'): string | null {
  if (!hasThumbnail(node)) return null;
  return api.url('GET /api/v1/public/{token}/nodes/{id}/thumbnail', { token, id: node.id }, { size, v: etagValue(node.etag) });
}

export function publicDownloadUrl(token: string, id: string): string {
  return api.url('GET /api/v1/public/{token}/nodes/{id}/content', { token, id }, { download: 1 });
}

export function publicZipUrl(token: string, id: string): string {
  return api.url('GET /api/v1/public/{token}/nodes/{id}/zip', { token, id });
}

/** A text file's first `maxBytes`, for the viewer. */
export async function fetchPublicText(
  token: string,
  id: string,
  maxBytes = 1 << 20,
): Promise<{ text: string; truncated: boolean }> {
  const res = await api.raw('GET /api/v1/public/{token}/nodes/{id}/content', {
    path: { token, id },
    headers: { Range: `bytes=0-${maxBytes - 1}` },
  });
  return textOf(res, maxBytes);
}

/** Uploads through the link (edit and file-drop links); no session, no CSRF token. */
export function publicTransport(token: string): UploadTransport {
  return makeXhrTransport({
    put: (job, modified) =>
      api.url(
        'PUT /api/v1/public/{token}/nodes/{id}/files/{name}',
        { token, id: job.folderId, name: job.name },
        { conflict: job.conflict, modified },
      ),
    multipart: (job) =>
      api.url('POST /api/v1/public/{token}/nodes/{id}/upload', { token, id: job.folderId }, { conflict: job.conflict }),
    headers: () => ({}),
  });
}
