import { describe, it, expect } from 'vitest';
import {
  TUS_THRESHOLD,
  RESUME_TTL_MS,
  STORAGE_PREFIX,
  ResumeStore,
  abandonAfter,
  choosePrevious,
  errorCode,
  errorMessage,
  percentOf,
  retryable,
  uploadFingerprint,
  useTus,
  type KeyValueStorage,
  type PreviousUpload,
} from './tus-resume';

/** localStorage's interface over a Map (insertion order, like browsers keep it stable enough). */
class MapStorage implements KeyValueStorage {
  m = new Map<string, string>();
  get length() {
    return this.m.size;
  }
  key(i: number) {
    return [...this.m.keys()][i] ?? null;
  }
  getItem(k: string) {
    return this.m.get(k) ?? null;
  }
  setItem(k: string, v: string) {
    this.m.set(k, v);
  }
  removeItem(k: string) {
    this.m.delete(k);
  }
}

const parts = { user: 'u1', folderId: 'f1', dir: '', name: 'movie.mkv', size: 123456789, lastModified: 1700000000000 };

describe('useTus', () => {
  it('sends files above 8 MiB through tus and keeps the others on the one-request path', () => {
    expect(TUS_THRESHOLD).toBe(8 * 1024 * 1024);
    expect(useTus(0)).toBe(false);
    expect(useTus(TUS_THRESHOLD)).toBe(false);
    expect(useTus(TUS_THRESHOLD + 1)).toBe(true);
    expect(useTus(20 * 1024 * 1024)).toBe(true);
    expect(useTus(100, 99)).toBe(true);
  });
});

describe('uploadFingerprint', () => {
  it('is the same for the same file into the same folder, and differs in every part', () => {
    const fp = uploadFingerprint(parts);
    expect(uploadFingerprint({ ...parts })).toBe(fp);
    for (const [k, v] of Object.entries({ user: 'u2', folderId: 'f2', dir: 'a', name: 'other.mkv', size: 1, lastModified: 1 })) {
      expect(uploadFingerprint({ ...parts, [k]: v }), k).not.toBe(fp);
    }
  });

  it('cannot be confused by separators inside names', () => {
    const a = uploadFingerprint({ ...parts, dir: 'a/b', name: 'c' });
    const b = uploadFingerprint({ ...parts, dir: 'a', name: 'b/c' });
    expect(a).not.toBe(b);
    expect(uploadFingerprint({ ...parts, name: 'x::y' })).not.toContain('::');
  });
});

describe('ResumeStore', () => {
  const upload = (url: string, conflict = 'fail') => ({
    size: 10,
    metadata: { filename: 'a', conflict },
    creationTime: 'now',
    uploadUrl: url,
  });

  it('finds uploads by fingerprint, newest first, and forgets removed ones', async () => {
    const s = new MapStorage();
    let now = 1000;
    const store = new ResumeStore(() => s, () => now);
    const k1 = await store.addUpload('fp', upload('/u/1'));
    now += 5;
    await store.addUpload('fp', upload('/u/2'));
    await store.addUpload('other', upload('/u/3'));
    expect(k1.startsWith(STORAGE_PREFIX)).toBe(true);
    const found = await store.findUploadsByFingerprint('fp');
    expect(found.map((p) => p.uploadUrl)).toEqual(['/u/2', '/u/1']);
    expect(found[1].urlStorageKey).toBe(k1);
    expect(found[0].parallelUploadUrls).toBeNull();
    expect((await store.findAllUploads()).length).toBe(3);
    await store.removeUpload(k1);
    expect((await store.findUploadsByFingerprint('fp')).map((p) => p.uploadUrl)).toEqual(['/u/2']);
  });

  it('survives a reload: a new store over the same storage finds what the old one kept', async () => {
    const s = new MapStorage();
    await new ResumeStore(() => s).addUpload('fp', upload('/u/1'));
    expect((await new ResumeStore(() => s).findUploadsByFingerprint('fp')).map((p) => p.uploadUrl)).toEqual(['/u/1']);
  });

  it('drops entries older than the server keeps uploads, and malformed ones', async () => {
    const s = new MapStorage();
    let now = 0;
    const store = new ResumeStore(() => s, () => now);
    await store.addUpload('fp', upload('/old'));
    now = RESUME_TTL_MS - 1;
    await store.addUpload('fp', upload('/new'));
    s.setItem(STORAGE_PREFIX + 'junk', '{not json');
    s.setItem('someone-else', 'kept');
    now = RESUME_TTL_MS + 1;
    expect((await store.findUploadsByFingerprint('fp')).map((p) => p.uploadUrl)).toEqual(['/new']);
    expect([...s.m.keys()].filter((k) => k.startsWith(STORAGE_PREFIX))).toHaveLength(1);
    expect(s.getItem('someone-else')).toBe('kept');
  });

  it('clear forgets every upload and nothing else', async () => {
    const s = new MapStorage();
    const store = new ResumeStore(() => s);
    await store.addUpload('fp', upload('/u/1'));
    s.setItem('nubo.accessExpiresAt', '1');
    store.clear();
    expect([...s.m.keys()]).toEqual(['nubo.accessExpiresAt']);
  });

  it('works without storage (blocked or full): nothing is kept, nothing fails', async () => {
    const none = new ResumeStore(() => null);
    expect(await none.addUpload('fp', upload('/u'))).toBe('');
    expect(await none.findUploadsByFingerprint('fp')).toEqual([]);
    const full = new MapStorage();
    full.setItem = () => {
      throw new Error('QuotaExceededError');
    };
    expect(await new ResumeStore(() => full).addUpload('fp', upload('/u'))).toBe('');
  });
});

