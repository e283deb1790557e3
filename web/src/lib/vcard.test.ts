import { describe, it, expect } from 'vitest';
import { cardUid, readCard, splitCards, withFn, withUid } from './vcard';

const file = [
  'BEGIN:VCARD',
  'VERSION:3.0',
  'UID:ada-1',
  'FN:Ada Lovelace',
  'N:Lovelace;Ada;;;',
  'EMAIL;TYPE=work:ada@example.com',
  'item1.EMAIL:ada@home.example',
  'TEL;TYPE=cell:+44 20',
  ' 7946 0000',
  'NOTE:first\\nsecond\\, third',
  'END:VCARD',
  'some text between cards',
  'begin:vcard',
  'version:4.0',
  'n:Hopper;Grace;Brewster;Rear Admiral;',
  'tel;value=uri:tel:+1-555-0100',
  'org:Navy\\; Reserve;Computing',
  'end:vcard',
].join('\n');

describe('splitCards', () => {
  it('finds every card, lines kept as they were and ended by CRLF', () => {
    const cards = splitCards(file);
    expect(cards).toHaveLength(2);
    expect(cards[0].startsWith('BEGIN:VCARD\r\nVERSION:3.0\r\n')).toBe(true);
    expect(cards[0]).toContain('TEL;TYPE=cell:+44 20\r\n 7946 0000\r\n');
    expect(cards[0].endsWith('END:VCARD\r\n')).toBe(true);
    expect(cards[1]).not.toContain('some text');
  });

  it('drops a card that does not end', () => {
    expect(splitCards('BEGIN:VCARD\nFN:x\nEND:VCARD\nBEGIN:VCARD\nFN:cut')).toHaveLength(1);
    expect(splitCards('nothing here')).toEqual([]);
  });
});

describe('UIDs', () => {
  const [ada, grace] = splitCards(file);

  it('reads a card’s UID', () => {
    expect(cardUid(ada)).toBe('ada-1');
    expect(cardUid(grace)).toBe('');
  });

  it('adds a UID after VERSION to a card without one, and leaves other cards alone', () => {
    const fixed = withUid(grace, 'u-123');
    expect(fixed).toContain('version:4.0\r\nUID:u-123\r\n');
    expect(cardUid(fixed)).toBe('u-123');
    expect(withUid(ada, 'u-123')).toBe(ada);
    expect(withUid('BEGIN:VCARD\r\nFN:x\r\nEND:VCARD\r\n', 'u')).toBe('BEGIN:VCARD\r\nUID:u\r\nFN:x\r\nEND:VCARD\r\n');
  });
});

describe('withFn', () => {
  it('adds an FN made from N (escaped) after N when a card has none', () => {
    const card = 'BEGIN:VCARD\r\nVERSION:2.1\r\nN:Doe\\, Jr.;John;;;\r\nTEL:1\r\nEND:VCARD\r\n';
    const fixed = withFn(card);
    expect(fixed).toBe('BEGIN:VCARD\r\nVERSION:2.1\r\nN:Doe\\, Jr.;John;;;\r\nFN:John Doe\\, Jr.\r\nTEL:1\r\nEND:VCARD\r\n');
    expect(readCard(fixed).name).toBe('John Doe, Jr.');
  });

  it('leaves cards with FN, or without a name at all, as they were', () => {
    const [ada] = splitCards(file);
    expect(withFn(ada)).toBe(ada);
    const nameless = 'BEGIN:VCARD\r\nEMAIL:x@y\r\nEND:VCARD\r\n';
    expect(withFn(nameless)).toBe(nameless);
  });
});

describe('readCard', () => {
  it('reads FN, every EMAIL and TEL (unfolded), and the UID', () => {
    const c = readCard(splitCards(file)[0]);
    expect(c).toEqual({
      uid: 'ada-1',
      name: 'Ada Lovelace',
      emails: ['ada@example.com', 'ada@home.example'],
      phones: ['+44 207946 0000'],
      org: '',
    });
  });

  it('falls back to N for the name, reads tel: URIs and structured ORG with escapes', () => {
    const c = readCard(splitCards(file)[1]);
    expect(c.name).toBe('Rear Admiral Grace Brewster Hopper');
    expect(c.phones).toEqual(['+1-555-0100']);
    expect(c.org).toBe('Navy; Reserve, Computing');
  });

  it('resolves escapes in FN: \\n, \\, \\; and \\\\', () => {
    expect(readCard('BEGIN:VCARD\nFN:A\\, B\\; C\\\\D\\nE\nEND:VCARD').name).toBe('A, B; C\\D\nE');
  });

  it('ignores the properties of a nested card (vCard 2.1 AGENT)', () => {
    const c = readCard('BEGIN:VCARD\nFN:Boss\nAGENT:\nBEGIN:VCARD\nFN:Agent\nEMAIL:agent@x\nEND:VCARD\nEMAIL:boss@x\nEND:VCARD');
    expect(c.name).toBe('Boss');
    expect(c.emails).toEqual(['boss@x']);
  });
});
