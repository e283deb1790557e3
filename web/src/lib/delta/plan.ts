// A file's delta plan: its content-defined chunks ("<BLAKE3 hex>:<size>", in
// order) and the BLAKE3 of all its bytes, what POST /uploads/delta declares.
// Runs in the upload worker (worker.ts); pure, so tests run it directly.
import { Blake3 } from './blake3';
import { FastCdc, NUBO_CHUNKER, type ChunkerParams } from './fastcdc';

export interface DeltaPlan {
  size: number;
  /** BLAKE3 of the whole file, 64 hex digits */
  hash: string;
  /** "<BLAKE3 hex>:<size>" per chunk, in file order */
  chunks: string[];
}

/** How the plan reads the file: `len` bytes at `offset` (a Blob slice in the worker). */
export type ReadAt = (offset: number, len: number) => Promise<Uint8Array>;

export const PLAN_SLICE = 4 * 1024 * 1024;

export async function makePlan(
  read: ReadAt,
  size: number,
  opts: { params?: ChunkerParams; slice?: number; onProgress?: (done: number) => void; cancelled?: () => boolean } = {},
): Promise<DeltaPlan> {
  const slice = opts.slice ?? PLAN_SLICE;
  const cdc = new FastCdc(opts.params ?? NUBO_CHUNKER);
  const whole = new Blake3();
  const chunkHash = new Blake3();
  const chunks: string[] = [];
  const emit = (c: Uint8Array) => chunks.push(`${chunkHash.reset().update(c).hex()}:${c.length}`);
  // The next slice is read while this one is cut and hashed.
  let next: Promise<Uint8Array> | null = size > 0 ? read(0, Math.min(slice, size)) : null;
  for (let off = 0; off < size; ) {
    const data = await (next as Promise<Uint8Array>);
    if (opts.cancelled?.()) throw new Error('cancelled');
    if (data.length === 0) throw new Error('the file could not be read');
    const after = off + data.length;
    next = after < size ? read(after, Math.min(slice, size - after)) : null;
    whole.update(data);
    cdc.update(data, emit);
    off = after;
    opts.onProgress?.(off);
  }
  cdc.finish(emit);
  return { size, hash: whole.hex(), chunks };
}

/** Byte offset of each chunk of a plan. */
export function chunkOffsets(chunks: string[]): { hash: string; offset: number; size: number }[] {
  let offset = 0;
  return chunks.map((c) => {
    const i = c.indexOf(':');
    const size = Number(c.slice(i + 1));
    const r = { hash: c.slice(0, i), offset, size };
    offset += size;
    return r;
  });
}
