// Thumbnails of files (GET …/nodes/{id}/thumbnail): which files get one, the
// `v` that makes the answer cacheable for good, and a memory of the ones
// that failed. Rows of the virtualized list come and go while scrolling; a
// thumbnail that answered 404 (no preview can be made) or failed to load is
// not asked for again while that version of the file is shown: no retry
// storms, and no flicker between the icon and a broken image.

/** The small thumbnail fits 256×256 pixels, the large one 1024×1024. */
export type ThumbSize = 'small' | 'large';

/** Whether the server may have a preview of the file: images, videos, PDFs and audio (its embedded cover). */
export function hasThumbnail(node: { kind: string; mime: string }): boolean {
  if (node.kind !== 'file') return false;
  const m = node.mime.toLowerCase();
  return m.startsWith('image/') || m.startsWith('video/') || m.startsWith('audio/') || m === 'application/pdf';
}

/** An ETag header value as the thumbnail's `v` parameter: without W/ and quotes. */
export function etagValue(etag: string): string {
  return etag.replace(/^W\//, '').replace(/"/g, '');
}

const LIMIT = 5000;
const failed = new Set<string>();

/** Whether the thumbnail at `url` failed before (its URL names the file's version). */
export function thumbFailed(url: string): boolean {
  return failed.has(url);
}

/** Remembers that the thumbnail at `url` failed (the memory is bounded). */
export function markThumbFailed(url: string) {
  if (failed.size >= LIMIT) failed.clear();
  failed.add(url);
}

/** Forgets every failure (tests). */
export function forgetThumbFailures() {
  failed.clear();
}
