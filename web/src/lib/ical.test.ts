import { describe, it, expect } from 'vitest';
import {
  icsUtc,
  logicalLines,
  parseLine,
  parseTime,
  readEvents,
  resourceName,
  splitCalendar,
  unescapeText,
  unfold,
  uuid,
} from './ical';

const CRLF = (lines: string[]) => lines.join('\r\n') + '\r\n';

describe('unfold', () => {
  it('joins continuation lines (space or tab) and accepts CRLF, LF and CR', () => {
    expect(unfold('SUMMARY:Long\r\n  title\r\n\t continued\r\nX:1\r\n')).toEqual(['SUMMARY:Long title continued', 'X:1']);
    expect(unfold('A:1\nB:2\rC:3')).toEqual(['A:1', 'B:2', 'C:3']);
  });

  it('drops a byte order mark and empty lines', () => {
    expect(unfold('\uFEFFA:1\r\n\r\nB:2\r\n\r\n')).toEqual(['A:1', 'B:2']);
  });

  it('keeps the physical lines of each logical line', () => {
    expect(logicalLines('A:1\r\n 2\r\nB:3')).toEqual([['A:1', ' 2'], ['B:3']]);
  });
});

describe('parseLine', () => {
  it('reads the name, parameters and value', () => {
    expect(parseLine('DTSTART;TZID=Europe/Berlin:20260105T100000')).toEqual({
      name: 'DTSTART',
      params: { TZID: 'Europe/Berlin' },
      value: '20260105T100000',
    });
  });

  it('unquotes parameter values that hold ":" and ";", and keeps ":" in the value', () => {
    expect(parseLine('ATTENDEE;CN="Doe; John";DELEGATED-FROM="mailto:a@b":mailto:j@x.org')).toEqual({
      name: 'ATTENDEE',
      params: { CN: 'Doe; John', 'DELEGATED-FROM': 'mailto:a@b' },
      value: 'mailto:j@x.org',
    });
  });

  it('upper-cases names, drops a vCard group and reads bare vCard 2.1 types', () => {
    expect(parseLine('item1.email;type=INTERNET,pref:a@b.c')).toEqual({
      name: 'EMAIL',
      params: { TYPE: 'INTERNET,pref' },
      value: 'a@b.c',
    });
    expect(parseLine('TEL;CELL;HOME:+1 2')?.params).toEqual({ TYPE: 'CELL,HOME' });
  });

  it('is null for a line without a value', () => {
    expect(parseLine('garbage')).toBeNull();
    expect(parseLine('X;Y=1')).toBeNull();
  });
});

describe('unescapeText', () => {
  it('resolves \\n, \\N, \\, \\; and \\\\', () => {
    expect(unescapeText('a\\nb\\Nc\\, d\\; e\\\\n')).toBe('a\nb\nc, d; e\\n');
  });
});

describe('parseTime', () => {
  it('reads UTC date-times', () => {
    const t = parseTime(parseLine('DTSTART:20260105T100000Z')!);
    expect(t).toEqual({ date: new Date(Date.UTC(2026, 0, 5, 10, 0, 0)), allDay: false });
  });

  it('reads dates as all-day, at local midnight', () => {
    expect(parseTime(parseLine('DTSTART;VALUE=DATE:20260105')!)).toEqual({ date: new Date(2026, 0, 5), allDay: true });
    expect(parseTime(parseLine('DTSTART:20260105')!)?.allDay).toBe(true);
  });

  it('reads floating times as local time, and nothing else', () => {
    expect(parseTime(parseLine('DTSTART:20260105T101500')!)?.date).toEqual(new Date(2026, 0, 5, 10, 15));
    expect(parseTime(parseLine('DTSTART:tomorrow')!)).toBeNull();
    expect(parseTime(parseLine('DTSTART;VALUE=DATE:20260105T100000Z')!)).toBeNull();
  });
});

describe('readEvents', () => {
  const text = CRLF([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'BEGIN:VEVENT',
    'UID:a@x',
    'SUMMARY:Team sync\\, weekly',
    'LOCATION:Room 1\\; floor 2',
    'DTSTART:20260105T100000Z',
    'DTEND:20260105T110000Z',
    'BEGIN:VALARM',
    'SUMMARY:not the event',
    'DTSTART:19700101T000000Z',
    'END:VALARM',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:b@x',
    'SUMMARY:Holi',
    ' day',
    'DTSTART;VALUE=DATE:20260110',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:broken',
    'SUMMARY:no start',
    'END:VEVENT',
    'END:VCALENDAR',
  ]);

  it('reads UID, SUMMARY, LOCATION, DTSTART and DTEND of each event', () => {
    const events = readEvents(text);
    expect(events.map((e) => e.uid)).toEqual(['a@x', 'b@x']);
    expect(events[0]).toEqual({
      uid: 'a@x',
      summary: 'Team sync, weekly',
      location: 'Room 1; floor 2',
      start: { date: new Date(Date.UTC(2026, 0, 5, 10)), allDay: false },
      end: { date: new Date(Date.UTC(2026, 0, 5, 11)), allDay: false },
    });
    expect(events[1].summary).toBe('Holiday');
    expect(events[1].start.allDay).toBe(true);
    expect(events[1].end).toBeNull();
  });
});

