// Resumable uploads (tus 1.0.0 at /api/v1/uploads/tus/, tus-js-client) for
// large files; smaller ones keep the one-request transport it wraps.
//
// A large file is one PATCH from where the server stands (chunkSize
// unlimited); a cut connection is retried after a pause and continues at
// the server's offset (HEAD). Its upload URL is kept in localStorage under a
// fingerprint of user, target folder, name, size and lastModified, so the
// same file picked or dropped again after a reload continues too (the
// transport reports the offset it resumed at). The upload queue's conflict
// answer goes into the upload's metadata; the last byte's response names
// the new file (X-Nubo-Node-Id). Cancel ends the upload on the server
// (termination, DELETE). Requests carry the session's CSRF header like every
// other unsafe request of the UI (cookies go along by themselves).
// tus-js-client loads with the first large file, not with the app.
import type * as tus from 'tus-js-client';
import type { TransportResult, UploadJob, UploadTransport } from '../state/upload-queue.svelte';
import {
  TUS_THRESHOLD,
  abandonAfter,
  choosePrevious,
  errorCode,
  errorMessage,
  retryable,
  uploadFingerprint,
  useTus,
  type PreviousUpload,
  type ResumeStore,
  type StoredUpload,
} from '../tus-resume';

export interface TusTransportOptions {
  /** the transport of files at or below the threshold (and when signed out) */
  fallback: UploadTransport;
  /** absolute URL of the creation endpoint */
  endpoint: () => string;
  /** headers every request carries (the CSRF token) */
  headers: () => Record<string, string>;
  /** the signed-in user's id (part of the fingerprint); null: use the fallback */
  user: () => string | null;
  store: ResumeStore;
  /** the id of folder `dir` ("a/b") below `folderId`, created as needed */
  resolveDir: (folderId: string, dir: string) => Promise<string>;
  /** the stored name of a new file (a "keep both" upload gets a free name) */
  nodeName?: (id: string) => Promise<string | null>;
  threshold?: number;
  retryDelays?: number[];
  /** tests inject a fake HTTP stack (and, outside a browser, a reader of Blobs) */
  httpStack?: tus.HttpStack;
  fileReader?: tus.FileReader;
}

/** Pauses before each retry: the first gives the server time to store what a cut request delivered. */
export const RETRY_DELAYS = [1000, 2000, 4000, 8000, 15000, 30000, 60000];

type Failure = Error & { originalResponse?: tus.HttpResponse | null };

function statusOf(err: Failure): { status: number; body: string | null } {
  const res = err.originalResponse ?? null;
  if (!res) return { status: 0, body: null };
  let body: string | null = null;
  try {
    body = res.getBody();
  } catch {
    body = null;
  }
  return { status: res.getStatus(), body };
}

type TusModule = typeof import('tus-js-client');
let tusModule: Promise<TusModule> | null = null;
const loadTus = (): Promise<TusModule> => {
  if (!tusModule) {
    tusModule = import('tus-js-client');
    tusModule.catch(() => (tusModule = null)); // a failed load is tried again next time
  }
  return tusModule;
};

