// XMLHttpRequest transport of the upload queue (fetch has no upload progress).
// A file straight into the target folder is a raw PUT
// (PUT /nodes/{id}/files/{name}); a file of a dropped folder is a one-part
// multipart POST /nodes/{id}/upload whose filename is its relative path, so
// the server creates (or reuses) the folders in one step, race-free.
import { api } from './api';
import type { TransportResult, UploadJob, UploadTransport } from '../state/upload-queue.svelte';

function parse(xhr: XMLHttpRequest): TransportResult {
  let body: unknown = null;
  try {
    body = xhr.responseText ? JSON.parse(xhr.responseText) : null;
  } catch {
    body = null;
  }
  // The multipart endpoint answers 200 with one result per part.
  const items = (body as { items?: { status: number; error?: { message: string } }[] } | null)?.items;
  if (xhr.status === 200 && Array.isArray(items) && items.length === 1) {
    return { status: items[0].status, message: items[0].error?.message };
  }
  return { status: xhr.status, message: (body as { message?: string } | null)?.message };
}

export const xhrTransport: UploadTransport = {
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
      xhr.open('POST', api.url('POST /api/v1/nodes/{id}/upload', { id: job.folderId }, { conflict: job.conflict }));
      for (const [k, v] of Object.entries(api.unsafeHeaders())) xhr.setRequestHeader(k, v);
      xhr.setRequestHeader('Accept', 'application/json');
      const form = new FormData();
      form.append('file', job.file, `${job.dir}/${job.name}`);
      xhr.send(form);
    } else {
      xhr.open(
        'PUT',
        api.url(
          'PUT /api/v1/nodes/{id}/files/{name}',
          { id: job.folderId, name: job.name },
          { conflict: job.conflict, modified: modified || undefined },
        ),
      );
      for (const [k, v] of Object.entries(api.unsafeHeaders())) xhr.setRequestHeader(k, v);
      xhr.setRequestHeader('Accept', 'application/json');
      xhr.setRequestHeader('Content-Type', 'application/octet-stream');
      xhr.send(job.file);
    }
    return { done, abort: () => xhr.abort() };
  },
};
