// @vitest-environment node
import { describe, expect, it, vi } from 'vitest';
import { blake3Hex } from './blake3';
import { pseudoRandomBytes } from './fastcdc';
import { chunkOffsets, makePlan, type DeltaPlan } from './plan';
import {
  deltaUpload,
  makeDeltaTransport,
  type DeltaApi,
  type DeltaStart,
  type DeltaState,
  type Planner,
} from './delta-upload';
import type { TransportResult, UploadJob, UploadTransport } from '../state/upload-queue.svelte';

const MiB = 1024 * 1024;

/** Byte equality without a 6-million-element deep compare. */
const same = (a: Uint8Array | undefined, b: Uint8Array) => !!a && a.length === b.length && Buffer.compare(a, b) === 0;

async function bytesOf(b: Blob): Promise<Uint8Array> {
  return new Uint8Array(await b.arrayBuffer());
}

function planOf(data: Uint8Array, slice = 3 * MiB + 17): Promise<DeltaPlan> {
  return makePlan(async (off, len) => data.slice(off, off + len), data.length, { slice });
}

/** A server that already has the chunks of `known` files (and checks what it gets). */
class FakeServer implements DeltaApi {
  store = new Map<string, Uint8Array>();
  uploads = new Map<string, { body: DeltaStart; needed: Set<string>; received: number }>();
  puts: string[] = [];
  cancelled: string[] = [];
  committed: Uint8Array[] = [];
  failPut: ((hash: string, n: number) => number | null) | null = null;
  private n = 0;

  constructor(known: Uint8Array[] = []) {
    for (const k of known) this.remember(k);
  }

  remember(data: Uint8Array) {
    return planOf(data).then((p) => {
      for (const c of chunkOffsets(p.chunks)) this.store.set(c.hash, data.slice(c.offset, c.offset + c.size));
    });
  }

  async start(body: DeltaStart): Promise<DeltaState> {
    const id = `u${++this.n}`;
    const needed: number[] = [];
    const seen = new Set<string>();
    body.chunks.forEach((c, i) => {
      const h = c.split(':')[0];
      if (!this.store.has(h) && !seen.has(h)) needed.push(i);
      seen.add(h);
    });
    const neededBytes = needed.reduce((s, i) => s + Number(body.chunks[i].split(':')[1]), 0);
    this.uploads.set(id, { body, needed: new Set(needed.map((i) => body.chunks[i].split(':')[0])), received: 0 });
    return { id, size: body.size, received_bytes: 0, needed_bytes: neededBytes, needed, expires: 0 };
  }

  async putChunk(id: string, hash: string, bytes: Blob): Promise<void> {
    const u = this.uploads.get(id);
    if (!u) throw Object.assign(new Error('no such upload'), { status: 404 });
    this.puts.push(hash);
    const fail = this.failPut?.(hash, this.puts.length);
    if (fail !== null && fail !== undefined) throw Object.assign(new Error('put failed'), { status: fail });
    const data = await bytesOf(bytes);
    if (blake3Hex(data) !== hash) throw Object.assign(new Error('hash mismatch'), { status: 400 });
    this.store.set(hash, data);
    u.received += data.length;
    u.needed.delete(hash);
  }

  async commit(id: string): Promise<{ name?: string; received_bytes?: number }> {
    const u = this.uploads.get(id);
    if (!u) throw Object.assign(new Error('no such upload'), { status: 404 });
    if (u.needed.size) throw Object.assign(new Error('chunks missing'), { status: 409 });
    const parts = u.body.chunks.map((c) => this.store.get(c.split(':')[0]) as Uint8Array);
    const whole = new Uint8Array(u.body.size);
    let off = 0;
    for (const p of parts) {
      whole.set(p, off);
      off += p.length;
    }
    if (blake3Hex(whole) !== u.body.hash) throw Object.assign(new Error('whole hash mismatch'), { status: 400 });
    this.committed.push(whole);
    this.uploads.delete(id);
    return { name: u.body.name, received_bytes: u.received };
  }

  async cancel(id: string): Promise<void> {
    this.cancelled.push(id);
    this.uploads.delete(id);
  }
}

function modified(data: Uint8Array, at: number): Uint8Array {
  const out = data.slice();
  out[at] ^= 0xff;
  return out;
}

describe('makePlan', () => {
  it('is the same whatever the slice size, and names each chunk by its bytes', async () => {
    const data = pseudoRandomBytes(3 * MiB + 12345, 5n);
    const a = await planOf(data, 4 * MiB);
    for (const slice of [65536, 1000003, MiB, 2 * MiB - 1]) expect(await planOf(data, slice)).toEqual(a);
    expect(a.size).toBe(data.length);
    expect(a.hash).toBe(blake3Hex(data));
    for (const c of chunkOffsets(a.chunks)) expect(blake3Hex(data.subarray(c.offset, c.offset + c.size))).toBe(c.hash);
  });

  it('reports progress and plans an empty file', async () => {
    const seen: number[] = [];
    const data = pseudoRandomBytes(2 * MiB + 1, 6n);
    await makePlan(async (o, l) => data.slice(o, o + l), data.length, { slice: MiB, onProgress: (d) => seen.push(d) });
    expect(seen).toEqual([MiB, 2 * MiB, 2 * MiB + 1]);
    const empty = await makePlan(async () => new Uint8Array(0), 0);
    expect(empty).toEqual({ size: 0, hash: blake3Hex(new Uint8Array(0)), chunks: [] });
  });
});