export function makeTusTransport(o: TusTransportOptions): UploadTransport {
  const threshold = o.threshold ?? TUS_THRESHOLD;
  const stackOf = (t: TusModule): tus.HttpStack => o.httpStack ?? t.defaultOptions.httpStack;

  const withHeaders = (req: tus.HttpRequest) => {
    for (const [k, v] of Object.entries(o.headers())) req.setHeader(k, v);
  };

  /** Ends an upload on the server, quietly (it expires by itself otherwise). */
  async function terminate(url: string) {
    try {
      const t = await loadTus();
      await t.Upload.terminate(url, { httpStack: stackOf(t), onBeforeRequest: withHeaders, retryDelays: [1000] });
    } catch {
      // gone already, or the network is: the server expires it
    }
  }

  /**
   * Completion without the new file's id in the last response (the file
   * could not be made when the last byte came, or a HEAD found every byte
   * there): an empty PATCH at the end asks the server to finish it now.
   */
  async function finishUpload(
    httpStack: tus.HttpStack,
    url: string,
    size: number,
  ): Promise<{ status: number; nodeId: string | null; body: string | null }> {
    const req = httpStack.createRequest('PATCH', url);
    req.setHeader('Tus-Resumable', '1.0.0');
    req.setHeader('Upload-Offset', String(size));
    req.setHeader('Content-Type', 'application/offset+octet-stream');
    withHeaders(req);
    try {
      const res = await req.send(null);
      return { status: res.getStatus(), nodeId: res.getHeader('X-Nubo-Node-Id') ?? null, body: res.getBody() };
    } catch {
      return { status: 0, nodeId: null, body: null };
    }
  }

  function sendTus(job: UploadJob, onProgress: (loaded: number) => void, onResumed?: (offset: number) => void) {
    const user = o.user() as string;
    const file = job.file;
    const size = file.size;
    let upload: tus.Upload | null = null;
    let httpStack: tus.HttpStack | null = null;
    let cancelled = false;
    let settled = false;
    let resolveDone!: (r: TransportResult) => void;
    const done = new Promise<TransportResult>((r) => (resolveDone = r));
    const finish = (r: TransportResult) => {
      if (settled) return;
      settled = true;
      resolveDone(r);
    };

    // The store as this upload sees it: nothing new is kept once cancelled.
    const storage = {
      findAllUploads: () => o.store.findAllUploads(),
      findUploadsByFingerprint: (fp: string) => o.store.findUploadsByFingerprint(fp),
      removeUpload: (key: string) => o.store.removeUpload(key),
      addUpload: (fp: string, u: StoredUpload) => (cancelled ? Promise.resolve('') : o.store.addUpload(fp, u)),
    };

    const onSuccess = async (last: tus.HttpResponse) => {
      const url = upload?.url ?? '';
      let nodeId = last.getHeader('X-Nubo-Node-Id') ?? null;
      if (!nodeId) {
        const r = await finishUpload(httpStack as tus.HttpStack, url, size);
        if (cancelled) return;
        if (r.status < 200 || r.status >= 300 || !r.nodeId) {
          if (abandonAfter(r.status)) void terminate(url);
          finish({ status: r.status === 204 ? 500 : r.status, message: errorMessage(r.body) ?? 'the upload did not finish' });
          return;
        }
        nodeId = r.nodeId;
      }
      let name: string | null = null;
      try {
        name = o.nodeName ? await o.nodeName(nodeId) : null;
      } catch {
        name = null;
      }
      finish({ status: 201, name: name ?? undefined });
    };

    const onError = (err: Failure) => {
      if (cancelled) return;
      const { status, body } = statusOf(err);
      // An upload that cannot finish as it is (the name is taken, the
      // quota is full…) ends on the server and is forgotten here; one cut
      // by the network stays for a retry or a reload.
      if (abandonAfter(status) && upload?.url) void upload.abort(true).catch(() => {});
      finish({ status, message: errorMessage(body) ?? err.message });
    };

    const start = async () => {
      const t = await loadTus();
      httpStack = stackOf(t);
      if (cancelled) return;
      const folderId = job.dir ? await o.resolveDir(job.folderId, job.dir) : job.folderId;
      if (cancelled) return;
      const fingerprint = uploadFingerprint({
        user,
        folderId: job.folderId,
        dir: job.dir,
        name: job.name,
        size,
        lastModified: (file as File).lastModified ?? 0,
      });
      const metadata: Record<string, string> = { filename: job.name, parent_id: folderId, conflict: job.conflict };
      const modified = (file as File).lastModified;
      if (modified) metadata.mtime = String(modified);
      const up: tus.Upload = new t.Upload(file, {
        endpoint: o.endpoint(),
        metadata,
        chunkSize: Number.POSITIVE_INFINITY,
        retryDelays: o.retryDelays ?? RETRY_DELAYS,
        fingerprint: () => Promise.resolve(fingerprint),
        urlStorage: storage,
        storeFingerprintForResuming: true,
        removeFingerprintOnSuccess: true,
        httpStack,
        ...(o.fileReader ? { fileReader: o.fileReader } : {}),
        onBeforeRequest: withHeaders,
        onAfterResponse: (req, res) => {
          if (req.getMethod() !== 'HEAD' || res.getStatus() !== 200) return;
          const offset = Number(res.getHeader('Upload-Offset'));
          if (Number.isFinite(offset) && offset > 0) onResumed?.(offset);
        },
        onProgress: (sent) => {
          if (!cancelled) onProgress(sent);
        },
        onShouldRetry: (err) => {
          const { status, body } = statusOf(err as Failure);
          return !cancelled && retryable(status, errorCode(body));
        },
        onUploadUrlAvailable: () => {
          // Created while being cancelled: end it at once.
          if (cancelled && up.url) void terminate(up.url);
        },
        onSuccess: ({ lastResponse }) => void onSuccess(lastResponse),
        onError: (err) => onError(err as Failure),
      });
      upload = up;
      const previous: PreviousUpload[] = await up.findPreviousUploads();
      if (cancelled) return;
      const pick = choosePrevious(previous, job.conflict);
      for (const p of previous) {
        if (p === pick) continue;
        // Another answer to a conflict than this job's: that upload would make
        // something else, and it holds quota until it expires.
        if (p.uploadUrl) void terminate(p.uploadUrl);
        await o.store.removeUpload(p.urlStorageKey);
      }
      if (pick) up.resumeFromPreviousUpload(pick);
      up.start();
    };

    start().catch((e: unknown) => {
      const status = typeof (e as { status?: unknown })?.status === 'number' ? (e as { status: number }).status : 0;
      finish({ status, message: e instanceof Error ? e.message : String(e) });
    });

    return {
      done,
      abort: () => {
        cancelled = true;
        if (upload) void upload.abort(true).catch(() => {});
        finish({ status: 0, message: 'aborted' });
      },
    };
  }

  return {
    send(job, onProgress, onResumed) {
      if (!useTus(job.file.size, threshold) || !o.user()) return o.fallback.send(job, onProgress, onResumed);
      return sendTus(job, onProgress, onResumed);
    },
  };
}

