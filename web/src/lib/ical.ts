// iCalendar (RFC 5545) and vCard content lines, read just far enough for the
// Calendars page: unfolding, "NAME;PARAM=x:value" lines, TEXT escapes,
// DATE and DATE-TIME values, the events of a calendar-query answer, and an
// .ics file split into one calendar object per UID for import. No
// dependency; pure and unit-tested (ical.test.ts).

export interface ContentLine {
  /** upper case, without a group prefix ("item1.EMAIL" → "EMAIL") */
  name: string;
  /** parameter names upper case; quoted values unquoted; several values joined by "," */
  params: Record<string, string>;
  value: string;
}

/** Physical lines of a text, any of CRLF, LF or CR ending them; no empty last line. */
function physicalLines(text: string): string[] {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Logical lines as groups of physical lines: a line starting with a space or
 * a tab continues the one before (RFC 5545 3.1). Keeping the physical lines
 * lets an object be written out again byte for byte.
 */
export function logicalLines(text: string): string[][] {
  const out: string[][] = [];
  for (const line of physicalLines(text)) {
    if ((line.startsWith(' ') || line.startsWith('\t')) && out.length) out[out.length - 1].push(line);
    else if (line !== '') out.push([line]);
  }
  return out;
}

/** The unfolded lines of a text (continuation lines joined, their first blank dropped). */
export function unfold(text: string): string[] {
  return logicalLines(text).map(joinGroup);
}

/** One logical line (a group of `logicalLines`) unfolded. */
export function joinGroup(group: string[]): string {
  return group[0] + group.slice(1).map((l) => l.slice(1)).join('');
}

/** One unfolded line; null when it has no ":" (not a content line). */
export function parseLine(line: string): ContentLine | null {
  // The name runs to the first ";" or ":"; parameters may hold quoted ":" and ";".
  let i = 0;
  while (i < line.length && line[i] !== ';' && line[i] !== ':') i++;
  if (i >= line.length) return null;
  let name = line.slice(0, i).trim().toUpperCase();
  const dot = name.lastIndexOf('.');
  if (dot >= 0) name = name.slice(dot + 1);
  const params: Record<string, string> = {};
  while (line[i] === ';') {
    i++;
    const eq = line.indexOf('=', i);
    const stop = line.slice(i).search(/[;:]/);
    if (eq < 0 || (stop >= 0 && i + stop < eq)) {
      // A parameter without "=" (vCard 2.1 "TEL;CELL:…"): a TYPE.
      const end = stop < 0 ? line.length : i + stop;
      const type = line.slice(i, end).toUpperCase();
      params.TYPE = params.TYPE ? `${params.TYPE},${type}` : type;
      i = end;
      continue;
    }
    const pname = line.slice(i, eq).trim().toUpperCase();
    i = eq + 1;
    const values: string[] = [];
    for (;;) {
      let v = '';
      if (line[i] === '"') {
        const close = line.indexOf('"', i + 1);
        v = close < 0 ? line.slice(i + 1) : line.slice(i + 1, close);
        i = close < 0 ? line.length : close + 1;
      } else {
        while (i < line.length && line[i] !== ',' && line[i] !== ';' && line[i] !== ':') v += line[i++];
      }
      values.push(v);
      if (line[i] === ',') i++;
      else break;
    }
    params[pname] = params[pname] ? `${params[pname]},${values.join(',')}` : values.join(',');
  }
  if (line[i] !== ':') return null;
  return { name, params, value: line.slice(i + 1) };
}

/** A TEXT value with its escapes resolved: \n or \N → newline, \, → , \; → ; \\ → \. */
export function unescapeText(value: string): string {
  return value.replace(/\\([nN,;\\])/g, (_, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}

/** A DATE (all day) or a DATE-TIME value. */
export interface IcsTime {
  /** the moment; for all-day values local midnight of that day */
  date: Date;
  allDay: boolean;
}

/**
 * DTSTART/DTEND values: "20260105" or VALUE=DATE → all day; "20260105T100000Z"
 * → UTC; without "Z" (floating, or with a TZID the expanded answers do not
 * use) → local time, the best a browser can do without the time zone rules.
 */
export function parseTime(line: ContentLine): IcsTime | null {
  const v = line.value.trim();
  const date = /^(\d{4})(\d{2})(\d{2})$/.exec(v);
  if (date || line.params.VALUE?.toUpperCase() === 'DATE') {
    if (!date) return null;
    return { date: new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])), allDay: true };
  }
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(Z?)$/.exec(v);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number);
  const date2 = m[7] ? new Date(Date.UTC(y, mo - 1, d, h, mi, s)) : new Date(y, mo - 1, d, h, mi, s);
  return { date: date2, allDay: false };
}

export interface CalEvent {
  uid: string;
  summary: string;
  location: string;
  start: IcsTime;
  end: IcsTime | null;
}

/**
 * The VEVENTs of a text (an expanded calendar-query answer holds one per
 * instance). Properties of components inside an event (VALARM) are not the
 * event's. Events without a readable DTSTART are left out.
 */