describe('deltaUpload', () => {
  const target = { parentId: 'root', name: 'doc.bin', conflict: 'overwrite' as const };

  it('sends only the chunks the server lacks, then commits', async () => {
    const old = pseudoRandomBytes(6 * MiB, 11n);
    const server = new FakeServer();
    await server.remember(old);
    const next = modified(old, 3 * MiB);
    const plan = await planOf(next);
    const started: number[] = [];
    const sentSeen: number[] = [];
    const r = await deltaUpload(new Blob([next as BlobPart]), plan, target, server, {
      onStarted: (_s, skipped) => started.push(skipped),
      onSent: (s) => sentSeen.push(s),
    });
    expect(server.committed).toHaveLength(1);
    expect(same(server.committed[0], next)).toBe(true);
    // One byte changed: one chunk (at most two) went over the wire.
    expect(server.puts.length).toBeGreaterThanOrEqual(1);
    expect(server.puts.length).toBeLessThanOrEqual(2);
    expect(r.receivedBytes).toBeLessThanOrEqual(2 * MiB);
    expect(r.skippedBytes).toBe(next.length - r.receivedBytes);
    expect(r.skippedBytes).toBeGreaterThan(4 * MiB);
    expect(started).toEqual([r.skippedBytes]);
    expect(sentSeen.at(-1)).toBe(r.receivedBytes);
    expect(server.cancelled).toEqual([]);
  });

  it('sends a repeated chunk once, and everything for a new file', async () => {
    const part = pseudoRandomBytes(2 * MiB, 12n);
    const data = new Uint8Array(4 * MiB);
    data.set(part, 0);
    data.set(part, 2 * MiB);
    const server = new FakeServer();
    const plan = await planOf(data);
    const r = await deltaUpload(new Blob([data as BlobPart]), plan, target, server, { concurrency: 3 });
    expect(new Set(server.puts).size).toBe(server.puts.length);
    expect(same(server.committed[0], data)).toBe(true);
    // The repeated half may share most of its chunks with the first.
    expect(r.receivedBytes).toBeLessThan(data.length);
    expect(r.receivedBytes).toBeGreaterThanOrEqual(2 * MiB - MiB);
  });

  it('keeps at most `concurrency` chunks in flight', async () => {
    const data = pseudoRandomBytes(5 * MiB, 13n);
    const server = new FakeServer();
    let inFlight = 0;
    let most = 0;
    const put = server.putChunk.bind(server);
    server.putChunk = async (id, hash, bytes) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((r) => setTimeout(r, 2));
      try {
        await put(id, hash, bytes);
      } finally {
        inFlight--;
      }
    };
    await deltaUpload(new Blob([data as BlobPart]), await planOf(data), target, server, { concurrency: 4 });
    expect(most).toBe(4);
    expect(same(server.committed[0], data)).toBe(true);
  });

  it('retries a chunk cut by the network, and gives up on a refusal (cancelling on the server)', async () => {
    const data = pseudoRandomBytes(2 * MiB, 14n);
    const plan = await planOf(data);
    const server = new FakeServer();
    server.failPut = (_h, n) => (n === 1 ? 0 : null);
    await deltaUpload(new Blob([data as BlobPart]), plan, target, server, { retryDelay: 1 });
    expect(server.committed).toHaveLength(1);

    const refusing = new FakeServer();
    refusing.failPut = () => 403;
    await expect(deltaUpload(new Blob([data as BlobPart]), plan, target, refusing, { retryDelay: 1 })).rejects.toMatchObject({
      status: 403,
    });
    expect(refusing.cancelled).toEqual(['u1']);
    expect(refusing.committed).toHaveLength(0);
  });

  it('cancel stops sending and ends the upload on the server', async () => {
    const data = pseudoRandomBytes(6 * MiB, 15n);
    const server = new FakeServer();
    const ctl = new AbortController();
    const put = server.putChunk.bind(server);
    server.putChunk = async (id, hash, bytes) => {
      await put(id, hash, bytes);
      ctl.abort();
    };
    await expect(
      deltaUpload(new Blob([data as BlobPart]), await planOf(data), target, server, { signal: ctl.signal, concurrency: 1 }),
    ).rejects.toMatchObject({ aborted: true });
    expect(server.puts).toHaveLength(1);
    expect(server.cancelled).toEqual(['u1']);
    expect(server.committed).toHaveLength(0);
  });
});

