import { describe, it, expect } from 'vitest';
import { agendaDays, agendaWindow, type AgendaItem } from './agenda';

const at = (y: number, m: number, d: number, h = 0, min = 0) => new Date(y, m - 1, d, h, min);
function item(uid: string, start: Date, opts: { allDay?: boolean; end?: Date; summary?: string } = {}): AgendaItem {
  return {
    uid,
    summary: opts.summary ?? uid,
    location: '',
    start: { date: start, allDay: !!opts.allDay },
    end: opts.end ? { date: opts.end, allDay: !!opts.allDay } : null,
    calendar: 'personal',
    color: null,
    key: `${uid}@${start.getTime()}`,
  };
}

describe('agendaWindow', () => {
  it('runs from today’s local midnight for 30 days', () => {
    const { start, end } = agendaWindow(at(2026, 1, 20, 15, 30));
    expect(start).toEqual(at(2026, 1, 20));
    expect(end).toEqual(at(2026, 2, 19));
  });
});

describe('agendaDays', () => {
  const { start, end } = agendaWindow(at(2026, 1, 20, 9));

  it('groups by day in order; all-day first, then by time', () => {
    const days = agendaDays(
      [
        item('late', at(2026, 1, 21, 18)),
        item('early', at(2026, 1, 21, 8)),
        item('holiday', at(2026, 1, 21), { allDay: true, end: at(2026, 1, 22) }),
        item('today', at(2026, 1, 20, 10)),
      ],
      start,
      end,
    );
    expect(days.map((d) => d.day)).toEqual(['2026-01-20', '2026-01-21']);
    expect(days[1].items.map((i) => i.uid)).toEqual(['holiday', 'early', 'late']);
    expect(days[1].date).toEqual(at(2026, 1, 21));
  });

  it('leaves out what is outside the window, and shows what still runs on its first day', () => {
    const days = agendaDays(
      [
        item('past', at(2026, 1, 10, 10), { end: at(2026, 1, 10, 11) }),
        item('running', at(2026, 1, 18, 10), { end: at(2026, 1, 22, 10) }),
        item('later', at(2026, 3, 1, 10)),
        item('last day', at(2026, 2, 18, 23)),
      ],
      start,
      end,
    );
    expect(days.map((d) => [d.day, d.items.map((i) => i.uid)])).toEqual([
      ['2026-01-20', ['running']],
      ['2026-02-18', ['last day']],
    ]);
  });

  it('counts an all-day event of yesterday without DTEND as over', () => {
    expect(agendaDays([item('yesterday', at(2026, 1, 19), { allDay: true })], start, end)).toEqual([]);
    expect(agendaDays([item('today', at(2026, 1, 20), { allDay: true })], start, end)).toHaveLength(1);
  });

  it('shows the same instance once', () => {
    const a = item('a', at(2026, 1, 22, 10));
    expect(agendaDays([a, { ...a }], start, end)[0].items).toHaveLength(1);
  });
});
