import { describe, it, expect } from 'vitest';
import { chargedLabel, newestFirst, versionRows, versionsShare } from './versions';
import type { Node, Version } from './api/schema.gen';

const file: Node = {
  id: 'f1',
  parent_id: 'root',
  name: 'report.txt',
  kind: 'file',
  size: 300,
  mime: 'text/plain',
  modified: 5000,
  created: 1000,
  etag: '"e"',
  favorite: false,
};
const version = (id: string, replaced: number, extra: Partial<Version> = {}): Version => ({
  id,
  size: 100,
  modified: replaced - 500,
  replaced_at: replaced,
  hash: 'a'.repeat(64),
  charged_bytes: 100,
  author: 'ann',
  ...extra,
});

describe('versionRows', () => {
  it('puts the current content on top, then the versions newest first', () => {
    const rows = versionRows(file, [version('old', 2000), version('new', 4000), version('mid', 3000)]);
    expect(rows.map((r) => r.id)).toEqual([null, 'new', 'mid', 'old']);
    expect(rows[0]).toEqual({ id: null, size: 300, modified: 5000, replacedAt: null, author: null, charged: null });
    expect(rows[1]).toEqual({ id: 'new', size: 100, modified: 3500, replacedAt: 4000, author: 'ann', charged: 100 });
  });

  it('is only the current content when there are no versions', () => {
    expect(versionRows(file, []).map((r) => r.id)).toEqual([null]);
  });

  it('keeps an unknown author as null', () => {
    expect(versionRows(file, [version('v', 2000, { author: null })])[1].author).toBeNull();
  });

  it('does not reorder its input', () => {
    const input = [version('old', 2000), version('new', 4000)];
    versionRows(file, input);
    expect(input.map((v) => v.id)).toEqual(['old', 'new']);
  });
});

describe('newestFirst', () => {
  it('orders by replacement time, then by write time, then by id (UUIDv7: later is larger)', () => {
    const same = [
      version('b', 3000, { modified: 100 }),
      version('a', 3000, { modified: 200 }),
      version('c', 3000, { modified: 100 }),
      version('d', 4000),
    ];
    expect([...same].sort(newestFirst).map((v) => v.id)).toEqual(['d', 'a', 'c', 'b']);
  });
});

describe('chargedLabel', () => {
  it('says what a version adds to the used space, in IEC units', () => {
    expect(chargedLabel(45 * 1024)).toBe('+45 KiB');
    expect(chargedLabel(1536 * 1024)).toBe('+1.5 MiB');
    expect(chargedLabel(12)).toBe('+12 B');
    expect(chargedLabel(1536 * 1024, 'de')).toBe('+1,5 MiB');
  });

  it('is null when the version shares all its data', () => {
    expect(chargedLabel(0)).toBeNull();
    expect(chargedLabel(-1)).toBeNull();
    expect(chargedLabel(Number.NaN)).toBeNull();
  });
});

describe('versionsShare', () => {
  it('is the bytes of earlier versions, or null when there are none', () => {
    expect(versionsShare({ versions_bytes: 2048 })).toBe(2048);
    expect(versionsShare({ versions_bytes: 0 })).toBeNull();
    expect(versionsShare({})).toBeNull(); // an older server does not say
  });
});
