// The upload queue: lives outside pages so uploads go on while the user
// navigates. A few files upload at a time; each reports byte progress; the
// queue derives totals, speed and ETA; a 409 pauses that file for the user's
// choice (replace, keep both, skip — optionally for all later conflicts); a
// 507 is a quota error; a 401 refreshes the session once and retries.
//
// A large file's transport may resume an earlier upload of it (tus): it
// says so, and the item remembers where it picked up. A delta upload (a
// new version of a file) says how many bytes the server already had.
//
// The transport (XHR and tus in the app, a fake in tests) is injected.
export type ConflictPolicy = 'fail' | 'overwrite' | 'rename';
export type ConflictChoice = 'replace' | 'keep-both' | 'skip';
export type UploadStatus = 'queued' | 'uploading' | 'done' | 'error' | 'cancelled' | 'conflict' | 'skipped';

export interface UploadJob {
  /** destination folder id (the drop target) */
  folderId: string;
  /** folders below folderId ("" or "a/b"), created by the server as needed */
  dir: string;
  name: string;
  file: Blob;
  conflict: ConflictPolicy;
}

export interface TransportResult {
  status: number;
  message?: string;
  /** the name the file was stored under (a file-drop link renames instead of replacing) */
  name?: string;
  /** bytes of the file the server already had and that were not sent (delta uploads) */
  skipped?: number;
}

export interface UploadTransport {
  /**
   * Starts one upload. `onProgress` gets the bytes of the file sent so far
   * (counting what an earlier, resumed upload already delivered);
   * `onResumed` the offset the server already had when the upload
   * continues an earlier one; `onSkipped` the bytes a delta upload need
   * not send (the server has them), counted in `loaded` from then on.
   */
  send(
    job: UploadJob,
    onProgress: (loaded: number) => void,
    onResumed?: (offset: number) => void,
    onSkipped?: (bytes: number) => void,
  ): { done: Promise<TransportResult>; abort(): void };
}

export interface UploadItem {
  id: number;
  job: UploadJob;
  size: number;
  loaded: number;
  status: UploadStatus;
  error: string | null;
  errorKind: 'quota' | 'too-large' | 'network' | 'other' | null;
  /** done: the name the server stored the file under, when it said so */
  stored: string | null;
  /** bytes the server already had when this upload continued an earlier one (null: it did not) */
  resumedAt: number | null;
  /** bytes the server already had and were not sent (a delta upload; null: not one) */
  skipped: number | null;
  /** ms when the item finished (done, error…) */
  finishedAt: number | null;
}

export interface QueueOptions {
  concurrency?: number;
  now?: () => number;
  /** rotates the session after a 401; resolves true when it worked */
  refresh?: () => Promise<boolean>;
}

const SPEED_WINDOW_MS = 5000;

export class UploadQueue {
  items = $state<UploadItem[]>([]);
  /** "apply to all" answer to conflicts, until the queue drains */
  conflictAnswer = $state<ConflictChoice | null>(null);
  /** bumps whenever a file lands, so listings can refresh */
  landed = $state(0);
  /** the folders files landed in most recently */
  landedIn = $state<string[]>([]);

  readonly concurrency: number;
  private readonly now: () => number;
  private readonly refresh?: () => Promise<boolean>;
  private aborts = new Map<number, () => void>();
  private nextId = 1;
  private samples: { t: number; bytes: number }[] = [];
  private tick = $state(0);

  constructor(
    private readonly transport: UploadTransport,
    opts: QueueOptions = {},
  ) {
    this.concurrency = opts.concurrency ?? 3;
    this.now = opts.now ?? (() => Date.now());
    this.refresh = opts.refresh;
  }

  // --- derived totals -------------------------------------------------------
  /** items counted in the totals (not cancelled or skipped) */
  private get counted(): UploadItem[] {
    return this.items.filter((i) => i.status !== 'cancelled' && i.status !== 'skipped');
  }
  get totalBytes(): number {
    return this.counted.reduce((s, i) => s + i.size, 0);
  }
  get loadedBytes(): number {
    return this.counted.reduce((s, i) => s + (i.status === 'done' ? i.size : i.loaded), 0);
  }
  /** 0..1 over every counted file */
  get progress(): number {
    const total = this.totalBytes;
    if (total === 0) return this.counted.length > 0 && this.counted.every((i) => i.status === 'done') ? 1 : 0;
    return this.loadedBytes / total;
  }
  get active(): boolean {
    return this.items.some((i) => i.status === 'queued' || i.status === 'uploading');
  }
  get pendingConflict(): UploadItem | null {
    return this.items.find((i) => i.status === 'conflict') ?? null;
  }
  get counts(): Record<UploadStatus, number> {
    const c = { queued: 0, uploading: 0, done: 0, error: 0, cancelled: 0, conflict: 0, skipped: 0 };
    for (const i of this.items) c[i.status]++;
    return c;
  }
  /** bytes per second over the last few seconds */
  get speed(): number {
    void this.tick;
    const s = this.samples;
    if (s.length < 2) return 0;
    const first = s[0];
    const last = s[s.length - 1];
    const dt = last.t - first.t;
    return dt > 0 ? ((last.bytes - first.bytes) * 1000) / dt : 0;
  }
  /** seconds left at the current speed (Infinity when unknown) */
  get eta(): number {
    const v = this.speed;
    const left = this.totalBytes - this.loadedBytes;
    if (left <= 0) return 0;
    return v > 0 ? left / v : Infinity;
  }

