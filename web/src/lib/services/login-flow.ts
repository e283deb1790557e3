// Nextcloud Login Flow v2, the browser's step: a desktop or mobile client
// opened /index.php/login/v2/flow/<token>, which lands on /login-flow/<token>.
// The signed-in user sees which client asks and grants it (the server makes
// an app password and hands it to the client's next poll) or does not.
import { api } from './api';
import type { LoginFlow } from '../api/schema.gen';

export interface LoginFlowApi {
  /** The pending flow; 404 when unknown, expired or already granted. */
  describe(token: string): Promise<LoginFlow>;
  /** Grants it: 204, or 404 as above. */
  grant(token: string): Promise<void>;
}

export const loginFlowApi: LoginFlowApi = {
  describe(token) {
    return api.call('GET /api/v1/login-flows/{token}', { path: { token } });
  },
  async grant(token) {
    await api.call('POST /api/v1/login-flows/{token}/grant', { path: { token } });
  },
};
