// The rows of a file's versions panel: the current content on top, then the
// earlier versions, newest first (by when they were replaced). Pure, so the
// order and the labels are unit-tested.
import type { Node, Version } from './api/schema.gen';
import { formatBytes } from './format';

export interface VersionRow {
  /** the version's id; null for the current content */
  id: string | null;
  size: number;
  /** when this content was written (ms) */
  modified: number;
  /** when it stopped being the file's content (ms); null for the current content */
  replacedAt: number | null;
  /** who wrote it; null when unknown (and for the current content, which the node does not name) */
  author: string | null;
  /** bytes counted against the quota for it; null for the current content (it is the file) */
  charged: number | null;
}

/** Newest first: replaced later, then written later, then the larger id (UUIDv7 sorts by time). */
export function newestFirst(a: Version, b: Version): number {
  return b.replaced_at - a.replaced_at || b.modified - a.modified || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);
}

/** The current content of `file` (a row without an id), then its earlier `versions`, newest first. */
export function versionRows(file: Node, versions: readonly Version[]): VersionRow[] {
  const current: VersionRow = {
    id: null,
    size: file.size,
    modified: file.modified,
    replacedAt: null,
    author: null,
    charged: null,
  };
  return [
    current,
    ...[...versions].sort(newestFirst).map((v) => ({
      id: v.id,
      size: v.size,
      modified: v.modified,
      replacedAt: v.replaced_at,
      author: v.author,
      charged: v.charged_bytes,
    })),
  ];
}

/**
 * What a version adds to the used space: "+45 KiB"; null when it adds
 * nothing (it shares all its data with the content that replaced it).
 */
export function chargedLabel(bytes: number, locale = 'en'): string | null {
  if (!Number.isFinite(bytes) || bytes <= 0) return null;
  return '+' + formatBytes(bytes, locale);
}

/** The part of a drive's usage that earlier versions take; null when none (or the server does not say). */
export function versionsShare(drive: { versions_bytes?: number | null }): number | null {
  const b = drive.versions_bytes;
  return typeof b === 'number' && b > 0 ? b : null;
}
