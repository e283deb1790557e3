// The delta upload's Web Worker (a module worker): reads the File in slices,
// cuts it into the server's content-defined chunks and hashes them and the
// whole file with BLAKE3, off the main thread. Messages out:
//   { type: 'progress', done }   bytes read so far
//   { type: 'plan', plan }       the DeltaPlan
//   { type: 'error', message }
// In: { file: Blob }.
import { makePlan } from './plan';

interface WorkerScope {
  onmessage: ((e: MessageEvent<{ file: Blob }>) => void) | null;
  postMessage(msg: unknown): void;
}
const scope = self as unknown as WorkerScope;

// nubo's Content-Security-Policy lets no page compile WebAssembly (no
// 'wasm-unsafe-eval'); blake3-jit would try on every large update (each a
// CSP violation) before using its JavaScript path. Say up front there is
// none here.
(self as unknown as { WebAssembly?: unknown }).WebAssembly = undefined;

scope.onmessage = (e) => {
  const file = e.data.file;
  let last = 0;
  makePlan(async (offset, len) => new Uint8Array(await file.slice(offset, offset + len).arrayBuffer()), file.size, {
    onProgress: (done) => {
      const now = Date.now();
      if (now - last < 100 && done < file.size) return;
      last = now;
      scope.postMessage({ type: 'progress', done });
    },
  }).then(
    (plan) => scope.postMessage({ type: 'plan', plan }),
    (err: unknown) => scope.postMessage({ type: 'error', message: err instanceof Error ? err.message : String(err) }),
  );
};
