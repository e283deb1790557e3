import { describe, expect, it } from 'vitest';
import { daysLeft } from './format';

const DAY = 86_400_000;

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
