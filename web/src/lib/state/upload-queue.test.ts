import { describe, it, expect, vi } from 'vitest';
import { flushSync } from 'svelte';
import { UploadQueue, type UploadJob, type TransportResult, type UploadTransport } from './upload-queue.svelte';

/** A transport whose uploads the test finishes by hand. */
class FakeTransport implements UploadTransport {
  sent: { job: UploadJob; progress: (n: number) => void; finish: (r: TransportResult) => void; aborted: boolean }[] = [];
  send(job: UploadJob, onProgress: (loaded: number) => void) {
    let finish!: (r: TransportResult) => void;
    const done = new Promise<TransportResult>((r) => (finish = r));
    const entry = { job, progress: onProgress, finish, aborted: false };
    this.sent.push(entry);
    return {
      done,
      abort: () => {
        entry.aborted = true;
        finish({ status: 0, message: 'aborted' });
      },
    };
  }
  last(name: string) {
    return [...this.sent].reverse().find((s) => s.job.name === name)!;
  }
}

const file = (name: string, size: number) => new File([new Uint8Array(size)], name);
const tick = () => new Promise((r) => setTimeout(r, 0));

function setup(opts: ConstructorParameters<typeof UploadQueue>[1] = {}) {
  const transport = new FakeTransport();
  let now = 1000;
  const q = new UploadQueue(transport, { concurrency: 2, now: () => now, ...opts });
  return { q, transport, advance: (ms: number) => (now += ms) };
}