describe('splitCalendar', () => {
  const tz = ['BEGIN:VTIMEZONE', 'TZID:Europe/Berlin', 'BEGIN:STANDARD', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'DTSTART:19701025T030000', 'END:STANDARD', 'END:VTIMEZONE'];
  const file = CRLF([
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    'METHOD:PUBLISH',
    ...tz,
    'BEGIN:VTIMEZONE',
    'TZID:America/New_York',
    'END:VTIMEZONE',
    'BEGIN:VEVENT',
    'UID:one@test',
    'DTSTART;TZID=Europe/Berlin:20260105T100000',
    'SUMMARY:A long line that was',
    '  folded',
    'RRULE:FREQ=DAILY;COUNT=3',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:two@test',
    'DTSTART:20260106T100000Z',
    'END:VEVENT',
    'BEGIN:VEVENT',
    'UID:one@test',
    'RECURRENCE-ID;TZID=Europe/Berlin:20260106T100000',
    'DTSTART;TZID=Europe/Berlin:20260106T120000',
    'END:VEVENT',
    'BEGIN:VTODO',
    'DTSTART:20260106T100000Z',
    'END:VTODO',
    'END:VCALENDAR',
  ]);

  it('makes one calendar per UID, an event and its overrides together', () => {
    const objects = splitCalendar(file);
    expect(objects.map((o) => o.uid)).toEqual(['one@test', 'two@test', '']);
    const one = objects[0].text;
    expect(one.match(/BEGIN:VEVENT/g)).toHaveLength(2);
    expect(one).toContain('RECURRENCE-ID;TZID=Europe/Berlin:20260106T100000');
    expect(objects[1].text.match(/BEGIN:VEVENT/g)).toHaveLength(1);
  });

  it('gives each object the calendar header without METHOD, and the time zones it uses', () => {
    const [one, two] = splitCalendar(file);
    expect(one.text.startsWith('BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VTIMEZONE\r\nTZID:Europe/Berlin\r\n')).toBe(true);
    expect(one.text).not.toContain('METHOD');
    expect(one.text).not.toContain('America/New_York');
    expect(two.text).not.toContain('VTIMEZONE');
    expect(one.text.endsWith('END:VEVENT\r\nEND:VCALENDAR\r\n')).toBe(true);
  });

  it('keeps folded lines as they were, and each object reads back', () => {
    const [one] = splitCalendar(file);
    expect(one.text).toContain('SUMMARY:A long line that was\r\n  folded\r\n');
    expect(readEvents(one.text).map((e) => e.summary)).toEqual(['A long line that was folded', '']);
  });

  it('keeps a component without UID apart, and adds VERSION and PRODID when missing', () => {
    const objects = splitCalendar('BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20260106T100000Z\nEND:VEVENT\nBEGIN:VEVENT\nDTSTART:20260107T100000Z\nEND:VEVENT\nEND:VCALENDAR\n');
    expect(objects).toHaveLength(2);
    expect(objects[0].uid).toBe('');
    expect(objects[0].text).toContain('VERSION:2.0\r\nPRODID:');
  });

  it('reads every VCALENDAR of a file, and nothing outside them', () => {
    const two = 'junk\nBEGIN:VCALENDAR\nVERSION:2.0\nBEGIN:VEVENT\nUID:x\nEND:VEVENT\nEND:VCALENDAR\nBEGIN:VCALENDAR\nBEGIN:VEVENT\nUID:y\nEND:VEVENT\nEND:VCALENDAR\n';
    expect(splitCalendar(two).map((o) => o.uid)).toEqual(['x', 'y']);
    expect(splitCalendar('not a calendar')).toEqual([]);
  });
});

describe('resourceName', () => {
  const fallback = () => 'random';

  it('uses a plain UID as it is', () => {
    expect(resourceName('ev-1_2.x', 'ics', fallback)).toBe('ev-1_2.x.ics');
  });

  it('cleans other UIDs and adds a hash, so UIDs that clean up alike stay apart', () => {
    const a = resourceName('a@b/c', 'ics', fallback);
    const b = resourceName('a@b c', 'ics', fallback);
    expect(a).toMatch(/^a-b-c-[0-9a-f]{8}\.ics$/);
    expect(b).toMatch(/^a-b-c-[0-9a-f]{8}\.ics$/);
    expect(a).not.toBe(b);
    expect(resourceName('../..', 'vcf', fallback)).toMatch(/^[0-9a-f]{8}\.vcf$/);
  });

  it('names objects without UID by the fallback', () => {
    expect(resourceName('', 'vcf', fallback)).toBe('random.vcf');
  });
});

describe('uuid and icsUtc', () => {
  it('makes version 4 UUIDs', () => {
    const a = uuid();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(uuid()).not.toBe(a);
  });

  it('writes UTC DATE-TIMEs', () => {
    expect(icsUtc(new Date(Date.UTC(2026, 0, 5, 9, 8, 7, 654)))).toBe('20260105T090807Z');
  });
});