describe('choosePrevious', () => {
  const prev = (url: string | null, conflict?: string): PreviousUpload => ({
    size: 1,
    metadata: conflict ? { conflict } : {},
    creationTime: '',
    uploadUrl: url,
    parallelUploadUrls: null,
    urlStorageKey: 'k' + url,
  });

  it('a fresh job ("fail") continues the newest earlier upload, whatever it was answered', () => {
    expect(choosePrevious([prev('/a', 'overwrite'), prev('/b')], 'fail')?.uploadUrl).toBe('/a');
    expect(choosePrevious([prev(null), prev('/b')], 'fail')?.uploadUrl).toBe('/b');
    expect(choosePrevious([], 'fail')).toBeNull();
  });

  it('an answered conflict continues only an upload with the same answer', () => {
    expect(choosePrevious([prev('/a', 'fail'), prev('/b', 'rename')], 'rename')?.uploadUrl).toBe('/b');
    expect(choosePrevious([prev('/a')], 'overwrite')).toBeNull();
  });
});

describe('helpers', () => {
  it('percentOf is whole, and 100 only at the end', () => {
    expect(percentOf(0, 100)).toBe(0);
    expect(percentOf(42, 100)).toBe(42);
    expect(percentOf(999, 1000)).toBe(99);
    expect(percentOf(1000, 1000)).toBe(100);
    expect(percentOf(0, 0)).toBe(100);
    expect(percentOf(10 * 1024 * 1024, 20 * 1024 * 1024)).toBe(50);
  });

  it('retries cut connections, server errors, locks and offset races, not refusals', () => {
    expect(retryable(0, null)).toBe(true);
    expect(retryable(500, 'internal')).toBe(true);
    expect(retryable(503, null)).toBe(true);
    expect(retryable(423, 'locked')).toBe(true);
    expect(retryable(409, 'conflict')).toBe(true); // "the upload is at offset n"
    expect(retryable(409, 'aborted')).toBe(true);
    expect(retryable(409, 'already_exists')).toBe(false); // the name is taken: the user decides
    for (const s of [400, 401, 403, 404, 412, 413, 415, 460, 507]) expect(retryable(s, null), String(s)).toBe(false);
  });

  it('ends uploads on the server that cannot finish, keeps those worth resuming', () => {
    for (const s of [400, 403, 404, 409, 412, 413, 460, 507]) expect(abandonAfter(s), String(s)).toBe(true);
    for (const s of [0, 401, 423, 429, 500, 503]) expect(abandonAfter(s), String(s)).toBe(false);
  });

  it('reads the error code and message of a JSON error body', () => {
    const body = '{"error":"already_exists","message":"name taken"}';
    expect(errorCode(body)).toBe('already_exists');
    expect(errorMessage(body)).toBe('name taken');
    expect(errorCode('not json')).toBeNull();
    expect(errorCode('')).toBeNull();
    expect(errorMessage(null)).toBeNull();
  });
});
