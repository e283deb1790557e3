import { describe, it, expect } from 'vitest';
import type { HttpRequest, HttpResponse, HttpStack } from 'tus-js-client';
import { makeTusTransport, makeDirResolver } from './tus-transport';
import { ResumeStore, type KeyValueStorage } from '../tus-resume';
import { UploadQueue, type UploadJob, type UploadTransport } from '../state/upload-queue.svelte';

const MiB = 1024 * 1024;
const BASE = 'http://nubo.test/api/v1/uploads/tus';

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

interface FakeUpload {
  length: number;
  offset: number;
  metadata: Record<string, string>;
  node: string | null;
}

function response(status: number, headers: Record<string, string> = {}, body = ''): HttpResponse {
  const h = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return {
    getStatus: () => status,
    getHeader: (n: string) => h[n.toLowerCase()],
    getBody: () => body,
    getUnderlyingObject: () => null,
  };
}

/** A tus server in memory, as the HTTP stack tus-js-client talks to. */
class FakeTusServer implements HttpStack {
  uploads = new Map<string, FakeUpload>();
  log: { method: string; url: string; headers: Record<string, string> }[] = [];
  received = 0;
  /** the next PATCH delivers this many bytes, then the connection breaks */
  cutAfter: number | null = null;
  /** names taken in the target folder (creation with conflict=fail answers 409) */
  taken = new Set<string>();
  /** the file cannot be made when the last byte arrives (its name was taken meanwhile) */
  refuseCompletion = false;
  private seq = 0;

  getName() {
    return 'FakeTusServer';
  }

  createRequest(method: string, url: string): HttpRequest {
    const headers: Record<string, string> = {};
    let progress: (n: number) => void = () => {};
    return {
      getMethod: () => method,
      getURL: () => url,
      setHeader: (k: string, v: string) => void (headers[k] = v),
      getHeader: (k: string) => headers[k],
      setProgressHandler: (fn: (n: number) => void) => void (progress = fn),
      send: async (body: unknown) => {
        this.log.push({ method, url, headers: { ...headers } });
        return this.handle(method, url, headers, body as Blob | null, progress);
      },
      abort: async () => {},
      getUnderlyingObject: () => null,
    };
  }

  methods() {
    return this.log.map((r) => r.method);
  }

  private handle(method: string, url: string, headers: Record<string, string>, body: Blob | null, progress: (n: number) => void): HttpResponse {
    if (headers['Tus-Resumable'] !== '1.0.0') return response(412);
    if (method === 'POST') {
      const metadata: Record<string, string> = {};
      for (const pair of (headers['Upload-Metadata'] ?? '').split(',')) {
        const [k, v] = pair.split(' ');
        if (k) metadata[k] = v ? atob(v) : '';
      }
      if (metadata.conflict === 'fail' && this.taken.has(metadata.filename)) {
        return response(409, {}, '{"error":"already_exists","message":"the name is taken"}');
      }
      const id = `up${++this.seq}`;
      this.uploads.set(id, { length: Number(headers['Upload-Length']), offset: 0, metadata, node: null });
      return response(201, { Location: `/api/v1/uploads/tus/${id}` });
    }
    const id = url.slice(url.lastIndexOf('/') + 1);
    const up = this.uploads.get(id);
    if (!up) return response(404, {}, '{"error":"not_found","message":"no such upload"}');
    if (method === 'HEAD') {
      const h: Record<string, string> = { 'Upload-Offset': String(up.offset), 'Upload-Length': String(up.length) };
      if (up.node) h['X-Nubo-Node-Id'] = up.node;
      return response(200, h);
    }
    if (method === 'DELETE') {
      this.uploads.delete(id);
      return response(204);
    }
    if (method === 'PATCH') {
      if (Number(headers['Upload-Offset']) !== up.offset) return response(409, {}, '{"error":"conflict","message":"offset"}');
      let n = body ? body.size : 0;
      const cut = this.cutAfter;
      if (cut !== null) n = Math.min(n, cut);
      up.offset += n;
      this.received += n;
      progress(n);
      if (cut !== null) {
        this.cutAfter = null;
        throw new Error('connection reset');
      }
      const h: Record<string, string> = { 'Upload-Offset': String(up.offset) };
      if (up.offset === up.length && this.refuseCompletion) {
        return response(409, {}, '{"error":"already_exists","message":"the name is taken"}');
      }
      if (up.offset === up.length) {
        up.node = `node-${id}`;
        h['X-Nubo-Node-Id'] = up.node;
      }
      return response(204, h);
    }
    return response(405);
  }
}

/** tus-js-client's Blob reading, for a test runner outside a browser. */
const blobReader = {
  openFile: async (input: Blob) => ({
    size: input.size,
    slice: async (start: number, end: number) => ({ value: input.slice(start, end), done: end >= input.size }),
    close: () => {},
  }),
};

