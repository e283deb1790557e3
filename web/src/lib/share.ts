// Pure helpers of sharing: turning the share dialog's form fields into the
// bodies the server accepts (its limits checked here first, so the user gets
// a precise message before a round trip), dates of <input type=date>, the
// public link's route and the part of a path that lies inside a share.
import type { GrantSpec, Link, LinkPatch, LinkRole, LinkSpec, PathEntry, Role } from './api/schema.gen';
import type { MessageKey } from './i18n/en';

/** The names of grant roles and link roles in the UI. */
export const ROLE_KEY: Record<Role, MessageKey> = {
  viewer: 'role.viewer',
  editor: 'role.editor',
  manager: 'role.manager',
};
export const ROLES: readonly Role[] = ['viewer', 'editor', 'manager'];
export const LINK_ROLE_KEY: Record<LinkRole, MessageKey> = {
  view: 'share.linkView',
  edit: 'share.linkEdit',
  drop: 'share.linkDrop',
};

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: MessageKey };

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The last millisecond of a local calendar day given as <input type=date>
 * gives it ("2030-04-01"): a share "until April 1" lasts all of that day.
 * null for an empty value, NaN for one that is not a date.
 */
export function endOfDay(value: string): number | null {
  if (value.trim() === '') return null;
  const m = DAY_RE.exec(value.trim());
  if (!m) return NaN;
  const [y, mo, d] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const date = new Date(y, mo, d, 23, 59, 59, 999);
  // new Date rolls "2030-02-31" over into March: refuse it instead.
  if (date.getFullYear() !== y || date.getMonth() !== mo || date.getDate() !== d) return NaN;
  return date.getTime();
}

/** A local day as <input type=date> wants it ("2030-04-01"), e.g. for its min. */
export function dayValue(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** Bytes of a string in UTF-8 (the server's limits count bytes, not characters). */
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

function expiry(value: string, now: number): Outcome<number | undefined> {
  const at = endOfDay(value);
  if (at === null) return { ok: true, value: undefined };
  if (Number.isNaN(at)) return { ok: false, error: 'share.badDate' };
  if (at <= now) return { ok: false, error: 'share.pastDate' };
  return { ok: true, value: at };
}

export interface GrantForm {
  /** "user", or the id of a group */
  to: string;
  username: string;
  role: Role;
  mayReshare: boolean;
  /** <input type=date> value, "" for none */
  expires: string;
}

/** The body of POST /nodes/{id}/grants for the form, or what is wrong with it. */
export function grantSpec(form: GrantForm, now = Date.now()): Outcome<GrantSpec> {
  const exp = expiry(form.expires, now);
  if (!exp.ok) return exp;
  const spec: GrantSpec = { role: form.role };
  if (form.to === 'user') {
    const name = form.username.trim();
    if (!name) return { ok: false, error: 'share.needUser' };
    spec.user = name;
  } else {
    spec.group = form.to;
  }
  if (form.mayReshare && form.role !== 'manager') spec.may_reshare = true;
  if (exp.value !== undefined) spec.expires_at = exp.value;
  return { ok: true, value: spec };
}

export interface LinkForm {
  role: LinkRole;
  password: string;
  expires: string;
  maxDownloads: string;
  label: string;
}

function linkPassword(password: string): Outcome<string> {
  const n = utf8Length(password);
  if (n < 8) return { ok: false, error: 'share.passwordShort' };
  if (n > 256) return { ok: false, error: 'share.passwordLong' };
  return { ok: true, value: password };
}

function maxDownloads(value: string): Outcome<number> {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    return { ok: false, error: 'share.badMax' };
  }
  return { ok: true, value: Number(value) };
}

/** The form that edits an existing link: a new password, or none at all. */
export interface LinkEditForm extends LinkForm {
  removePassword: boolean;
}

/** The edit form filled with what `link` allows now (its password is stored hashed: never shown). */
export function linkEditForm(link: Link): LinkEditForm {
  return {
    role: link.role,
    password: '',
    removePassword: false,
    expires: link.expires_at ? dayValue(link.expires_at) : '',
    maxDownloads: link.max_downloads !== null ? String(link.max_downloads) : '',
    label: link.label,
  };
}

/**
 * The body of PATCH /links/{id} with only what the form changes on `link`
 * (an empty object when nothing does), or what is wrong with it. Clearing
 * the expiry or the download limit sends 0, removing the password "" (the
 * server's way of saying "none").
 */
export function linkPatch(link: Link, form: LinkEditForm, now = Date.now()): Outcome<LinkPatch> {
  const patch: LinkPatch = {};
  if (form.role !== link.role) patch.role = form.role;
  if (form.removePassword) {
    if (link.has_password) patch.password = '';
  } else if (form.password !== '') {
    const pw = linkPassword(form.password);
    if (!pw.ok) return pw;
    patch.password = pw.value;
  }
  const expires = form.expires.trim();
  if (expires !== (link.expires_at ? dayValue(link.expires_at) : '')) {
    if (expires === '') {
      patch.expires_at = 0;
    } else {
      const exp = expiry(expires, now);
      if (!exp.ok) return exp;
      patch.expires_at = exp.value;
    }
  }
  const max = form.maxDownloads.trim();
  if (max !== (link.max_downloads !== null ? String(link.max_downloads) : '')) {
    if (max === '') {
      patch.max_downloads = 0;
    } else {
      const m = maxDownloads(max);
      if (!m.ok) return m;
      patch.max_downloads = m.value;
    }
  }
  const label = form.label.trim();
  if (label !== link.label) {
    if (utf8Length(label) > 200) return { ok: false, error: 'share.labelLong' };
    patch.label = label;
  }
  return { ok: true, value: patch };
}

/** The body of POST /nodes/{id}/links for the form, or what is wrong with it. */
export function linkSpec(form: LinkForm, now = Date.now()): Outcome<LinkSpec> {
  const spec: LinkSpec = { role: form.role };
  if (form.password !== '') {
    const pw = linkPassword(form.password);
    if (!pw.ok) return pw;
    spec.password = pw.value;
  }
  const exp = expiry(form.expires, now);
  if (!exp.ok) return exp;
  if (exp.value !== undefined) spec.expires_at = exp.value;
  const max = form.maxDownloads.trim();
  if (max !== '') {
    const m = maxDownloads(max);
    if (!m.ok) return m;
    spec.max_downloads = m.value;
  }
  const label = form.label.trim();
  if (utf8Length(label) > 200) return { ok: false, error: 'share.labelLong' };
  if (label) spec.label = label;
  return { ok: true, value: spec };
}

/** The address to hand out for a link the server just made ("/s/<token>"). */
export function absoluteUrl(origin: string, url: string): string {
  return origin.replace(/\/+$/, '') + (url.startsWith('/') ? url : '/' + url);
}

/** The public link page's route: /s/<token> or /s/<token>/<folder id>. */
export function publicRoute(path: string): { token: string; folderId: string | null } | null {
  const m = /^\/s\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!m) return null;
  try {
    return { token: decodeURIComponent(m[1]), folderId: m[2] ? decodeURIComponent(m[2]) : null };
  } catch {
    return null; // a malformed %-escape is no link
  }
}

/**
 * The entries of `path` from `topId` down (a link's or a share's top
 * folder): breadcrumbs must never lead above what was shared. The server
 * already starts a path at the highest folder the caller may read; this
 * holds even if it did not. A path that does not contain `topId` lies
 * inside it already.
 */
export function pathWithin(path: readonly PathEntry[], topId: string): PathEntry[] {
  const i = path.findIndex((p) => p.id === topId);
  return i >= 0 ? path.slice(i) : [...path];
}
