// Who is signed in. Filled by services/session.ts; read by pages and the shell.
// Their drives are in drives.svelte.ts.
import type { User } from '../api/schema.gen';

export type SessionStatus = 'loading' | 'anonymous' | 'signed-in';

class SessionState {
  status = $state<SessionStatus>('loading');
  user = $state<User | null>(null);
  /** set when a session ran out; the login page shows it once */
  expired = $state(false);
  /**
   * Whether first-run setup is open (no account exists yet), asked with
   * GET /setup while signed out; null while unknown (not asked, or the
   * server could not answer).
   */
  setupOpen = $state<boolean | null>(null);
  isAdmin = $derived(this.user?.role === 'admin');
}

export const session = new SessionState();