describe('UploadQueue', () => {
  it('runs at most `concurrency` uploads and starts the next when one ends', async () => {
    const { q, transport } = setup();
    q.add('root', [{ file: file('a', 10) }, { file: file('b', 10) }, { file: file('c', 10) }]);
    expect(transport.sent.map((s) => s.job.name)).toEqual(['a', 'b']);
    expect(q.counts.queued).toBe(1);
    transport.last('a').finish({ status: 201 });
    await tick();
    expect(transport.sent.map((s) => s.job.name)).toEqual(['a', 'b', 'c']);
    expect(q.counts.done).toBe(1);
  });

  it('tracks per-file and total progress, speed and ETA', async () => {
    const { q, transport, advance } = setup();
    q.add('root', [{ file: file('a', 1000) }, { file: file('b', 3000) }]);
    transport.last('a').progress(500);
    advance(1000);
    transport.last('b').progress(1500);
    flushSync();
    expect(q.items[0].loaded).toBe(500);
    expect(q.loadedBytes).toBe(2000);
    expect(q.progress).toBeCloseTo(0.5);
    expect(q.speed).toBeCloseTo(2000); // 2000 bytes in the last second
    expect(q.eta).toBeCloseTo(1);
    transport.last('a').finish({ status: 201 });
    transport.last('b').finish({ status: 201 });
    await tick();
    expect(q.progress).toBe(1);
    expect(q.active).toBe(false);
    expect(q.landed).toBe(2);
    expect(q.landedIn).toEqual(['root']);
  });

  it('remembers the name the server stored a file under (a drop link renames)', async () => {
    const { q, transport } = setup();
    q.add('root', [{ file: file('a.txt', 1) }, { file: file('b.txt', 1) }]);
    transport.last('a.txt').finish({ status: 201, name: 'a (1).txt' });
    transport.last('b.txt').finish({ status: 201 });
    await tick();
    expect(q.items.map((i) => i.stored)).toEqual(['a (1).txt', null]);
  });

  it('keeps the folder path of dropped folders in the job', () => {
    const { q, transport } = setup();
    q.add('root', [{ file: file('x.txt', 1), dir: '/album/sub/' }]);
    expect(transport.sent[0].job).toMatchObject({ folderId: 'root', dir: 'album/sub', name: 'x.txt', conflict: 'fail' });
  });

  it('pauses a 409 for a choice; replace re-sends with overwrite, keep both with rename, skip skips', async () => {
    const { q, transport } = setup({ concurrency: 3 });
    q.add('root', [{ file: file('a', 5) }, { file: file('b', 5) }, { file: file('c', 5) }]);
    for (const n of ['a', 'b', 'c']) transport.last(n).finish({ status: 409, message: 'name taken' });
    await tick();
    expect(q.counts.conflict).toBe(3);
    expect(q.pendingConflict?.job.name).toBe('a');

    q.resolve(q.items[0].id, 'replace');
    expect(transport.last('a').job.conflict).toBe('overwrite');
    q.resolve(q.items[1].id, 'keep-both');
    expect(transport.last('b').job.conflict).toBe('rename');
    q.resolve(q.items[2].id, 'skip');
    expect(q.items[2].status).toBe('skipped');
    expect(transport.sent.filter((s) => s.job.name === 'c')).toHaveLength(1);
  });

  it('"apply to all" answers later conflicts without asking', async () => {
    const { q, transport } = setup({ concurrency: 1 });
    q.add('root', [{ file: file('a', 1) }, { file: file('b', 1) }]);
    transport.last('a').finish({ status: 409 });
    await tick();
    // While "a" waits for the user, "b" goes ahead.
    expect(transport.last('b').job.conflict).toBe('fail');
    q.resolve(q.items[0].id, 'keep-both', true);
    transport.last('b').finish({ status: 409 });
    await tick();
    expect(q.pendingConflict).toBeNull();
    transport.last('a').finish({ status: 201 });
    await tick();
    expect(transport.last('a').job.conflict).toBe('rename');
    expect(transport.last('b').job.conflict).toBe('rename');
    transport.last('b').finish({ status: 201 });
    await tick();
    expect(q.counts.done).toBe(2);
  });

  it('reports a quota error (507) clearly and does not retry it by itself', async () => {
    const { q, transport } = setup();
    q.add('root', [{ file: file('big', 100) }]);
    transport.last('big').finish({ status: 507, message: 'quota exceeded' });
    await tick();
    expect(q.items[0]).toMatchObject({ status: 'error', errorKind: 'quota' });
    expect(transport.sent).toHaveLength(1);
  });

  it('cancel aborts a running upload; retry sends it again', async () => {
    const { q, transport } = setup();
    q.add('root', [{ file: file('a', 10) }]);
    q.cancel(q.items[0].id);
    await tick();
    expect(transport.sent[0].aborted).toBe(true);
    expect(q.items[0].status).toBe('cancelled');
    expect(q.totalBytes).toBe(0); // cancelled files leave the totals
    q.retry(q.items[0].id);
    expect(transport.sent).toHaveLength(2);
    transport.sent[1].finish({ status: 201 });
    await tick();
    expect(q.items[0].status).toBe('done');
  });

  it('cancelling a queued file never sends it', async () => {
    const { q, transport } = setup({ concurrency: 1 });
    q.add('root', [{ file: file('a', 1) }, { file: file('b', 1) }]);
    q.cancel(q.items[1].id);
    transport.last('a').finish({ status: 201 });
    await tick();
    expect(transport.sent.map((s) => s.job.name)).toEqual(['a']);
  });

  it('after a 401 refreshes the session once and retries', async () => {
    const refresh = vi.fn(async () => true);
    const { q, transport } = setup({ refresh });
    q.add('root', [{ file: file('a', 1) }]);
    transport.last('a').finish({ status: 401 });
    await tick();
    await tick();
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(transport.sent).toHaveLength(2);
    transport.sent[1].finish({ status: 401 });
    await tick();
    await tick();
    expect(refresh).toHaveBeenCalledTimes(1);
    expect(q.items[0].status).toBe('error');
  });

  it('network errors are marked as such and can be retried', async () => {
    const { q, transport } = setup();
    q.add('root', [{ file: file('a', 1) }]);
    transport.last('a').finish({ status: 0, message: 'network error' });
    await tick();
    expect(q.items[0]).toMatchObject({ status: 'error', errorKind: 'network' });
    q.retry(q.items[0].id);
    expect(q.items[0].status).toBe('uploading');
  });

  it('a delta upload counts the bytes it need not send, without them in the speed', async () => {
    let skipped!: (bytes: number) => void;
    let progress!: (n: number) => void;
    let finish!: (r: TransportResult) => void;
    let now = 1000;
    const q = new UploadQueue(
      {
        send: (_job, onProgress, _resumed, onSkipped) => {
          skipped = onSkipped!;
          progress = onProgress;
          return { done: new Promise<TransportResult>((r) => (finish = r)), abort: () => {} };
        },
      },
      { now: () => now },
    );
    q.add('root', [{ file: file('doc', 10000) }]);
    skipped(8000);
    flushSync();
    expect(q.items[0].skipped).toBe(8000);
    expect(q.items[0].loaded).toBe(8000);
    expect(q.speed).toBe(0);
    now += 1000;
    progress(9000);
    flushSync();
    expect(q.speed).toBeCloseTo(1000);
    finish({ status: 201, skipped: 8500 });
    await tick();
    expect(q.items[0].status).toBe('done');
    expect(q.items[0].skipped).toBe(8500);
    // A retry starts over: nothing skipped yet.
    q.items[0].status = 'error';
    q.retry(q.items[0].id);
    flushSync();
    expect(q.items[0].skipped).toBeNull();
  });

  it('clearFinished keeps only running and waiting files', async () => {
    const { q, transport } = setup({ concurrency: 1 });
    q.add('root', [{ file: file('a', 1) }, { file: file('b', 1) }]);
    transport.last('a').finish({ status: 201 });
    await tick();
    q.clearFinished();
    expect(q.items.map((i) => i.job.name)).toEqual(['b']);
  });
});
