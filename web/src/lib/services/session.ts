// Signing in and out, first-run setup, and finding out at start-up whether a
// browser session is alive.
import { ApiError } from '../api/client';
import { api, accessExpiresAt, stopRefreshTimer } from './api';
import { session } from '../state/session.svelte';
import { uploads, resumeStore } from '../state/uploads.svelte';
import { drives } from '../state/drives.svelte';

async function loadIdentity() {
  const [user, list] = await Promise.all([api.call('GET /api/v1/me'), api.call('GET /api/v1/drives')]);
  session.user = user;
  drives.all = list.drives;
  session.setupOpen = false; // an account exists
  session.status = 'signed-in';
  session.expired = false;
}

/**
 * Asks whether first-run setup is still open (GET /setup needs no account,
 * so it never meets a Basic challenge). Unknown (null) when the server
 * cannot answer: the UI then neither forces nor hides the setup page.
 */
export async function checkSetup(): Promise<void> {
  try {
    session.setupOpen = (await api.call('GET /api/v1/setup')).open;
  } catch {
    session.setupOpen = null;
  }
}

/** Signed out: the login page, or the setup page on a server without accounts. */
async function anonymous(): Promise<void> {
  await checkSetup();
  session.status = 'anonymous';
}

/**
 * Start-up: without the readable nubo_csrf cookie there is no session and no
 * request is made (an unauthenticated API call gets a Basic challenge). With
 * it, a stale access cookie is refreshed first, for the same reason.
 */
export async function boot(): Promise<void> {
  if (!api.hasSession()) {
    await anonymous();
    return;
  }
  try {
    if (accessExpiresAt() < Date.now() + 5000 && !(await api.refresh())) {
      await anonymous();
      return;
    }
    await loadIdentity();
  } catch (e) {
    await anonymous();
    if (!(e instanceof ApiError && e.status === 401)) throw e;
  }
}

export async function login(username: string, password: string): Promise<void> {
  await api.call('POST /api/v1/auth/login', { body: { username, password, mode: 'cookie' } });
  await loadIdentity();
}

export async function logout(): Promise<void> {
  uploads.cancelAll();
  resumeStore.clear(); // what was left unfinished is not resumed by whoever signs in next
  try {
    await api.call('POST /api/v1/auth/logout');
  } catch (e) {
    // Signing out of a session that already ended is still signing out.
    if (!(e instanceof ApiError && (e.status === 401 || e.status === 400))) throw e;
  } finally {
    stopRefreshTimer();
    session.status = 'anonymous';
    session.user = null;
    drives.all = [];
  }
}

export type SetupOutcome = 'created' | 'already-done';

/** First run: creates the administrator (409 once any account exists). */
export async function setup(username: string, password: string, email?: string): Promise<SetupOutcome> {
  try {
    await api.call('POST /api/v1/setup', { body: { username, password, ...(email ? { email } : {}) } });
    session.setupOpen = false;
    return 'created';
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      session.setupOpen = false;
      return 'already-done';
    }
    throw e;
  }
}

/** Asks for the drives again: usage and quotas, and shared drives joined, left, renamed or deleted. */
export async function refreshUsage(): Promise<void> {
  drives.all = (await api.call('GET /api/v1/drives')).drives;
}
