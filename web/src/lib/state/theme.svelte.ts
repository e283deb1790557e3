// Light / dark / auto. public/theme.js applies the saved choice before the app
// loads (no flash; CSP forbids inline scripts); this keeps it in sync later.
export type ThemeChoice = 'light' | 'dark' | 'auto';
const KEY = 'nubo.theme';

function saved(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === 'light' || v === 'dark' ? v : 'auto';
  } catch {
    return 'auto';
  }
}

class Theme {
  choice = $state<ThemeChoice>(saved());

  set(choice: ThemeChoice) {
    this.choice = choice;
    try {
      if (choice === 'auto') localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, choice);
    } catch {
      // storage blocked: applies to this page only
    }
    document.documentElement.dataset.theme = choice;
  }
}

export const theme = new Theme();
