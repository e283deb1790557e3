import { describe, it, expect } from 'vitest';
import {
  absoluteUrl,
  dayValue,
  endOfDay,
  grantSpec,
  linkEditForm,
  linkPatch,
  linkSpec,
  pathWithin,
  publicRoute,
  utf8Length,
  type GrantForm,
  type LinkForm,
} from './share';
import type { Link } from './api/schema.gen';

const NOW = new Date(2030, 3, 1, 12, 0).getTime(); // April 1, 2030, noon (local)

describe('dates', () => {
  it('ends a share at the last millisecond of the chosen local day', () => {
    expect(endOfDay('2030-04-01')).toBe(new Date(2030, 3, 1, 23, 59, 59, 999).getTime());
    expect(endOfDay('')).toBeNull();
    expect(endOfDay('  ')).toBeNull();
  });
  it('refuses what is not a calendar day', () => {
    expect(endOfDay('2030-02-31')).toBeNaN();
    expect(endOfDay('1.4.2030')).toBeNaN();
  });
  it('writes a local day for <input type=date>', () => {
    expect(dayValue(NOW)).toBe('2030-04-01');
    expect(dayValue(new Date(2030, 11, 9).getTime())).toBe('2030-12-09');
  });
});

describe('grantSpec', () => {
  const form = (over: Partial<GrantForm> = {}): GrantForm => ({
    to: 'user',
    username: ' bob ',
    role: 'editor',
    mayReshare: false,
    expires: '',
    ...over,
  });

  it('shares with a user by name, or with a group by id', () => {
    expect(grantSpec(form(), NOW)).toEqual({ ok: true, value: { user: 'bob', role: 'editor' } });
    expect(grantSpec(form({ to: 'g1', username: 'ignored', role: 'viewer' }), NOW)).toEqual({
      ok: true,
      value: { group: 'g1', role: 'viewer' },
    });
  });
  it('needs a user name', () => {
    expect(grantSpec(form({ username: '  ' }), NOW)).toEqual({ ok: false, error: 'share.needUser' });
  });
  it('adds resharing (implied for managers) and the expiry', () => {
    const r = grantSpec(form({ mayReshare: true, expires: '2030-04-02' }), NOW);
    expect(r).toEqual({
      ok: true,
      value: { user: 'bob', role: 'editor', may_reshare: true, expires_at: new Date(2030, 3, 2, 23, 59, 59, 999).getTime() },
    });
    expect(grantSpec(form({ role: 'manager', mayReshare: true }), NOW)).toEqual({
      ok: true,
      value: { user: 'bob', role: 'manager' },
    });
  });
  it('refuses an expiry in the past; today still counts', () => {
    expect(grantSpec(form({ expires: '2030-03-31' }), NOW)).toEqual({ ok: false, error: 'share.pastDate' });
    expect(grantSpec(form({ expires: '2030-04-01' }), NOW).ok).toBe(true);
    expect(grantSpec(form({ expires: 'soon' }), NOW)).toEqual({ ok: false, error: 'share.badDate' });
  });
});

describe('linkSpec', () => {
  const form = (over: Partial<LinkForm> = {}): LinkForm => ({
    role: 'view',
    password: '',
    expires: '',
    maxDownloads: '',
    label: '',
    ...over,
  });

  it('sends only what was filled in', () => {
    expect(linkSpec(form(), NOW)).toEqual({ ok: true, value: { role: 'view' } });
    expect(
      linkSpec(form({ role: 'drop', password: 'long enough', expires: '2030-05-01', maxDownloads: ' 3 ', label: ' team ' }), NOW),
    ).toEqual({
      ok: true,
      value: {
        role: 'drop',
        password: 'long enough',
        expires_at: new Date(2030, 4, 1, 23, 59, 59, 999).getTime(),
        max_downloads: 3,
        label: 'team',
      },
    });
  });
  it('holds the password to 8..256 bytes of UTF-8, as the server does', () => {
    expect(linkSpec(form({ password: 'short' }), NOW)).toEqual({ ok: false, error: 'share.passwordShort' });
    expect(linkSpec(form({ password: 'äöüä' }), NOW).ok).toBe(true); // 4 characters, 8 bytes
    expect(linkSpec(form({ password: 'x'.repeat(257) }), NOW)).toEqual({ ok: false, error: 'share.passwordLong' });
  });
  it('wants a positive whole number of downloads', () => {
    for (const bad of ['0', '-1', '1.5', 'ten']) {
      expect(linkSpec(form({ maxDownloads: bad }), NOW)).toEqual({ ok: false, error: 'share.badMax' });
    }
  });
  it('refuses a past expiry and a label over 200 bytes', () => {
    expect(linkSpec(form({ expires: '2029-12-31' }), NOW)).toEqual({ ok: false, error: 'share.pastDate' });
    expect(linkSpec(form({ label: 'é'.repeat(101) }), NOW)).toEqual({ ok: false, error: 'share.labelLong' });
    expect(utf8Length('é'.repeat(100))).toBe(200);
  });
});