export function readEvents(text: string): CalEvent[] {
  const events: CalEvent[] = [];
  const stack: string[] = [];
  let cur: Partial<CalEvent> | null = null;
  for (const raw of unfold(text)) {
    const line = parseLine(raw);
    if (!line) continue;
    if (line.name === 'BEGIN') {
      const comp = line.value.trim().toUpperCase();
      stack.push(comp);
      if (comp === 'VEVENT') cur = { uid: '', summary: '', location: '', end: null };
      continue;
    }
    if (line.name === 'END') {
      const comp = stack.pop();
      if (comp === 'VEVENT' && cur) {
        if (cur.start) events.push(cur as CalEvent);
        cur = null;
      }
      continue;
    }
    if (!cur || stack[stack.length - 1] !== 'VEVENT') continue;
    if (line.name === 'UID') cur.uid = line.value.trim();
    else if (line.name === 'SUMMARY') cur.summary = unescapeText(line.value);
    else if (line.name === 'LOCATION') cur.location = unescapeText(line.value);
    else if (line.name === 'DTSTART') cur.start = parseTime(line) ?? undefined;
    else if (line.name === 'DTEND') cur.end = parseTime(line);
  }
  return events;
}

/** One calendar object resource to PUT: its UID ('' when it has none) and its text. */
export interface CalObject {
  uid: string;
  text: string;
}

const OBJECT_COMPONENTS = new Set(['VEVENT', 'VTODO', 'VJOURNAL']);
// Stored objects must not carry METHOD (RFC 4791 4.1); the rest of a calendar's
// own properties (VERSION, PRODID, CALSCALE, X-…) go with every object.
const DROPPED_CALENDAR_PROPS = new Set(['METHOD']);

/**
 * Splits an .ics file (one or several VCALENDARs) into one VCALENDAR per UID:
 * an event and its overridden instances (same UID, RECURRENCE-ID) stay
 * together; every object gets the calendar's own properties and the
 * VTIMEZONEs its TZID parameters name. A component without UID becomes an
 * object of its own (the server refuses it and says why). Lines are copied
 * as they were (folding kept), ended by CRLF.
 */
export function splitCalendar(text: string): CalObject[] {
  const header: string[][] = [];
  const zones = new Map<string, string[][]>();
  const objects = new Map<string, { lines: string[][]; tzids: Set<string> }>();
  let anonymous = 0;
  let depth = 0; // inside VCALENDAR: 1; inside a top-level component: 2+
  let block: string[][] = [];
  let blockKind = '';
  let uid = '';
  let tzids = new Set<string>();
  let sawHeaderOf = 0; // which VCALENDAR gave the header (the first)
  let calendars = 0;

  for (const group of logicalLines(text)) {
    const line = parseLine(joinGroup(group));
    if (!line) continue;
    const value = line.value.trim().toUpperCase();
    if (line.name === 'BEGIN' && depth === 0) {
      if (value === 'VCALENDAR') {
        depth = 1;
        calendars++;
      }
      continue;
    }
    if (depth === 0) continue;
    if (depth === 1) {
      if (line.name === 'END') {
        depth = 0;
        continue;
      }
      if (line.name === 'BEGIN') {
        depth = 2;
        block = [group];
        blockKind = value;
        uid = '';
        tzids = new Set();
        continue;
      }
      if (sawHeaderOf === 0 || sawHeaderOf === calendars) {
        sawHeaderOf = calendars;
        if (!DROPPED_CALENDAR_PROPS.has(line.name)) header.push(group);
      }
      continue;
    }
    // depth >= 2: inside a top-level component
    block.push(group);
    if (line.name === 'BEGIN') depth++;
    else if (line.name === 'END') depth--;
    else if (depth === 2 && line.name === 'UID') uid = line.value.trim();
    else if (depth === 2 && line.name === 'TZID' && blockKind === 'VTIMEZONE') uid = line.value.trim();
    if (line.params.TZID) tzids.add(line.params.TZID);
    if (depth === 1) {
      if (blockKind === 'VTIMEZONE') {
        if (uid) zones.set(uid, block);
      } else if (OBJECT_COMPONENTS.has(blockKind)) {
        const key = uid || `\u0000${anonymous++}`;
        const obj = objects.get(key) ?? { lines: [], tzids: new Set<string>() };
        obj.lines.push(...block);
        for (const z of tzids) obj.tzids.add(z);
        objects.set(key, obj);
      }
    }
  }

  const out: CalObject[] = [];
  for (const [key, obj] of objects) {
    const lines: string[][] = [['BEGIN:VCALENDAR'], ...header];
    if (!header.some((g) => /^VERSION[;:]/i.test(g[0]))) lines.push(['VERSION:2.0']);
    if (!header.some((g) => /^PRODID[;:]/i.test(g[0]))) lines.push(['PRODID:-//nubo//import//EN']);
    for (const z of obj.tzids) {
      const zone = zones.get(z);
      if (zone) lines.push(...zone);
    }
    lines.push(...obj.lines, ['END:VCALENDAR']);
    out.push({ uid: key.startsWith('\u0000') ? '' : key, text: lines.flat().join('\r\n') + '\r\n' });
  }
  return out;
}

/** FNV-1a of a string, 8 hex digits: tells apart UIDs that clean up alike. */
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}

/**
 * A resource name for an object ("<name>.ics", "<name>.vcf") from its UID:
 * the UID itself when it is plain (letters, digits, ".", "_", "-"), else its
 * plain characters plus a hash of the whole UID, so distinct UIDs never share
 * a name. `fallback` (random) names objects without a UID.
 */
export function resourceName(uid: string, ext: 'ics' | 'vcf', fallback: () => string): string {
  if (!uid) return `${fallback()}.${ext}`;
  if (/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,119}$/.test(uid)) return `${uid}.${ext}`;
  const plain = uid
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80);
  return `${plain ? plain + '-' : ''}${shortHash(uid)}.${ext}`;
}

/** A random (version 4) UUID; crypto.randomUUID needs a secure context, getRandomValues does not. */
export function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** A UTC time as iCalendar DATE-TIME ("20260105T100000Z"): CalDAV time ranges. */
export function icsUtc(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
}
