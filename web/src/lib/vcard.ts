// vCard (RFC 6350, and the 3.0/2.1 shapes clients still write), read just far
// enough for the Contacts page: a .vcf file split into cards, a UID added to
// a card without one (the server refuses those), an FN made from N where
// it lacks one, and FN, EMAIL, TEL of a card. The content-line reader is the iCalendar one (same syntax).
import { joinGroup, logicalLines, parseLine, unescapeText } from './ical';

/**
 * The cards of a .vcf file, each from BEGIN:VCARD to its END:VCARD, lines as
 * they were (folding kept), ended by CRLF. Text outside cards is ignored; a
 * card without END (a cut file) is dropped.
 */
export function splitCards(text: string): string[] {
  const cards: string[] = [];
  let cur: string[][] | null = null;
  let depth = 0;
  for (const group of logicalLines(text)) {
    const line = parseLine(joinGroup(group));
    const isBegin = line?.name === 'BEGIN' && line.value.trim().toUpperCase() === 'VCARD';
    const isEnd = line?.name === 'END' && line.value.trim().toUpperCase() === 'VCARD';
    if (!cur) {
      if (isBegin) {
        cur = [group];
        depth = 1;
      }
      continue;
    }
    cur.push(group);
    if (isBegin) depth++;
    else if (isEnd && --depth === 0) {
      cards.push(cur.flat().join('\r\n') + '\r\n');
      cur = null;
    }
  }
  return cards;
}

/** The card's UID ('' when it has none). */
export function cardUid(card: string): string {
  for (const group of logicalLines(card)) {
    const line = parseLine(joinGroup(group));
    if (line?.name === 'UID') return line.value.trim();
  }
  return '';
}

/** The card with a UID line after its VERSION (or after BEGIN:VCARD), when it has none. */
export function withUid(card: string, uid: string): string {
  if (cardUid(card)) return card;
  const groups = logicalLines(card);
  let at = groups.findIndex((g) => /^VERSION[;:]/i.test(g[0]));
  if (at < 0) at = groups.findIndex((g) => /^BEGIN:VCARD\s*$/i.test(g[0]));
  groups.splice(at + 1, 0, [`UID:${uid}`]);
  return groups.flat().join('\r\n') + '\r\n';
}

/** A TEXT value with , ; \\ and newlines escaped. */
function escapeText(v: string): string {
  return v.replace(/[\\,;]/g, (c) => '\\' + c).replace(/\r?\n/g, '\\n');
}

/**
 * The card with an FN made from its N when it has none (FN is required since
 * vCard 3.0, and the server refuses cards without; old exports lack it).
 * Cards with FN, or without N to make one from, come back as they were.
 */
export function withFn(card: string): string {
  const c = readCard(card);
  const hasFn = logicalLines(card).some((g) => parseLine(joinGroup(g))?.name === 'FN');
  if (hasFn || !c.name) return card;
  const groups = logicalLines(card);
  const at = groups.findIndex((g) => parseLine(joinGroup(g))?.name === 'N');
  groups.splice(at + 1, 0, [`FN:${escapeText(c.name)}`]);
  return groups.flat().join('\r\n') + '\r\n';
}

export interface Contact {
  uid: string;
  /** FN, else the name parts of N, else '' */
  name: string;
  emails: string[];
  phones: string[];
  org: string;
}

/** Splits a structured value (N, ORG) at unescaped ";" and resolves the escapes. */
function components(value: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < value.length; i++) {
    if (value[i] === '\\' && i + 1 < value.length) {
      cur += value[i] + value[i + 1];
      i++;
    } else if (value[i] === ';') {
      parts.push(cur);
      cur = '';
    } else cur += value[i];
  }
  parts.push(cur);
  return parts.map(unescapeText);
}

/** FN, EMAIL, TEL, ORG and UID of one card (the first card of the text). */
export function readCard(text: string): Contact {
  const c: Contact = { uid: '', name: '', emails: [], phones: [], org: '' };
  let n = '';
  let depth = 0;
  for (const group of logicalLines(text)) {
    const line = parseLine(joinGroup(group));
    if (!line) continue;
    if (line.name === 'BEGIN') {
      depth++;
      continue;
    }
    if (line.name === 'END') {
      if (--depth <= 0) break;
      continue;
    }
    if (depth !== 1) continue;
    const value = line.value.trim();
    if (line.name === 'UID') c.uid = value;
    else if (line.name === 'FN' && !c.name) c.name = unescapeText(value);
    else if (line.name === 'N' && !n) {
      // family;given;additional;prefixes;suffixes → "prefix given additional family suffix"
      const [family = '', given = '', extra = '', prefix = '', suffix = ''] = components(value);
      n = [prefix, given, extra, family, suffix].filter((s) => s.trim()).join(' ');
    } else if (line.name === 'EMAIL' && value) c.emails.push(unescapeText(value));
    else if (line.name === 'TEL' && value) c.phones.push(unescapeText(value).replace(/^tel:/i, ''));
    else if (line.name === 'ORG' && !c.org) c.org = components(value).filter(Boolean).join(', ');
  }
  if (!c.name) c.name = n;
  return c;
}