/** What makeDirResolver needs of the API. */
export interface FolderApi {
  mkdir(parentId: string, name: string): Promise<{ id: string }>;
  children(parentId: string, cursor: string | null): Promise<{ items: { id: string; name: string; kind: string }[]; next_cursor: string | null }>;
}

/**
 * Resolves "a/b" below a folder to a folder id, creating what is missing
 * (what a multipart upload of a dropped folder does on the server). The
 * uploads of one dropped folder share the lookups in flight.
 */
export function makeDirResolver(fapi: FolderApi): (folderId: string, dir: string) => Promise<string> {
  const inflight = new Map<string, Promise<string>>();

  async function ensure(parentId: string, name: string): Promise<string> {
    try {
      return (await fapi.mkdir(parentId, name)).id;
    } catch (e) {
      if ((e as { status?: number })?.status !== 409) throw e;
    }
    const want = name.normalize('NFC');
    let cursor: string | null = null;
    do {
      const page = await fapi.children(parentId, cursor);
      const hit = page.items.find((n) => n.name.normalize('NFC') === want);
      if (hit) {
        if (hit.kind !== 'folder') throw Object.assign(new Error(`"${name}" exists and is not a folder`), { status: 409 });
        return hit.id;
      }
      cursor = page.next_cursor;
    } while (cursor);
    throw Object.assign(new Error(`"${name}" could not be created`), { status: 409 });
  }

  return (folderId, dir) => {
    let parent: Promise<string> = Promise.resolve(folderId);
    let path = '';
    for (const part of dir.split('/').filter(Boolean)) {
      path = path ? `${path}/${part}` : part;
      const key = `${folderId}\n${path}`;
      let p = inflight.get(key);
      if (!p) {
        const from = parent;
        p = from.then((id) => ensure(id, part));
        inflight.set(key, p);
        const clear = () => inflight.delete(key);
        p.then(clear, clear);
      }
      parent = p;
    }
    return parent;
  };
}
