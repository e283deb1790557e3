// BLAKE3 for the delta worker, from the npm package blake3-jit: plain
// JavaScript, with a WebAssembly SIMD path it uses where the page's
// Content-Security-Policy allows it (nubo's does not: it falls back to
// JavaScript, a few hundred MiB/s). Tested against the server's vectors
// (src/content/testdata/fastcdc_vectors.json).
import { Hasher } from 'blake3-jit';

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export class Blake3 {
  private readonly h = new Hasher();

  reset(): this {
    this.h.reset();
    return this;
  }

  update(data: Uint8Array): this {
    this.h.update(data);
    return this;
  }

  digest(): Uint8Array {
    return this.h.finalize();
  }

  hex(): string {
    let s = '';
    for (const b of this.digest()) s += HEX[b];
    return s;
  }
}

/** BLAKE3 of `data`, 64 hex digits. */
export function blake3Hex(data: Uint8Array): string {
  return new Blake3().update(data).hex();
}
