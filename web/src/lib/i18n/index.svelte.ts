// The translator. Every user-visible string goes through `t(key, params)`.
// The locale is reactive state: changing it re-renders every string and sets
// <html lang dir> (ready for right-to-left locales).
import { en, type MessageKey } from './en';
import { de } from './de';
import { directionOf, format, negotiate, type Params } from './translate';

export const LOCALES = { en, de } as const;
export type Locale = keyof typeof LOCALES;
export const LOCALE_NAMES: Record<Locale, string> = { en: 'English', de: 'Deutsch' };
const STORAGE_KEY = 'nubo.locale';

function initialLocale(): Locale {
  try {
    const saved = localStorage.getItem(STORAGE_KEY);
    if (saved && saved in LOCALES) return saved as Locale;
  } catch {
    // storage blocked
  }
  const prefs = typeof navigator === 'undefined' ? [] : navigator.languages ?? [navigator.language];
  return negotiate(prefs, Object.keys(LOCALES), 'en') as Locale;
}

class I18n {
  locale = $state<Locale>(initialLocale());
  dir = $derived(directionOf(this.locale));

  set(locale: Locale) {
    this.locale = locale;
    try {
      localStorage.setItem(STORAGE_KEY, locale);
    } catch {
      // storage blocked: the choice lasts for this page
    }
    this.apply();
  }

  apply() {
    if (typeof document === 'undefined') return;
    document.documentElement.lang = this.locale;
    document.documentElement.dir = this.dir;
  }
}

export const i18n = new I18n();

export function t(key: MessageKey, params?: Params): string {
  const dict = LOCALES[i18n.locale] as Record<string, string>;
  return format(dict[key] ?? en[key] ?? key, i18n.locale, params);
}

export type { MessageKey };
