import { describe, it, expect } from 'vitest';
import { en } from './en';
import { de } from './de';
import { format, placeholders, directionOf, negotiate } from './translate';

describe('locales', () => {
  const locales: Record<string, Record<string, string>> = { de };

  for (const [name, dict] of Object.entries(locales)) {
    it(`${name} has every English key, and nothing else`, () => {
      const missing = Object.keys(en).filter((k) => !(k in dict));
      const extra = Object.keys(dict).filter((k) => !(k in en));
      expect(missing).toEqual([]);
      expect(extra).toEqual([]);
    });

    it(`${name} uses the same placeholders and plural shape as English`, () => {
      const wrong = Object.entries(en)
        .filter(([k, v]) => {
          const other = dict[k] ?? '';
          return (
            placeholders(v).join() !== placeholders(other).join() ||
            v.includes('|') !== other.includes('|') ||
            other.trim() === ''
          );
        })
        .map(([k]) => k);
      expect(wrong).toEqual([]);
    });
  }
});

describe('format', () => {
  it('fills placeholders and formats numbers for the locale', () => {
    expect(format('{n} of {m}', 'de', { n: 1234, m: 'x' })).toBe('1.234 of x');
  });
  it('chooses plural forms', () => {
    expect(format('one file|{count} files', 'en', { count: 1 })).toBe('one file');
    expect(format('one file|{count} files', 'en', { count: 3 })).toBe('3 files');
    expect(format('one file|{count} files', 'en', { count: 0 })).toBe('0 files');
  });
  it('leaves unknown placeholders visible', () => {
    expect(format('hi {who}', 'en', {})).toBe('hi {who}');
  });
  it('knows right-to-left languages', () => {
    expect(directionOf('ar')).toBe('rtl');
    expect(directionOf('he-IL')).toBe('rtl');
    expect(directionOf('de')).toBe('ltr');
  });
  it('negotiates the browser language', () => {
    expect(negotiate(['de-AT', 'en'], ['en', 'de'], 'en')).toBe('de');
    expect(negotiate(['fr'], ['en', 'de'], 'en')).toBe('en');
  });
});
