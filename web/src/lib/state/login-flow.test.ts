import { describe, it, expect, vi } from 'vitest';
import { LoginFlowView } from './login-flow.svelte';
import { ApiError } from '../api/client';
import type { LoginFlowApi } from '../services/login-flow';

const gone = () => new ApiError(404, 'not_found', 'no such login flow');
const CLIENT = 'Nextcloud-Test (Desktop Client - Linux)';

/** A fake server with one pending flow `tok`, granted at most once. */
function fakeApi(opts: { grantFails?: ApiError } = {}) {
  let granted = false;
  return {
    describe: vi.fn(async (token: string) => {
      if (token !== 'tok' || granted) throw gone();
      return { client_name: CLIENT, expires_at: 1_800_000_000_000 };
    }),
    grant: vi.fn(async (token: string) => {
      if (opts.grantFails) throw opts.grantFails;
      if (token !== 'tok' || granted) throw gone();
      granted = true;
    }),
  } satisfies LoginFlowApi;
}

describe('LoginFlowView', () => {
  it('shows the pending request, then grants it once', async () => {
    const api = fakeApi();
    const v = new LoginFlowView('tok', api);
    expect(v.status).toBe('loading');
    await v.open();
    expect(v.status).toBe('pending');
    expect(v.clientName).toBe(CLIENT);
    expect(v.expiresAt).toBe(1_800_000_000_000);
    await Promise.all([v.grant(), v.grant()]); // a double click grants once
    expect(api.grant).toHaveBeenCalledTimes(1);
    expect(v.status).toBe('granted');
    expect(v.granting).toBe(false);
    expect(v.error).toBeNull();
    await v.grant();
    expect(api.grant).toHaveBeenCalledTimes(1);
  });

  it('says "gone" for an unknown, expired or used flow and never grants it', async () => {
    const api = fakeApi();
    const v = new LoginFlowView('other', api);
    await v.open();
    expect(v.status).toBe('gone');
    await v.grant();
    expect(api.grant).not.toHaveBeenCalled();
  });

  it('asks nothing for an empty token (a malformed one the server redirected without it)', async () => {
    const api = fakeApi();
    const v = new LoginFlowView('', api);
    await v.open();
    expect(v.status).toBe('gone');
    expect(api.describe).not.toHaveBeenCalled();
  });

  it('turns to "gone" when the flow ran out while the user decided', async () => {
    const v = new LoginFlowView('tok', fakeApi({ grantFails: gone() }));
    await v.open();
    await v.grant();
    expect(v.status).toBe('gone');
  });

  it('keeps the request on screen with the reason when granting fails otherwise', async () => {
    const v = new LoginFlowView('tok', fakeApi({ grantFails: new ApiError(500, 'internal', 'boom') }));
    await v.open();
    await v.grant();
    expect(v.status).toBe('pending');
    expect(v.error).toBe('The server had a problem. Try again later.');
    expect(v.granting).toBe(false);
  });

  it('reports a failed load and loads again on retry', async () => {
    const api = fakeApi();
    api.describe.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    const v = new LoginFlowView('tok', api);
    await v.open();
    expect(v.status).toBe('failed');
    expect(v.error).toBeTruthy();
    await v.open();
    expect(v.status).toBe('pending');
    expect(v.error).toBeNull();
  });
});