const fallbackCalls: string[] = [];
const fallback: UploadTransport = {
  send: (job) => {
    fallbackCalls.push(job.name);
    return { done: Promise.resolve({ status: 201 }), abort: () => {} };
  },
};

function setup(server = new FakeTusServer(), storage = new MapStorage(), user = 'user-1') {
  const transport = makeTusTransport({
    fallback,
    endpoint: () => BASE,
    headers: () => ({ 'X-CSRF-Token': 'csrf-1' }),
    user: () => user,
    store: new ResumeStore(() => storage),
    resolveDir: async (folderId, dir) => `${folderId}/${dir}`,
    nodeName: async (id) => `name-of-${id}`,
    threshold: 1 * MiB,
    retryDelays: [],
    httpStack: server,
    fileReader: blobReader,
  });
  return { server, storage, transport };
}

const big = (name = 'big.bin', size = 4 * MiB, lastModified = 1700000000000) =>
  new File([new Uint8Array(size)], name, { lastModified });

function job(file: File, over: Partial<UploadJob> = {}): UploadJob {
  return { folderId: 'folder-1', dir: '', name: file.name, file, conflict: 'fail', ...over };
}

describe('tus transport', () => {
  it('keeps small files on the one-request transport', async () => {
    const { server, transport } = setup();
    const r = await transport.send(job(new File(['tiny'], 'tiny.txt')), () => {}).done;
    expect(r.status).toBe(201);
    expect(fallbackCalls).toContain('tiny.txt');
    expect(server.log).toEqual([]);
  });

  it('creates an upload with the job as metadata, sends it, and names the new file', async () => {
    const { server, transport, storage } = setup();
    const file = big();
    const seen: number[] = [];
    const r = await transport.send(job(file, { conflict: 'rename' }), (n) => seen.push(n)).done;
    expect(r).toEqual({ status: 201, name: 'name-of-node-up1' });
    expect(server.methods()).toEqual(['POST', 'PATCH']);
    const create = server.log[0];
    expect(create.url).toBe(BASE);
    expect(create.headers['Upload-Length']).toBe(String(4 * MiB));
    expect(server.uploads.get('up1')?.metadata).toEqual({
      filename: 'big.bin',
      parent_id: 'folder-1',
      conflict: 'rename',
      mtime: '1700000000000',
    });
    // Every request carries the session's CSRF header, like the UI's other unsafe requests.
    for (const req of server.log) expect(req.headers['X-CSRF-Token']).toBe('csrf-1');
    expect(server.log[1].headers['Content-Type']).toBe('application/offset+octet-stream');
    expect(server.received).toBe(4 * MiB);
    expect(seen.at(-1)).toBe(4 * MiB);
    expect(storage.m.size).toBe(0); // finished: nothing left to resume
  });

  it('after a cut and a reload, the same file picked again continues where the server stands', async () => {
    const storage = new MapStorage();
    const server = new FakeTusServer();
    server.cutAfter = 1.5 * MiB;
    const first = setup(server, storage);
    const r1 = await first.transport.send(job(big()), () => {}).done;
    expect(r1.status).toBe(0); // the connection broke (no retries left in this test)
    expect(storage.m.size).toBe(1); // the URL is kept for later

    // A new page: a new transport over the same storage, and a new File of the same file.
    const second = setup(server, storage);
    const resumed: number[] = [];
    const r2 = await second.transport.send(job(big()), () => {}, (o) => resumed.push(o)).done;
    expect(r2).toEqual({ status: 201, name: 'name-of-node-up1' });
    expect(resumed).toEqual([1.5 * MiB]);
    expect(server.methods()).toEqual(['POST', 'PATCH', 'HEAD', 'PATCH']);
    expect(server.log[3].headers['Upload-Offset']).toBe(String(1.5 * MiB));
    expect(server.received).toBe(4 * MiB); // every byte once
    expect(server.uploads.size).toBe(1);
  });

  it('does not resume a different file, another folder, or another user', async () => {
    const storage = new MapStorage();
    const server = new FakeTusServer();
    server.cutAfter = MiB;
    await setup(server, storage).transport.send(job(big()), () => {}).done;
    for (const [j, user] of [
      [job(big('big.bin', 4 * MiB, 1700000000001)), 'user-1'], // touched since
      [job(big('big.bin', 4 * MiB + 1)), 'user-1'],
      [job(big(), { folderId: 'folder-2' }), 'user-1'],
      [job(big()), 'user-2'],
    ] as const) {
      const resumed: number[] = [];
      const r = await setup(server, storage, user).transport.send(j, () => {}, (o) => resumed.push(o)).done;
      expect(r.status).toBe(201);
      expect(resumed).toEqual([]);
    }
    expect(server.methods().filter((m) => m === 'HEAD')).toEqual([]);
  });

  it('maps a taken name at creation to 409 for the queue, and keeps nothing', async () => {
    const { server, transport, storage } = setup();
    server.taken.add('big.bin');
    const r = await transport.send(job(big()), () => {}).done;
    expect(r.status).toBe(409);
    expect(r.message).toBe('the name is taken');
    expect(storage.m.size).toBe(0);
    // The user's "replace" goes into the next upload's metadata.
    const r2 = await transport.send(job(big(), { conflict: 'overwrite' }), () => {}).done;
    expect(r2.status).toBe(201);
    expect([...server.uploads.values()][0].metadata.conflict).toBe('overwrite');
  });

  it('a name taken by the time the last byte arrives is a conflict, and the upload ends on the server', async () => {
    const { server, transport, storage } = setup();
    server.refuseCompletion = true;
    const r = await transport.send(job(big()), () => {}).done;
    expect(r.status).toBe(409);
    await new Promise((r) => setTimeout(r, 10));
    expect(server.methods()).toEqual(['POST', 'PATCH', 'DELETE']);
    expect(server.uploads.size).toBe(0);
    expect(storage.m.size).toBe(0);
  });

  it('cancel ends the upload on the server (DELETE) and forgets it', async () => {
    const { server, transport, storage } = setup();
    server.cutAfter = MiB; // leaves an upload behind
    await transport.send(job(big()), () => {}).done;
    expect(server.uploads.size).toBe(1);
    // Picked again: it resumes (HEAD), then the user cancels.
    const sent = transport.send(job(big()), () => {}, () => sent.abort());
    expect(await sent.done).toEqual({ status: 0, message: 'aborted' });
    await new Promise((r) => setTimeout(r, 10));
    expect(server.methods()).toContain('DELETE');
    expect(server.uploads.size).toBe(0);
    expect(storage.m.size).toBe(0);
  });

  it('an upload the server forgot (404) starts over', async () => {
    const { server, transport, storage } = setup();
    server.cutAfter = MiB;
    await transport.send(job(big()), () => {}).done;
    server.uploads.clear();
    const r = await transport.send(job(big()), () => {}).done;
    expect(r.status).toBe(201);
    expect(server.methods().slice(2)).toEqual(['HEAD', 'POST', 'PATCH']);
    expect(storage.m.size).toBe(0);
  });

  it('the queue shows where a resumed upload picked up', async () => {
    const storage = new MapStorage();
    const server = new FakeTusServer();
    server.cutAfter = 3 * MiB;
    await setup(server, storage).transport.send(job(big()), () => {}).done;
    const q = new UploadQueue(setup(server, storage).transport);
    q.add('folder-1', [{ file: big() }]);
    for (let i = 0; i < 50 && q.items[0].status !== 'done'; i++) await new Promise((r) => setTimeout(r, 5));
    expect(q.items[0].status).toBe('done');
    expect(q.items[0].resumedAt).toBe(3 * MiB);
    expect(q.items[0].stored).toBe('name-of-node-up1');
  });
});