describe('links and paths', () => {
  it('makes the address to hand out', () => {
    expect(absoluteUrl('https://cloud.example/', '/s/abc')).toBe('https://cloud.example/s/abc');
    expect(absoluteUrl('http://127.0.0.1:8086', 's/abc')).toBe('http://127.0.0.1:8086/s/abc');
  });
  it('reads the public route', () => {
    expect(publicRoute('/s/0a1b')).toEqual({ token: '0a1b', folderId: null });
    expect(publicRoute('/s/0a1b/')).toEqual({ token: '0a1b', folderId: null });
    expect(publicRoute('/s/0a1b/f-9')).toEqual({ token: '0a1b', folderId: 'f-9' });
    expect(publicRoute('/s/')).toBeNull();
    expect(publicRoute('/files/x')).toBeNull();
    expect(publicRoute('/s/a/b/c')).toBeNull();
    expect(publicRoute('/s/%E0%A4%A')).toBeNull();
  });
  it('keeps breadcrumbs inside the shared folder', () => {
    const path = [
      { id: 'root', name: '' },
      { id: 'team', name: 'Team' },
      { id: 'docs', name: 'docs' },
    ];
    expect(pathWithin(path, 'team').map((p) => p.name)).toEqual(['Team', 'docs']);
    expect(pathWithin(path.slice(1), 'team').map((p) => p.name)).toEqual(['Team', 'docs']);
    expect(pathWithin([], 'team')).toEqual([]);
    // Already relative (the server starts below the link): kept as it is.
    expect(pathWithin(path.slice(2), 'team').map((p) => p.name)).toEqual(['docs']);
  });
});

describe('linkPatch', () => {
  const link = (extra: Partial<Link> = {}): Link => ({
    id: 'l1',
    node_id: 'n1',
    role: 'view',
    has_password: true,
    expires_at: new Date(2030, 4, 1, 23, 59, 59, 999).getTime(),
    max_downloads: 10,
    downloads: 2,
    label: 'press',
    token_hint: 'c0de',
    created: 0,
    ...extra,
  });

  it('fills the form with the link and sends nothing when nothing changes', () => {
    const f = linkEditForm(link());
    expect(f).toEqual({
      role: 'view',
      password: '',
      removePassword: false,
      expires: '2030-05-01',
      maxDownloads: '10',
      label: 'press',
    });
    expect(linkPatch(link(), f, NOW)).toEqual({ ok: true, value: {} });
  });

  it('sends only the changed fields, with 0 and "" for "none"', () => {
    const f = { ...linkEditForm(link()), role: 'edit' as const, expires: '', maxDownloads: '', removePassword: true };
    expect(linkPatch(link(), f, NOW)).toEqual({
      ok: true,
      value: { role: 'edit', password: '', expires_at: 0, max_downloads: 0 },
    });
    const g = { ...linkEditForm(link()), password: 'a new secret', expires: '2030-06-30', maxDownloads: ' 3 ', label: ' ' };
    expect(linkPatch(link(), g, NOW)).toEqual({
      ok: true,
      value: {
        password: 'a new secret',
        expires_at: new Date(2030, 5, 30, 23, 59, 59, 999).getTime(),
        max_downloads: 3,
        label: '',
      },
    });
    // No password to remove: nothing to send.
    const h = { ...linkEditForm(link({ has_password: false })), removePassword: true };
    expect(linkPatch(link({ has_password: false }), h, NOW)).toEqual({ ok: true, value: {} });
  });

  it('refuses what the server would refuse', () => {
    const f = linkEditForm(link());
    expect(linkPatch(link(), { ...f, password: 'short' }, NOW)).toEqual({ ok: false, error: 'share.passwordShort' });
    expect(linkPatch(link(), { ...f, expires: '2030-03-01' }, NOW)).toEqual({ ok: false, error: 'share.pastDate' });
    expect(linkPatch(link(), { ...f, expires: '2030-02-31' }, NOW)).toEqual({ ok: false, error: 'share.badDate' });
    expect(linkPatch(link(), { ...f, maxDownloads: '0' }, NOW)).toEqual({ ok: false, error: 'share.badMax' });
    expect(linkPatch(link(), { ...f, label: 'x'.repeat(201) }, NOW)).toEqual({ ok: false, error: 'share.labelLong' });
  });
});
