// @vitest-environment node
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FastCdc, NUBO_CHUNKER, chunkLengths, pseudoRandomBytes, splitMix64 } from './fastcdc';
import { Blake3, blake3Hex } from './blake3';

// Shared with the server's tests (src/content/testdata/fastcdc_vectors.json).
const VECTORS_PATH = resolve(__dirname, '../../../../src/content/testdata/fastcdc_vectors.json');
type Vector = { seed: number; size: number; hash: string; chunks: string[] };
const vectors = (JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as { vectors: Vector[] }).vectors;

function chunksOf(data: Uint8Array, slices: number[] | null): string[] {
  const c = new FastCdc();
  const out: string[] = [];
  const emit = (x: Uint8Array) => out.push(`${blake3Hex(x)}:${x.length}`);
  if (!slices) c.update(data, emit);
  else {
    let off = 0;
    let k = 0;
    while (off < data.length) {
      const n = slices[k++ % slices.length];
      c.update(data.subarray(off, off + n), emit);
      off += n;
    }
  }
  c.finish(emit);
  return out;
}

describe('SplitMix64 and the pseudo-random input', () => {
  it('matches the reference values', () => {
    // SplitMix64 with state 0: the first output of the generator.
    expect(splitMix64(0n)).toBe(0xe220a8397b1dcdafn);
    const b = pseudoRandomBytes(10, 0n);
    expect(b.length).toBe(10);
  });
});

describe('BLAKE3', () => {
  it('hashes the empty input and "abc"', () => {
    expect(blake3Hex(new Uint8Array(0))).toBe('af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262');
    expect(blake3Hex(new TextEncoder().encode('abc'))).toBe(
      '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85',
    );
  });

  it('gives the same hash however the input is sliced', () => {
    const data = pseudoRandomBytes(5 * 1024 + 77, 9n);
    const whole = blake3Hex(data);
    for (const step of [1, 63, 64, 65, 1000, 1024, 1025, 4096]) {
      const h = new Blake3();
      for (let off = 0; off < data.length; off += step) h.update(data.subarray(off, off + step));
      expect(h.hex(), `step ${step}`).toBe(whole);
    }
  });
});

describe('FastCDC (nubo parameters)', () => {
  it('has the server parameters', () => {
    expect(NUBO_CHUNKER).toEqual({ min: 65536, avg: 262144, max: 1048576 });
  });

  for (const v of vectors) {
    it(`matches the server's vector seed ${v.seed}, ${v.size} bytes`, () => {
      const data = pseudoRandomBytes(v.size, BigInt(v.seed));
      expect(blake3Hex(data)).toBe(v.hash);
      expect(chunksOf(data, null)).toEqual(v.chunks);
    });
  }

  it('cuts the same chunks whatever the slice sizes', () => {
    const v = vectors.reduce((a, b) => (b.size > a.size ? b : a));
    const data = pseudoRandomBytes(v.size, BigInt(v.seed));
    for (const slices of [[1 << 20], [4 << 20], [65536], [1000003], [7, 300000, 1 << 21, 12345], [(1 << 20) - 1, (1 << 20) + 1]]) {
      expect(chunksOf(data, slices), JSON.stringify(slices)).toEqual(v.chunks);
    }
  });

  it('keeps the size limits, and a run of one byte value cuts at max', () => {
    const data = pseudoRandomBytes(3 << 20, 77n);
    const lens = chunkLengths(data);
    expect(lens.reduce((a, b) => a + b, 0)).toBe(data.length);
    for (const n of lens.slice(0, -1)) {
      expect(n).toBeGreaterThanOrEqual(NUBO_CHUNKER.min);
      expect(n).toBeLessThanOrEqual(NUBO_CHUNKER.max);
    }
    const zeros = chunkLengths(new Uint8Array((2 << 20) + 5));
    expect(zeros[0]).toBeLessThanOrEqual(NUBO_CHUNKER.max);
    expect(zeros.reduce((a, b) => a + b, 0)).toBe((2 << 20) + 5);
  });
});
