// XMLHttpRequest transport of the upload queue (fetch has no upload progress).
// A file straight into the target folder is a raw PUT
// (PUT /nodes/{id}/files/{name}); a file of a dropped folder is a one-part
// multipart POST /nodes/{id}/upload whose filename is its relative path, so
// the server creates (or reuses) the folders in one step, race-free. The
// same requests go to an account's routes or, for a public link's visitor,
// to the link's (/api/v1/public/{token}/…).
import { api } from './api';
import type { TransportResult, UploadJob, UploadTransport } from '../state/upload-queue.svelte';

type Body = { name?: string; message?: string; items?: { status: number; node?: { name: string }; error?: { message: string } }[] };

function parse(xhr: XMLHttpRequest): TransportResult {
  let body: Body | null = null;
  try {
    body = xhr.responseText ? (JSON.parse(xhr.responseText) as Body) : null;
  } catch {
    body = null;
  }
  // The multipart endpoint answers 200 with one result per part.
  const items = body?.items;
  if (xhr.status === 200 && Array.isArray(items) && items.length === 1) {
    return { status: items[0].status, message: items[0].error?.message, name: items[0].node?.name };
  }
  const ok = xhr.status >= 200 && xhr.status < 300;
  return { status: xhr.status, message: body?.message, name: ok ? body?.name : undefined };
}

/** Where uploads go and which headers they carry. */
export interface UploadTarget {
  /** raw PUT of one file into job.folderId */
  put(job: UploadJob, modified: number | undefined): string;
  /** multipart POST into job.folderId */
  multipart(job: UploadJob): string;
  /** extra headers of the unsafe request (the CSRF token of a session) */
  headers(): Record<string, string>;
}

export function makeXhrTransport(target: UploadTarget): UploadTransport {
  return {
    send(job: UploadJob, onProgress) {
      const xhr = new XMLHttpRequest();
      const done = new Promise<TransportResult>((resolve) => {
        xhr.upload.onprogress = (e) => onProgress(e.loaded);
        xhr.onload = () => resolve(parse(xhr));
        xhr.onerror = () => resolve({ status: 0, message: 'network error' });
        xhr.onabort = () => resolve({ status: 0, message: 'aborted' });
      });
      const modified = (job.file as File).lastModified;
      if (job.dir) {
        xhr.open('POST', target.multipart(job));
        for (const [k, v] of Object.entries(target.headers())) xhr.setRequestHeader(k, v);
        xhr.setRequestHeader('Accept', 'application/json');
        const form = new FormData();
        form.append('file', job.file, `${job.dir}/${job.name}`);
        xhr.send(form);
      } else {
        xhr.open('PUT', target.put(job, modified || undefined));
        for (const [k, v] of Object.entries(target.headers())) xhr.setRequestHeader(k, v);
        xhr.setRequestHeader('Accept', 'application/json');
        xhr.setRequestHeader('Content-Type', 'application/octet-stream');
        xhr.send(job.file);
      }
      return { done, abort: () => xhr.abort() };
    },
  };
}

/** The signed-in user's uploads. */
export const xhrTransport: UploadTransport = makeXhrTransport({
  put: (job, modified) =>
    api.url('PUT /api/v1/nodes/{id}/files/{name}', { id: job.folderId, name: job.name }, { conflict: job.conflict, modified }),
  multipart: (job) => api.url('POST /api/v1/nodes/{id}/upload', { id: job.folderId }, { conflict: job.conflict }),
  headers: () => api.unsafeHeaders(),
});
