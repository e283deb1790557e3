// The application's one ApiClient instance, wired to the session: a failed
// refresh sends the user to the login page with a "session expired" notice
// and the current route as the place to return to.
import { ApiClient } from '../api/client';
import { session } from '../state/session.svelte';
import { router, isLoginPage } from '../state/router.svelte';

const EXPIRY_KEY = 'nubo.accessExpiresAt';
let refreshTimer: ReturnType<typeof setTimeout> | undefined;

export function accessExpiresAt(): number {
  try {
    return Number(localStorage.getItem(EXPIRY_KEY) ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Remembers when the access cookie runs out and refreshes a little before:
 * a request without the access cookie gets a 401 carrying a Basic challenge,
 * which some browsers answer with a password dialog over the page.
 */
function onSession(expiresInS: number) {
  try {
    localStorage.setItem(EXPIRY_KEY, String(Date.now() + expiresInS * 1000));
  } catch {
    // storage blocked: the timer below still works for this tab
  }
  clearTimeout(refreshTimer);
  const lead = Math.max(5, Math.min(60, expiresInS * 0.2));
  refreshTimer = setTimeout(() => void api.refresh(), Math.max(1, expiresInS - lead) * 1000);
}

export function stopRefreshTimer() {
  clearTimeout(refreshTimer);
  try {
    localStorage.removeItem(EXPIRY_KEY);
  } catch {
    // nothing to forget
  }
}

/** The session is gone (a refresh failed): to the login page, back here afterwards. */
export function onSessionExpired() {
  if (session.status !== 'signed-in') return;
  stopRefreshTimer();
  session.status = 'anonymous';
  session.user = null;
  session.expired = true;
  const here = router.href;
  if (!isLoginPage(here)) router.navigate('/login?next=' + encodeURIComponent(here), { replace: true });
}

export const api = new ApiClient({
  onSession,
  onSessionExpired,
  lock:
    typeof navigator !== 'undefined' && navigator.locks
      ? (name, fn) => navigator.locks.request(name, fn)
      : undefined,
});