describe('the delta transport', () => {
  const job = (file: Blob, conflict: UploadJob['conflict'] = 'overwrite'): UploadJob => ({
    folderId: 'root',
    dir: '',
    name: 'doc.bin',
    file,
    conflict,
  });
  const inThread: Planner = (file) => ({
    plan: file.arrayBuffer().then((b) => planOf(new Uint8Array(b))),
    cancel: () => {},
  });
  function fakeNext(): UploadTransport & { jobs: UploadJob[] } {
    const jobs: UploadJob[] = [];
    return {
      jobs,
      send(j, onProgress) {
        jobs.push(j);
        onProgress(j.file.size);
        return { done: Promise.resolve<TransportResult>({ status: 201, name: j.name }), abort: () => {} };
      },
    };
  }
  const opts = (server: DeltaApi, next: UploadTransport, planner: Planner = inThread) => ({
    next,
    api: server,
    planner,
    user: () => 'u',
    resolveDir: async () => 'sub',
  });

  it('replacing a file of 1 MiB or more goes the delta way and reports the bytes skipped', async () => {
    const old = pseudoRandomBytes(6 * MiB, 21n);
    const server = new FakeServer();
    await server.remember(old);
    const next = fakeNext();
    const t = makeDeltaTransport(opts(server, next));
    const skipped: number[] = [];
    const progress: number[] = [];
    const data = modified(old, 100);
    const r = await t.send(job(new Blob([data as BlobPart])), (p) => progress.push(p), undefined, (s) => skipped.push(s)).done;
    expect(next.jobs).toHaveLength(0);
    expect(r.status).toBe(201);
    expect(r.skipped).toBeGreaterThan(4 * MiB);
    expect(skipped).toHaveLength(1);
    expect(progress.at(-1)).toBe(data.length);
    expect(same(server.committed[0], data)).toBe(true);
  });

  it('keeps the normal way for new names, small files and signed-out users', async () => {
    const server = new FakeServer();
    const next = fakeNext();
    const t = makeDeltaTransport(opts(server, next));
    await t.send(job(new Blob([pseudoRandomBytes(2 * MiB, 1n) as BlobPart]), 'fail'), () => {}).done;
    await t.send(job(new Blob([pseudoRandomBytes(MiB - 1, 1n) as BlobPart])), () => {}).done;
    const out = makeDeltaTransport({ ...opts(server, next), user: () => null });
    await out.send(job(new Blob([pseudoRandomBytes(2 * MiB, 1n) as BlobPart])), () => {}).done;
    expect(next.jobs).toHaveLength(3);
    expect(server.puts).toHaveLength(0);
    expect(server.uploads.size).toBe(0);
  });

  it('falls back to the normal way when the worker or the delta API fails', async () => {
    const file = new Blob([pseudoRandomBytes(2 * MiB, 2n) as BlobPart]);
    const broken: Planner = () => ({ plan: Promise.reject(new Error('no worker')), cancel: () => {} });
    const next = fakeNext();
    const fallbacks = vi.fn();
    const t = makeDeltaTransport({ ...opts(new FakeServer(), next, broken), onFallback: fallbacks });
    expect((await t.send(job(file), () => {}).done).status).toBe(201);
    const missing = new FakeServer();
    missing.start = async () => {
      throw Object.assign(new Error('not found'), { status: 404 });
    };
    const t2 = makeDeltaTransport({ ...opts(missing, next), onFallback: fallbacks });
    expect((await t2.send(job(file), () => {}).done).status).toBe(201);
    expect(next.jobs).toHaveLength(2);
    expect(fallbacks).toHaveBeenCalledTimes(2);
    // A full quota is the answer, not a reason to try again the other way.
    const full = new FakeServer();
    full.start = async () => {
      throw Object.assign(new Error('quota'), { status: 507 });
    };
    const r = await makeDeltaTransport(opts(full, next)).send(job(file), () => {}).done;
    expect(r.status).toBe(507);
    expect(next.jobs).toHaveLength(2);
  });

  it('resolves the folder of a dropped folder, and abort cancels the upload on the server', async () => {
    const data = pseudoRandomBytes(4 * MiB, 3n);
    const server = new FakeServer();
    let handle: { abort(): void } | null = null;
    server.putChunk = async () => {
      handle?.abort();
      throw Object.assign(new Error('aborted'), { status: 0 });
    };
    const starts: DeltaStart[] = [];
    const start = server.start.bind(server);
    server.start = async (b) => {
      starts.push(b);
      return start(b);
    };
    const next = fakeNext();
    const t = makeDeltaTransport(opts(server, next));
    const sent = t.send({ ...job(new Blob([data as BlobPart])), dir: 'a/b' }, () => {});
    handle = sent;
    const r = await sent.done;
    expect(r.status).toBe(0);
    expect(starts[0].parent_id).toBe('sub');
    expect(server.cancelled).toEqual(['u1']);
    expect(next.jobs).toHaveLength(0);
  });
});