  // --- commands -------------------------------------------------------------
  add(folderId: string, files: { file: Blob & { name?: string }; dir?: string; name?: string }[]): number[] {
    const ids: number[] = [];
    for (const f of files) {
      const id = this.nextId++;
      ids.push(id);
      this.items.push({
        id,
        job: {
          folderId,
          dir: (f.dir ?? '').replace(/^\/+|\/+$/g, ''),
          name: f.name ?? f.file.name ?? 'file',
          file: f.file,
          conflict: 'fail',
        },
        size: f.file.size,
        loaded: 0,
        status: 'queued',
        error: null,
        errorKind: null,
        stored: null,
        resumedAt: null,
        skipped: null,
        finishedAt: null,
      });
    }
    this.pump();
    return ids;
  }

  cancel(id: number) {
    const item = this.find(id);
    if (!item) return;
    if (item.status === 'uploading') this.aborts.get(id)?.();
    if (item.status === 'queued' || item.status === 'uploading' || item.status === 'conflict') {
      item.status = 'cancelled';
      item.finishedAt = this.now();
    }
    this.pump();
  }

  cancelAll() {
    for (const i of this.items) this.cancel(i.id);
  }

  retry(id: number) {
    const item = this.find(id);
    if (!item || !(item.status === 'error' || item.status === 'cancelled' || item.status === 'skipped')) return;
    item.status = 'queued';
    item.loaded = 0;
    item.error = null;
    item.errorKind = null;
    item.finishedAt = null;
    this.pump();
  }

  /** The user's answer to a 409; `all` applies it to every later conflict too. */
  resolve(id: number, choice: ConflictChoice, all = false) {
    if (all) this.conflictAnswer = choice;
    const targets = all ? this.items.filter((i) => i.status === 'conflict') : [this.find(id)].filter(Boolean);
    for (const item of targets as UploadItem[]) this.applyChoice(item, choice);
    this.pump();
  }

  clearFinished() {
    this.items = this.items.filter((i) => i.status === 'queued' || i.status === 'uploading' || i.status === 'conflict');
    if (this.items.length === 0) {
      this.conflictAnswer = null;
      this.samples = [];
    }
  }

  // --- internals ------------------------------------------------------------
  private find(id: number): UploadItem | undefined {
    return this.items.find((i) => i.id === id);
  }

  private applyChoice(item: UploadItem, choice: ConflictChoice) {
    if (choice === 'skip') {
      item.status = 'skipped';
      item.finishedAt = this.now();
      return;
    }
    item.job.conflict = choice === 'replace' ? 'overwrite' : 'rename';
    item.status = 'queued';
    item.loaded = 0;
  }

  private sample() {
    const t = this.now();
    this.samples.push({ t, bytes: this.loadedBytes });
    while (this.samples.length > 2 && t - this.samples[0].t > SPEED_WINDOW_MS) this.samples.shift();
    this.tick++;
  }

  private pump() {
    let running = this.items.filter((i) => i.status === 'uploading').length;
    for (const item of this.items) {
      if (running >= this.concurrency) break;
      if (item.status !== 'queued') continue;
      running++;
      void this.start(item.id);
    }
    if (!this.active && !this.pendingConflict) this.conflictAnswer = this.items.length ? this.conflictAnswer : null;
  }

  private async start(id: number, retried = false): Promise<void> {
    // Always work on the proxied item from the array so changes are reactive.
    const item = this.find(id);
    if (!item) return;
    item.status = 'uploading';
    item.loaded = 0;
    item.resumedAt = null;
    item.skipped = null;
    this.sample();
    const { done, abort } = this.transport.send(
      { ...item.job },
      (loaded) => {
        const it = this.find(id);
        if (it && it.status === 'uploading') {
          it.loaded = Math.min(loaded, it.size);
          this.sample();
        }
      },
      (offset) => {
        const it = this.find(id);
        if (it && it.status === 'uploading') {
          it.resumedAt = Math.min(offset, it.size);
          it.loaded = it.resumedAt;
          // Bytes sent before do not count towards the speed.
          this.samples = [];
          this.sample();
        }
      },
      (bytes) => {
        const it = this.find(id);
        if (it && it.status === 'uploading') {
          it.skipped = bytes > 0 ? Math.min(bytes, it.size) : null;
          it.loaded = it.skipped ?? 0;
          // Bytes not sent do not count towards the speed.
          this.samples = [];
          this.sample();
        }
      },
    );
    this.aborts.set(id, abort);
    let result: TransportResult;
    try {
      result = await done;
    } catch (e) {
      result = { status: 0, message: e instanceof Error ? e.message : String(e) };
    } finally {
      this.aborts.delete(id);
    }
    const it = this.find(id);
    if (!it || it.status !== 'uploading') {
      this.pump();
      return; // cancelled meanwhile
    }
    if (result.status === 401 && !retried && this.refresh && (await this.refresh())) {
      return this.start(id, true);
    }
    this.finish(it, result);
    this.pump();
  }

  private finish(item: UploadItem, r: TransportResult) {
    if (r.status >= 200 && r.status < 300) {
      item.status = 'done';
      item.loaded = item.size;
      item.stored = r.name ?? null;
      if (typeof r.skipped === 'number') item.skipped = r.skipped > 0 ? Math.min(r.skipped, item.size) : null;
      item.finishedAt = this.now();
      this.landed++;
      this.landedIn = [item.job.folderId];
      this.sample();
      return;
    }
    if (r.status === 409 && item.job.conflict === 'fail') {
      if (this.conflictAnswer) {
        this.applyChoice(item, this.conflictAnswer);
      } else {
        item.status = 'conflict';
      }
      return;
    }
    item.status = 'error';
    item.finishedAt = this.now();
    item.error = r.message ?? `HTTP ${r.status}`;
    item.errorKind = r.status === 507 ? 'quota' : r.status === 413 ? 'too-large' : r.status === 0 ? 'network' : 'other';
  }
}
