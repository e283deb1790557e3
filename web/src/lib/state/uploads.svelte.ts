// The application's upload queue (one per tab, outlives page changes).
// A file of 1 MiB or more that replaces an existing one goes the delta way
// (only the chunks the server lacks are sent); large files go through tus
// (resumable, also after a reload), the others in one request.
import { UploadQueue } from './upload-queue.svelte';
import { xhrTransport } from '../services/upload-transport';
import { makeDirResolver, makeTusTransport } from '../services/tus-transport';
import { api } from '../services/api';
import { session } from './session.svelte';
import { ResumeStore, type KeyValueStorage } from '../tus-resume';
import { makeDeltaTransport, workerPlanner, type DeltaApi } from '../delta/delta-upload';
import { ApiError, errorFrom } from '../api/client';

function localStore(): KeyValueStorage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // blocked: uploads still work, they just do not survive a reload
  }
}

export const resumeStore = new ResumeStore(localStore);

const resolveDir = makeDirResolver({
  mkdir: (id, name) => api.call('POST /api/v1/nodes/{id}/folders', { path: { id }, body: { name, conflict: 'fail' } }),
  children: (id, cursor) =>
    api.call('GET /api/v1/nodes/{id}/children', { path: { id }, query: { limit: 500, cursor: cursor ?? undefined } }),
});

const tusTransport = makeTusTransport({
  fallback: xhrTransport,
  endpoint: () => new URL(api.url('POST /api/v1/uploads/tus'), globalThis.location?.href ?? 'http://localhost/').href,
  headers: () => api.unsafeHeaders(),
  user: () => session.user?.id ?? null,
  store: resumeStore,
  resolveDir,
  nodeName: async (id) => (await api.call('GET /api/v1/nodes/{id}', { path: { id } })).name,
});

/** The delta API of the signed-in user (chunk bytes go as they are, not as JSON). */
const deltaApi: DeltaApi = {
  start: (body, signal) => api.call('POST /api/v1/uploads/delta', { body, signal }),
  async putChunk(id, hash, bytes, signal) {
    let res: Response;
    try {
      res = await fetch(api.url('PUT /api/v1/uploads/delta/{id}/chunks/{hash}', { id, hash }), {
        method: 'PUT',
        headers: { ...api.unsafeHeaders(), 'Content-Type': 'application/octet-stream', Accept: 'application/json' },
        body: bytes,
        credentials: 'same-origin',
        signal,
      });
    } catch (e) {
      throw new ApiError(0, 'network', e instanceof Error ? e.message : String(e));
    }
    if (!res.ok) throw await errorFrom(res);
  },
  commit: async (id, signal) =>
    (await api.call('POST /api/v1/uploads/delta/{id}/commit', { path: { id }, body: {}, signal })) as {
      name?: string;
      received_bytes?: number;
    },
  cancel: (id) => api.call('DELETE /api/v1/uploads/delta/{id}', { path: { id } }),
};

const deltaTransport = makeDeltaTransport({
  next: tusTransport,
  api: deltaApi,
  planner: workerPlanner,
  user: () => session.user?.id ?? null,
  resolveDir,
});

export const uploads = new UploadQueue(deltaTransport, { concurrency: 3, refresh: () => api.refresh() });