describe('makeDirResolver', () => {
  it('creates missing folders, finds existing ones, and shares lookups in flight', async () => {
    const folders = new Map<string, { id: string; name: string; kind: string }[]>([['root', [{ id: 'x', name: 'album', kind: 'folder' }]]]);
    const calls: string[] = [];
    let n = 0;
    const resolve = makeDirResolver({
      mkdir: async (parent, name) => {
        calls.push(`mkdir ${parent}/${name}`);
        const list = folders.get(parent) ?? [];
        if (list.some((f) => f.name === name)) throw Object.assign(new Error('taken'), { status: 409 });
        const f = { id: `id${++n}`, name, kind: 'folder' };
        folders.set(parent, [...list, f]);
        return f;
      },
      children: async (parent) => {
        calls.push(`list ${parent}`);
        return { items: folders.get(parent) ?? [], next_cursor: null };
      },
    });
    const [a, b] = await Promise.all([resolve('root', 'album/sub'), resolve('root', 'album/sub/')]);
    expect(a).toBe('id1');
    expect(b).toBe('id1');
    expect(calls).toEqual(['mkdir root/album', 'list root', 'mkdir x/sub']);
  });

  it('refuses a file in the way', async () => {
    const resolve = makeDirResolver({
      mkdir: async () => {
        throw Object.assign(new Error('taken'), { status: 409 });
      },
      children: async () => ({ items: [{ id: 'f', name: 'album', kind: 'file' }], next_cursor: null }),
    });
    await expect(resolve('root', 'album')).rejects.toMatchObject({ status: 409 });
  });
});
