// What the Login Flow v2 page (/login-flow/<token>) shows: the request of a
// client (its name, until when it is valid) with Grant and Cancel, "access
// granted", or "expired or already used" (the server answers 404 alike for
// an unknown, an expired and a granted flow; a grant that comes too late
// answers the same).
import type { LoginFlowApi } from '../services/login-flow';
import { ApiError } from '../api/client';
import { describeError } from '../services/errors';

export type LoginFlowStatus = 'loading' | 'pending' | 'granted' | 'gone' | 'failed';

export class LoginFlowView {
  status = $state<LoginFlowStatus>('loading');
  clientName = $state('');
  expiresAt = $state(0);
  granting = $state(false);
  /** why loading or granting failed (not a 404), in the user's language */
  error = $state<string | null>(null);

  constructor(
    readonly token: string,
    private readonly api: LoginFlowApi,
  ) {}

  async open() {
    this.error = null;
    // The server's redirect leaves the token out when it is malformed.
    if (!this.token) {
      this.status = 'gone';
      return;
    }
    this.status = 'loading';
    try {
      const flow = await this.api.describe(this.token);
      this.clientName = flow.client_name;
      this.expiresAt = flow.expires_at;
      this.status = 'pending';
    } catch (e) {
      this.fail(e);
    }
  }

  async grant() {
    if (this.status !== 'pending' || this.granting) return;
    this.granting = true;
    this.error = null;
    try {
      await this.api.grant(this.token);
      this.status = 'granted';
    } catch (e) {
      // Anything but "gone" leaves the request on screen to try again.
      if (e instanceof ApiError && e.status === 404) this.status = 'gone';
      else if (!(e instanceof ApiError && e.status === 401)) this.error = describeError(e);
    } finally {
      this.granting = false;
    }
  }

  private fail(e: unknown) {
    if (e instanceof ApiError && e.status === 404) {
      this.status = 'gone';
    } else {
      // A 401 the refresh could not fix already sent the user to sign in.
      this.status = 'failed';
      this.error = describeError(e);
    }
  }
}
