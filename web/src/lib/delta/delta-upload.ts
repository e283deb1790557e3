// Delta uploads: a file that replaces one the user already has (a new
// version of a document) is cut into the server's content-defined chunks in
// a Web Worker (worker.ts), declared to the server (POST /uploads/delta),
// and only the chunks the server lacks are sent (PUT …/chunks/{hash}, read
// from the File by offset, a few at a time), then committed. Cancel ends
// the upload on the server (DELETE). When the worker or the delta API fails,
// the upload goes the normal way (the transport this one wraps).
import type { ConflictPolicy, TransportResult, UploadJob, UploadTransport } from '../state/upload-queue.svelte';
import { chunkOffsets, type DeltaPlan } from './plan';

/** POST /uploads/delta and GET /uploads/delta/{id} */
export interface DeltaState {
  id: string;
  size: number;
  received_bytes: number;
  needed_bytes: number;
  needed: number[];
  expires: number;
}

export interface DeltaStart {
  parent_id: string;
  name: string;
  conflict: ConflictPolicy;
  if_match?: string;
  modified?: number;
  size: number;
  hash: string;
  chunks: string[];
}

/** The server's delta API; failures throw an Error with `status` (0: network). */
export interface DeltaApi {
  start(body: DeltaStart, signal: AbortSignal): Promise<DeltaState>;
  putChunk(id: string, hash: string, bytes: Blob, signal: AbortSignal): Promise<void>;
  /** the new file (or version): its name and the chunk bytes the server received */
  commit(id: string, signal: AbortSignal): Promise<{ name?: string; received_bytes?: number }>;
  cancel(id: string): Promise<void>;
}

export interface DeltaTarget {
  parentId: string;
  name: string;
  conflict: ConflictPolicy;
  ifMatch?: string;
  modified?: number;
}

export interface DeltaResult {
  id: string;
  name?: string;
  /** chunk bytes that went over the wire */
  receivedBytes: number;
  /** bytes of the file the server already had */
  skippedBytes: number;
}

export interface DeltaOptions {
  /** chunk PUTs in flight */
  concurrency?: number;
  signal?: AbortSignal;
  /** the server's answer to the plan: `skipped` bytes need not be sent */
  onStarted?: (state: DeltaState, skipped: number) => void;
  /** bytes of needed chunks sent so far */
  onSent?: (sent: number) => void;
  /** retries of a chunk PUT cut by the network or a server error */
  retries?: number;
  retryDelay?: number;
}

export const statusOf = (e: unknown): number =>
  typeof (e as { status?: unknown })?.status === 'number' ? (e as { status: number }).status : 0;

const aborted = () => Object.assign(new Error('aborted'), { status: 0, aborted: true });

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(aborted());
    });
  });
}

/**
 * The protocol: declare the plan, send the chunks the server needs, commit.
 * A failure after the start ends the upload on the server and throws.
 */
export async function deltaUpload(
  file: Blob,
  plan: DeltaPlan,
  target: DeltaTarget,
  api: DeltaApi,
  opts: DeltaOptions = {},
): Promise<DeltaResult> {
  const signal = opts.signal ?? new AbortController().signal;
  if (signal.aborted) throw aborted();
  const body: DeltaStart = {
    parent_id: target.parentId,
    name: target.name,
    conflict: target.conflict,
    size: plan.size,
    hash: plan.hash,
    chunks: plan.chunks,
  };
  if (target.ifMatch) body.if_match = target.ifMatch;
  if (target.modified) body.modified = target.modified;
  const state = await api.start(body, signal);
  try {
    const parts = chunkOffsets(plan.chunks);
    const needed = state.needed.map((i) => parts[i]).filter(Boolean);
    const neededBytes = needed.reduce((s, c) => s + c.size, 0);
    opts.onStarted?.(state, Math.max(0, plan.size - neededBytes));
    let sent = 0;
    let next = 0;
    const retries = opts.retries ?? 2;
    const worker = async () => {
      while (next < needed.length) {
        if (signal.aborted) throw aborted();
        const c = needed[next++];
        for (let attempt = 0; ; attempt++) {
          try {
            await api.putChunk(state.id, c.hash, file.slice(c.offset, c.offset + c.size), signal);
            break;
          } catch (e) {
            if (signal.aborted) throw aborted();
            const st = statusOf(e);
            if (attempt >= retries || !(st === 0 || st >= 500 || st === 429)) throw e;
            await sleep((opts.retryDelay ?? 500) * (attempt + 1), signal);
          }
        }
        sent += c.size;
        opts.onSent?.(sent);
      }
    };
    const n = Math.max(1, Math.min(opts.concurrency ?? 4, needed.length));
    await Promise.all(Array.from({ length: n }, worker));
    if (signal.aborted) throw aborted();
    const done = await api.commit(state.id, signal);
    const received = typeof done.received_bytes === 'number' ? done.received_bytes : neededBytes;
    return { id: state.id, name: done.name, receivedBytes: received, skippedBytes: Math.max(0, plan.size - received) };
  } catch (e) {
    // Ends the upload on the server, quietly (it expires by itself otherwise).
    void api.cancel(state.id).catch(() => {});
    throw e;
  }
}

