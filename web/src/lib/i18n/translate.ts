// Pure translation helpers (no state): message lookup with {name} parameters
// and plural forms "one|other" chosen by Intl.PluralRules.
export type Messages = Record<string, string>;
export type Params = Record<string, string | number>;

const RTL = new Set(['ar', 'fa', 'he', 'ur', 'ps', 'yi', 'dv', 'ckb']);

export function directionOf(locale: string): 'ltr' | 'rtl' {
  return RTL.has(locale.split('-')[0].toLowerCase()) ? 'rtl' : 'ltr';
}

/** Placeholders ("{count}") a message uses, sorted, for completeness checks. */
export function placeholders(message: string): string[] {
  return [...new Set([...message.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
}

/**
 * Formats `message`. A message "one file|{count} files" has plural forms in
 * Intl.PluralRules order (one|other, or zero-less languages' own set), picked
 * by params.count.
 */
export function format(message: string, locale: string, params?: Params): string {
  let text = message;
  if (text.includes('|') && params && typeof params.count === 'number') {
    const forms = text.split('|');
    const rule = new Intl.PluralRules(locale).select(params.count);
    const order = ['one', 'other'];
    const idx = forms.length === 2 ? (rule === 'one' ? 0 : 1) : Math.max(0, order.indexOf(rule));
    text = forms[Math.min(idx, forms.length - 1)];
  }
  if (!params) return text;
  return text.replace(/\{(\w+)\}/g, (whole, k: string) => {
    const v = params[k];
    if (v === undefined) return whole;
    return typeof v === 'number' ? new Intl.NumberFormat(locale).format(v) : v;
  });
}

/** The best supported locale for the browser's preferences. */
export function negotiate(preferred: readonly string[], supported: readonly string[], fallback: string): string {
  for (const p of preferred) {
    const lower = p.toLowerCase();
    const exact = supported.find((s) => s.toLowerCase() === lower);
    if (exact) return exact;
    const base = supported.find((s) => s.toLowerCase() === lower.split('-')[0]);
    if (base) return base;
  }
  return fallback;
}
