// Pure helpers of shared drives (docs/sharing.md "Shared drives"): which
// drive a folder lies in, what the caller's role there allows, and the
// fields of the drive forms (name; quota in GiB, as on the users page)
// checked against the server's rules before a round trip.
import type { Drive, PathEntry } from './api/schema.gen';
import type { Outcome } from './share';
import { utf8Length } from './share';

export type DriveRole = Drive['role'];

/**
 * The drive whose root is `node` or the first folder of its path, or null.
 * A path starts at the highest folder the caller may read: a drive's root
 * for its members (and for the owner of a personal drive), the shared folder
 * itself for a share received, which thus belongs to no drive of the caller.
 */
export function driveOf(node: { id: string; path: readonly PathEntry[] }, drives: readonly Drive[]): Drive | null {
  const top = node.path[0]?.id ?? node.id;
  return drives.find((d) => d.root_id === top) ?? null;
}

/** Viewers read and download; everyone else in a drive may add, change and delete. */
export function mayWrite(role: DriveRole): boolean {
  return role !== 'viewer';
}

/** Managers rename a shared drive and manage its members. */
export function mayManage(role: DriveRole): boolean {
  return role === 'manager';
}

/**
 * The shared drives whose trash the caller may list and empty (editors and
 * managers; a viewer's request is refused with 403).
 */
export function trashDrives(drives: readonly Drive[]): Drive[] {
  return drives.filter((d) => d.kind === 'shared' && d.role !== 'viewer');
}

export const GIB = 1024 ** 3;

/**
 * Bytes for a quota typed in GiB ("1.5", or "1,5" as German writes it);
 * null for an empty field (no quota). Zero is refused: a drive with room for
 * nothing is no drive, and PATCH reads 0 as "remove the quota".
 */
export function parseQuota(text: string): Outcome<number | null> {
  const v = text.trim().replace(',', '.');
  if (v === '') return { ok: true, value: null };
  if (!/^\d+(\.\d+)?$/.test(v)) return { ok: false, error: 'drives.badQuota' };
  const bytes = Math.round(Number(v) * GIB);
  if (bytes < 1 || !Number.isSafeInteger(bytes)) return { ok: false, error: 'drives.badQuota' };
  return { ok: true, value: bytes };
}

/** The quota field's text for a drive's quota ("" for none), in GiB. */
export function quotaField(bytes: number | null): string {
  return bytes === null ? '' : String(+(bytes / GIB).toFixed(3));
}

/** A drive name as the server takes it: not empty, at most 255 bytes, no "/". */
export function driveName(text: string): Outcome<string> {
  const name = text.trim();
  if (!name) return { ok: false, error: 'drives.needName' };
  if (utf8Length(name) > 255) return { ok: false, error: 'drives.nameLong' };
  if (name.includes('/') || name === '.' || name === '..') return { ok: false, error: 'drives.badName' };
  return { ok: true, value: name };
}

export interface NewDriveForm {
  name: string;
  /** GiB; "" for no quota */
  quota: string;
}

/** The body of POST /drives for the form (quota_bytes only when one is set), or what is wrong. */
export function newDriveSpec(form: NewDriveForm): Outcome<{ name: string; quota_bytes?: number }> {
  const name = driveName(form.name);
  if (!name.ok) return name;
  const quota = parseQuota(form.quota);
  if (!quota.ok) return quota;
  return { ok: true, value: quota.value === null ? { name: name.value } : { name: name.value, quota_bytes: quota.value } };
}

/**
 * The quota_bytes of a PATCH that sets `next` (bytes, or null for none)
 * where `current` is set now; undefined when nothing changes. PATCH takes
 * 0 as "remove the quota".
 */
export function quotaPatch(current: number | null, next: number | null): number | undefined {
  if (next === current) return undefined;
  return next ?? 0;
}
