// The server's content-defined chunker (src/content/fastcdc.cc), byte for
// byte: FastCDC with normalized chunking (level 2), min 64 KiB, avg 256 KiB,
// max 1 MiB, and nubo's gear table. A client that cuts a file the same way
// names the same chunks (BLAKE3 of their bytes) as the server, so an upload
// sends only the chunks the server lacks.
//
// The 64-bit gear hash runs on two uint32 halves (no BigInt in the loop).
// The chunk boundaries are PERSISTED on the server: never change the seed,
// the masks or the cut rule here without the server.

export interface ChunkerParams {
  min: number;
  avg: number;
  max: number;
}

/** The server's parameters ("fastcdc-nubo-1"). */
export const NUBO_CHUNKER: ChunkerParams = { min: 64 * 1024, avg: 256 * 1024, max: 1024 * 1024 };
export const CHUNKER_NAME = 'fastcdc-nubo-1';

const M64 = (1n << 64n) - 1n;

/** SplitMix64's output function applied to x + golden gamma (src/util/mix.h), mod 2^64. */
export function splitMix64(x: bigint): bigint {
  x = (x + 0x9e3779b97f4a7c15n) & M64;
  x = ((x ^ (x >> 30n)) * 0xbf58476d1ce4e5b9n) & M64;
  x = ((x ^ (x >> 27n)) * 0x94d049bb133111ebn) & M64;
  return x ^ (x >> 31n);
}

/** `n` bytes that depend only on (seed, n): word k is SplitMix64(seed + k), little-endian (the server's PseudoRandomBytes). */
export function pseudoRandomBytes(n: number, seed: bigint): Uint8Array {
  const words = Math.ceil(n / 8);
  const out = new Uint8Array(words * 8);
  const view = new DataView(out.buffer);
  for (let k = 0; k < words; k++) view.setBigUint64(k * 8, splitMix64((seed + BigInt(k)) & M64), true);
  return out.subarray(0, n);
}

// The gear table as low and high 32-bit halves.
const GEAR_LO = new Int32Array(256);
const GEAR_HI = new Int32Array(256);
{
  const seed = 0x6e75626f2d676561n; // "nubo-gea"
  for (let i = 0; i < 256; i++) {
    const g = splitMix64((seed + BigInt(i) * 0x9e3779b97f4a7c15n) & M64);
    GEAR_LO[i] = Number(g & 0xffffffffn) | 0;
    GEAR_HI[i] = Number(g >> 32n) | 0;
  }
}

/** `bits` one-bits spread over the upper 48 bits (as [lo, hi] halves). */
function spreadMask(bits: number): [number, number] {
  let lo = 0;
  let hi = 0;
  for (let i = 0; i < bits; i++) {
    const pos = 63 - Math.floor((i * 48) / bits);
    if (pos >= 32) hi |= 1 << (pos - 32);
    else lo |= 1 << pos;
  }
  return [lo | 0, hi | 0];
}

export class FastCdc {
  readonly p: ChunkerParams;
  private readonly sLo: number;
  private readonly sHi: number;
  private readonly lLo: number;
  private readonly lHi: number;
  private readonly buf: Uint8Array;
  private len = 0;

  constructor(params: ChunkerParams = NUBO_CHUNKER) {
    this.p = params;
    const bits = Math.round(Math.log2(params.avg)); // log2(avg), avg a power of two
    [this.sLo, this.sHi] = spreadMask(bits + 2);
    [this.lLo, this.lHi] = spreadMask(bits - 2);
    this.buf = new Uint8Array(params.max);
  }

  /** The length of the first chunk of data[off, off+len) (src/content/fastcdc.cc Cut). */
  cut(data: Uint8Array, off: number, len: number): number {
    const { min, avg, max } = this.p;
    if (len <= min) return len;
    const end = len < max ? len : max;
    const normal = avg < end ? avg : end;
    let lo = 0;
    let hi = 0;
    let i = min;
    const gl = GEAR_LO;
    const gh = GEAR_HI;
    let m0 = this.sLo;
    let m1 = this.sHi;
    for (; i < normal; i++) {
      const b = data[off + i];
      // fp = (fp << 1) + gear[b] (mod 2^64) on int32 halves; the carry is the unsigned overflow of the low half.
      const a = lo << 1;
      const l = (a + gl[b]) | 0;
      hi = (((hi << 1) | (lo >>> 31)) + gh[b] + ((l >>> 0) < (a >>> 0) ? 1 : 0)) | 0;
      lo = l;
      if (((lo & m0) | (hi & m1)) === 0) return i + 1;
    }
    // After the average: the looser mask up to the end.
    m0 = this.lLo;
    m1 = this.lHi;
    for (; i < end; i++) {
      const b = data[off + i];
      const a = lo << 1;
      const l = (a + gl[b]) | 0;
      hi = (((hi << 1) | (lo >>> 31)) + gh[b] + ((l >>> 0) < (a >>> 0) ? 1 : 0)) | 0;
      lo = l;
      if (((lo & m0) | (hi & m1)) === 0) return i + 1;
    }
    return end;
  }

  /**
   * Feeds bytes; `emit` gets each chunk that is complete. The view it gets
   * is only valid during the call (it points into the chunker's buffer or
   * the caller's data).
   */
  update(data: Uint8Array, emit: (chunk: Uint8Array) => void): void {
    const max = this.p.max;
    let pos = 0;
    let left = data.length;
    while (left > 0) {
      if (this.len === 0 && left >= max) {
        // Nothing buffered: cut straight from the caller's bytes (the same
        // boundary the buffered path finds: Cut looks at most max bytes).
        const n = this.cut(data, pos, max);
        emit(data.subarray(pos, pos + n));
        pos += n;
        left -= n;
        continue;
      }
      const take = Math.min(left, max - this.len);
      this.buf.set(data.subarray(pos, pos + take), this.len);
      this.len += take;
      pos += take;
      left -= take;
      if (this.len < max) break;
      const n = this.cut(this.buf, 0, this.len);
      emit(this.buf.subarray(0, n));
      this.buf.copyWithin(0, n, this.len);
      this.len -= n;
    }
  }

  /** Cuts what is left at the end of the stream. */
  finish(emit: (chunk: Uint8Array) => void): void {
    let off = 0;
    while (off < this.len) {
      const n = this.cut(this.buf, off, this.len - off);
      emit(this.buf.subarray(off, off + n));
      off += n;
    }
    this.len = 0;
  }
}

/** Chunk lengths of a whole buffer (tests, small inputs). */
export function chunkLengths(data: Uint8Array, params: ChunkerParams = NUBO_CHUNKER): number[] {
  const c = new FastCdc(params);
  const out: number[] = [];
  c.update(data, (x) => out.push(x.length));
  c.finish((x) => out.push(x.length));
  return out;
}
