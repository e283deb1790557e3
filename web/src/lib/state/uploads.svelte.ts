// The application's upload queue (one per tab, outlives page changes).
// Large files go through tus (resumable, also after a reload), the others
// in one request.
import { UploadQueue } from './upload-queue.svelte';
import { xhrTransport } from '../services/upload-transport';
import { makeDirResolver, makeTusTransport } from '../services/tus-transport';
import { api } from '../services/api';
import { session } from './session.svelte';
import { ResumeStore, type KeyValueStorage } from '../tus-resume';

function localStore(): KeyValueStorage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null; // blocked: uploads still work, they just do not survive a reload
  }
}

export const resumeStore = new ResumeStore(localStore);

const tusTransport = makeTusTransport({
  fallback: xhrTransport,
  endpoint: () => new URL(api.url('POST /api/v1/uploads/tus'), globalThis.location?.href ?? 'http://localhost/').href,
  headers: () => api.unsafeHeaders(),
  user: () => session.user?.id ?? null,
  store: resumeStore,
  resolveDir: makeDirResolver({
    mkdir: (id, name) => api.call('POST /api/v1/nodes/{id}/folders', { path: { id }, body: { name, conflict: 'fail' } }),
    children: (id, cursor) =>
      api.call('GET /api/v1/nodes/{id}/children', { path: { id }, query: { limit: 500, cursor: cursor ?? undefined } }),
  }),
  nodeName: async (id) => (await api.call('GET /api/v1/nodes/{id}', { path: { id } })).name,
});

export const uploads = new UploadQueue(tusTransport, { concurrency: 3, refresh: () => api.refresh() });
