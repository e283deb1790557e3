// The Calendars page's agenda: event instances of every calendar in a window
// (the next 30 days), grouped by local day, all-day events first, then by
// start time. Pure and unit-tested (agenda.test.ts).
import type { CalEvent } from './ical';

export const AGENDA_DAYS = 30;

export interface AgendaItem extends CalEvent {
  /** the calendar's slug and colour */
  calendar: string;
  color: string | null;
  /** a stable key for the list: uid plus start */
  key: string;
}

export interface AgendaDay {
  /** local date "2026-01-05" */
  day: string;
  /** local midnight of that day */
  date: Date;
  items: AgendaItem[];
}

/** Local midnight of the day of `d`. */
export function startOfDay(d: Date): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate());
}

/** The window the agenda asks for: from today's local midnight, AGENDA_DAYS days. */
export function agendaWindow(now: Date, days = AGENDA_DAYS): { start: Date; end: Date } {
  const start = startOfDay(now);
  const end = new Date(start);
  end.setDate(end.getDate() + days);
  return { start, end };
}

function dayKey(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** When an event ends (an all-day event without DTEND lasts its day; a timed one, an instant). */
function endOf(e: CalEvent): Date {
  if (e.end && e.end.date > e.start.date) return e.end.date;
  if (e.start.allDay) {
    const d = new Date(e.start.date);
    d.setDate(d.getDate() + 1);
    return d;
  }
  return e.start.date;
}

/**
 * Groups instances by the local day they start on; one that began before the
 * window and still runs shows on the window's first day. Instances wholly
 * outside [start, end) are left out; duplicates (the same UID and start from
 * two answers) once.
 */
export function agendaDays(items: AgendaItem[], start: Date, end: Date): AgendaDay[] {
  const byDay = new Map<string, AgendaDay>();
  const seen = new Set<string>();
  for (const e of items) {
    const to = endOf(e);
    const inside = e.start.date < end && (to > start || (to.getTime() === e.start.date.getTime() && to >= start));
    if (!inside || seen.has(e.key)) continue;
    seen.add(e.key);
    const shown = e.start.date < start ? start : e.start.date;
    const key = dayKey(shown);
    let day = byDay.get(key);
    if (!day) byDay.set(key, (day = { day: key, date: startOfDay(shown), items: [] }));
    day.items.push(e);
  }
  const days = [...byDay.values()].sort((a, b) => a.date.getTime() - b.date.getTime());
  for (const d of days) {
    d.items.sort(
      (a, b) =>
        Number(b.start.allDay) - Number(a.start.allDay) ||
        a.start.date.getTime() - b.start.date.getTime() ||
        a.summary.localeCompare(b.summary),
    );
  }
  return days;
}
