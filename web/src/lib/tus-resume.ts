// Pure parts of resumable (tus) uploads: which files take tus, the
// fingerprint that recognizes a file picked again after a reload, the
// storage of unfinished uploads' URLs (tus-js-client's UrlStorage over
// localStorage, expiring with the server's sessions), which stored upload to
// resume, and which failures a retry can fix.
import type { ConflictPolicy } from './state/upload-queue.svelte';

/** Files larger than this upload through tus (resumable); smaller ones in one request. */
export const TUS_THRESHOLD = 8 * 1024 * 1024;
/** The server forgets an unfinished upload after 24 h; forget it a little earlier. */
export const RESUME_TTL_MS = 23 * 60 * 60 * 1000;
export const STORAGE_PREFIX = 'nubo.tus::';

/** Whether a file of `size` bytes uploads through tus. */
export function useTus(size: number, threshold = TUS_THRESHOLD): boolean {
  return size > threshold;
}

export interface FingerprintParts {
  /** the signed-in user (two accounts in one browser never share an upload) */
  user: string;
  folderId: string;
  /** folders below folderId ("" or "a/b") */
  dir: string;
  name: string;
  size: number;
  lastModified: number;
}

/** Identifies "this file into this folder": the same after a reload when the user picks it again. */
export function uploadFingerprint(p: FingerprintParts): string {
  return ['nubo-tus-1', p.user, p.folderId, p.dir, p.name, String(p.size), String(p.lastModified)]
    .map((s) => encodeURIComponent(s))
    .join('/');
}

/** What tus-js-client stores per upload (its PreviousUpload without the key). */
export interface StoredUpload {
  size: number | null;
  metadata: Record<string, string>;
  creationTime: string;
  uploadUrl?: string | null;
  parallelUploadUrls?: string[] | null;
}

export interface PreviousUpload extends StoredUpload {
  uploadUrl: string | null;
  parallelUploadUrls: string[] | null;
  urlStorageKey: string;
}

/** The part of the Web Storage API the store uses (localStorage; a Map in tests). */
export interface KeyValueStorage {
  readonly length: number;
  key(i: number): string | null;
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

interface Entry extends StoredUpload {
  fingerprint: string;
  /** ms when stored */
  savedAt: number;
}

/**
 * tus-js-client's UrlStorage over a KeyValueStorage: one key per upload,
 * entries older than the server keeps sessions are dropped when looked at.
 */
export class ResumeStore {
  private seq = 0;

  constructor(
    private readonly storage: () => KeyValueStorage | null,
    private readonly now: () => number = () => Date.now(),
    private readonly ttlMs = RESUME_TTL_MS,
  ) {}

  private entries(): { key: string; entry: Entry }[] {
    const s = this.storage();
    if (!s) return [];
    const out: { key: string; entry: Entry }[] = [];
    const stale: string[] = [];
    for (let i = 0; i < s.length; i++) {
      const key = s.key(i);
      if (!key || !key.startsWith(STORAGE_PREFIX)) continue;
      let entry: Entry | null = null;
      try {
        entry = JSON.parse(s.getItem(key) ?? 'null') as Entry | null;
      } catch {
        entry = null;
      }
      if (!entry || typeof entry.fingerprint !== 'string' || !(this.now() - entry.savedAt < this.ttlMs)) {
        stale.push(key);
        continue;
      }
      out.push({ key, entry });
    }
    for (const k of stale) s.removeItem(k);
    return out;
  }

  private static previous(key: string, e: Entry): PreviousUpload {
    return {
      size: e.size,
      metadata: e.metadata,
      creationTime: e.creationTime,
      uploadUrl: e.uploadUrl ?? null,
      parallelUploadUrls: e.parallelUploadUrls ?? null,
      urlStorageKey: key,
    };
  }

  async findAllUploads(): Promise<PreviousUpload[]> {
    return this.entries().map(({ key, entry }) => ResumeStore.previous(key, entry));
  }

  /** Newest first. */
  async findUploadsByFingerprint(fingerprint: string): Promise<PreviousUpload[]> {
    return this.entries()
      .filter(({ entry }) => entry.fingerprint === fingerprint)
      .sort((a, b) => b.entry.savedAt - a.entry.savedAt)
      .map(({ key, entry }) => ResumeStore.previous(key, entry));
  }

  async removeUpload(urlStorageKey: string): Promise<void> {
    try {
      this.storage()?.removeItem(urlStorageKey);
    } catch {
      // storage blocked: nothing was kept either
    }
  }

  /** Forgets every stored upload (signing out). */
  clear(): void {
    try {
      for (const { key } of this.entries()) this.storage()?.removeItem(key);
    } catch {
      // storage blocked: nothing was kept
    }
  }

  async addUpload(fingerprint: string, upload: StoredUpload): Promise<string> {
    const s = this.storage();
    if (!s) return '';
    const savedAt = this.now();
    const key = `${STORAGE_PREFIX}${fingerprint}::${savedAt.toString(36)}-${(this.seq++).toString(36)}`;
    const entry: Entry = { ...upload, fingerprint, savedAt };
    try {
      s.setItem(key, JSON.stringify(entry));
    } catch {
      return ''; // full or blocked: this upload just cannot be resumed after a reload
    }
    return key;
  }
}

/**
 * The stored upload to continue for a job, or null to start a new one. A
 * job still on "fail" takes any earlier upload of the same file (the user's
 * answer to a conflict then is carried by that upload); a job with an
 * explicit answer takes only an upload made with the same answer.
 */
export function choosePrevious(previous: PreviousUpload[], conflict: ConflictPolicy): PreviousUpload | null {
  for (const p of previous) {
    if (!p.uploadUrl) continue;
    if (conflict === 'fail' || (p.metadata?.conflict ?? 'fail') === conflict) return p;
  }
  return null;
}

/** Whole percent of `offset` in `size` (never 100 before the end). */
export function percentOf(offset: number, size: number): number {
  if (size <= 0) return 100;
  if (offset >= size) return 100;
  return Math.min(99, Math.floor((offset * 100) / size));
}

/**
 * Whether tus-js-client should retry a failed request: a cut connection,
 * a server error, a locked upload, or a 409 that is no name conflict (a lost
 * race over the offset: the retry asks the server where it stands).
 * 401 goes to the upload queue, which refreshes the session and resumes.
 */
export function retryable(status: number, code: string | null): boolean {
  if (status === 0) return true;
  if (status >= 500) return status !== 501 && status !== 507; // 507: the quota is full
  if (status === 423) return true;
  if (status === 409) return code !== 'already_exists';
  return false;
}

/** The `error` code of a JSON error body, or null. */
export function errorCode(body: string | null | undefined): string | null {
  if (!body) return null;
  try {
    const v = JSON.parse(body) as { error?: unknown };
    return typeof v.error === 'string' ? v.error : null;
  } catch {
    return null;
  }
}

/** The `message` of a JSON error body, or null. */
export function errorMessage(body: string | null | undefined): string | null {
  if (!body) return null;
  try {
    const v = JSON.parse(body) as { message?: unknown };
    return typeof v.message === 'string' ? v.message : null;
  } catch {
    return null;
  }
}

/** Whether an upload that failed with `status` should be ended on the server (it cannot finish as it is). */
export function abandonAfter(status: number): boolean {
  if (status === 507) return true;
  return status >= 400 && status < 500 && status !== 401 && status !== 408 && status !== 423 && status !== 429;
}
