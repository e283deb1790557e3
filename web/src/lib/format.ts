// Locale-aware formatting of sizes, times and durations.
// Sizes are IEC: powers of 1024 with the binary prefixes (KiB, MiB, …) in
// every locale, so the label always says what was computed.
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

export function formatBytes(n: number, locale = 'en'): string {
  if (!Number.isFinite(n) || n < 0) return '–';
  let i = 0;
  let v = n;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = i === 0 || v >= 100 ? 0 : 1;
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(v)} ${UNITS[i]}`;
}

export function formatDate(ms: number, locale = 'en'): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(ms));
}

/** "3:07" / "1:02:03" for an ETA in seconds. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '–';
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

const DAY = 86_400_000;

/**
 * Whole days before the trash purge deletes an item trashed at `trashedAt`,
 * with the server's retention (`retention_ms` of the trash listing).
 */
export function daysLeft(trashedAt: number, retentionMs: number, now = Date.now()): number {
  return Math.max(0, Math.ceil((trashedAt + retentionMs - now) / DAY));
}

/** Kind of preview a file gets (by MIME type, then by extension). */
export type FileKind = 'folder' | 'image' | 'video' | 'audio' | 'pdf' | 'text' | 'archive' | 'code' | 'other';

const TEXT_EXT = /\.(txt|md|csv|log|json|xml|ya?ml|toml|ini|conf|cfg|sh|py|js|ts|c|cc|cpp|h|hpp|rs|go|java|css|html?|svelte|sql)$/i;

export function fileKind(node: { kind: string; mime: string; name: string }): FileKind {
  if (node.kind === 'folder') return 'folder';
  const m = node.mime.toLowerCase();
  if (m.startsWith('image/') && m !== 'image/svg+xml') return 'image';
  if (m.startsWith('video/')) return 'video';
  if (m.startsWith('audio/')) return 'audio';
  if (m === 'application/pdf') return 'pdf';
  if (/zip|tar|gzip|x-7z|rar|bzip|xz/.test(m)) return 'archive';
  if (/\.(js|ts|c|cc|cpp|h|hpp|rs|go|java|py|sh|svelte)$/i.test(node.name)) return 'code';
  if (m.startsWith('text/') || m === 'application/json' || TEXT_EXT.test(node.name)) return 'text';
  return 'other';
}

/** Whether the viewer can show the file in the page. */
export function previewable(kind: FileKind): boolean {
  return kind === 'image' || kind === 'video' || kind === 'audio' || kind === 'pdf' || kind === 'text' || kind === 'code';
}