/** Plans a file off the main thread; `cancel` stops the work. */
export type Planner = (file: Blob, onProgress?: (done: number) => void) => { plan: Promise<DeltaPlan>; cancel(): void };

/** The planner of the app: a module Web Worker per file. */
export const workerPlanner: Planner = (file, onProgress) => {
  let worker: Worker | null = null;
  let rejectPlan: (e: Error) => void = () => {};
  const plan = new Promise<DeltaPlan>((resolve, reject) => {
    rejectPlan = reject;
    if (typeof Worker === 'undefined') throw new Error('no Web Workers here');
    worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<{ type: string; done?: number; plan?: DeltaPlan; message?: string }>) => {
      const m = e.data;
      if (m.type === 'progress') onProgress?.(m.done ?? 0);
      else if (m.type === 'plan') resolve(m.plan as DeltaPlan);
      else reject(new Error(m.message ?? 'the worker failed'));
    };
    worker.onerror = (e) => {
      e.preventDefault?.();
      reject(new Error(e.message || 'the worker failed'));
    };
    worker.postMessage({ file });
  });
  const stop = () => (worker as Worker | null)?.terminate();
  plan.then(stop, stop);
  return {
    plan,
    cancel: () => {
      stop();
      rejectPlan(aborted());
    },
  };
};

/** Files from this size replacing an existing one go the delta way. */
export const DELTA_THRESHOLD = 1024 * 1024;

export interface DeltaTransportOptions {
  /** the normal way (tus, XHR): other files, and the fallback */
  next: UploadTransport;
  api: DeltaApi;
  planner: Planner;
  /** the signed-in user's id; null (signed out): the normal way */
  user: () => string | null;
  /** the id of folder `dir` ("a/b") below `folderId` */
  resolveDir: (folderId: string, dir: string) => Promise<string>;
  threshold?: number;
  concurrency?: number;
  /** a delta failure that is not worth the normal way (tests watch it) */
  onFallback?: (job: UploadJob, reason: unknown) => void;
}

/** Whether a job goes the delta way: it replaces a file, and is large enough. */
export function wantsDelta(job: UploadJob, threshold = DELTA_THRESHOLD): boolean {
  return job.conflict === 'overwrite' && job.file.size >= threshold;
}

// Answers of the delta API that the normal way would get too: reported as they are.
const FINAL = new Set([401, 403, 409, 412, 413, 507]);

export function makeDeltaTransport(o: DeltaTransportOptions): UploadTransport {
  return {
    send(job, onProgress, onResumed, onSkipped) {
      if (!wantsDelta(job, o.threshold) || !o.user()) return o.next.send(job, onProgress, onResumed, onSkipped);
      const ctl = new AbortController();
      let planning: { cancel(): void } | null = null;
      let inner: { abort(): void } | null = null;
      let cancelled = false;
      const size = job.file.size;

      const fallback = (reason: unknown): Promise<TransportResult> => {
        o.onFallback?.(job, reason);
        if (cancelled) return Promise.resolve({ status: 0, message: 'aborted' });
        onSkipped?.(0);
        onProgress(0);
        const h = o.next.send(job, onProgress, onResumed, onSkipped);
        inner = h;
        return h.done;
      };

      const run = async (): Promise<TransportResult> => {
        let plan: DeltaPlan;
        try {
          const p = o.planner(job.file);
          planning = p;
          plan = await p.plan;
        } catch (e) {
          return fallback(e);
        } finally {
          planning = null;
        }
        if (cancelled) return { status: 0, message: 'aborted' };
        let skipped = 0;
        try {
          const parentId = job.dir ? await o.resolveDir(job.folderId, job.dir) : job.folderId;
          const modified = (job.file as File).lastModified;
          const r = await deltaUpload(
            job.file,
            plan,
            { parentId, name: job.name, conflict: job.conflict, modified: modified || undefined },
            o.api,
            {
              concurrency: o.concurrency,
              signal: ctl.signal,
              onStarted: (_state, s) => {
                skipped = s;
                onSkipped?.(s);
                onProgress(s);
              },
              onSent: (sent) => onProgress(Math.min(size, skipped + sent)),
            },
          );
          onProgress(size);
          return { status: 201, name: r.name, skipped: r.skippedBytes };
        } catch (e) {
          if (cancelled) return { status: 0, message: 'aborted' };
          const st = statusOf(e);
          if (FINAL.has(st)) return { status: st, message: e instanceof Error ? e.message : String(e) };
          return fallback(e);
        }
      };

      const done = run();
      return {
        done,
        abort: () => {
          cancelled = true;
          planning?.cancel();
          ctl.abort();
          inner?.abort();
        },
      };
    },
  };
}
