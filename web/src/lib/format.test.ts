import { describe, expect, it } from 'vitest';
import { daysLeft, formatBytes } from './format';

const DAY = 86_400_000;
const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

describe('formatBytes', () => {
  it('uses powers of 1024 with IEC labels', () => {
    expect(formatBytes(0, 'en')).toBe('0 B');
    expect(formatBytes(1023, 'en')).toBe('1,023 B');
    expect(formatBytes(1024, 'en')).toBe('1 KiB');
    expect(formatBytes(1536, 'en')).toBe('1.5 KiB');
    expect(formatBytes(1.5 * MiB, 'en')).toBe('1.5 MiB');
    expect(formatBytes(20 * MiB, 'en')).toBe('20 MiB');
    expect(formatBytes(3 * GiB, 'en')).toBe('3 GiB');
    expect(formatBytes(2 * 1024 * GiB, 'en')).toBe('2 TiB');
  });

  it('never says KB, MB or GB for binary multiples', () => {
    for (const n of [KiB, 20 * MiB, 5 * GiB]) expect(formatBytes(n, 'en')).not.toMatch(/\b[KMG]B\b/);
  });

  it('keeps the IEC labels in German, with German numbers', () => {
    expect(formatBytes(1.5 * MiB, 'de')).toBe('1,5 MiB');
    expect(formatBytes(250 * GiB, 'de')).toBe('250 GiB');
  });

  it('rounds to one decimal below 100 and to whole numbers above', () => {
    expect(formatBytes(99.94 * MiB, 'en')).toBe('99.9 MiB');
    expect(formatBytes(123.4 * MiB, 'en')).toBe('123 MiB');
  });

  it('shows a dash for impossible sizes', () => {
    expect(formatBytes(-1, 'en')).toBe('–');
    expect(formatBytes(Number.NaN, 'en')).toBe('–');
  });
});

describe('daysLeft', () => {
  it('counts whole days left with the server’s retention, rounding up', () => {
    const t0 = Date.UTC(2026, 10, 1);
    expect(daysLeft(t0, 30 * DAY, t0)).toBe(30);
    expect(daysLeft(t0, 30 * DAY, t0 + 1)).toBe(30);
    expect(daysLeft(t0, 7 * DAY, t0 + 6 * DAY + 1)).toBe(1);
    expect(daysLeft(t0, 90 * DAY, t0 + DAY)).toBe(89);
  });

  it('never goes below zero once the purge is due', () => {
    const t0 = Date.UTC(2026, 10, 1);
    expect(daysLeft(t0, DAY, t0 + 5 * DAY)).toBe(0);
    expect(daysLeft(t0, 0, t0)).toBe(0);
  });
});
