import { describe, it, expect, vi } from 'vitest';
import { ApiClient, ApiError, buildUrl, mayRefresh, readCookie, type ClientOptions } from './client';

type Call = { url: string; init: RequestInit };

function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

function fakeFetch(responses: ((c: Call) => Response)[]) {
  const calls: Call[] = [];
  const fn = vi.fn(async (url: RequestInfo | URL, init?: RequestInit) => {
    const c = { url: String(url), init: init ?? {} };
    calls.push(c);
    const next = responses.shift();
    if (!next) throw new Error('unexpected request ' + c.url);
    return next(c);
  });
  return { fn: fn as unknown as typeof fetch, calls };
}

const header = (c: Call, name: string) => new Headers(c.init.headers).get(name);

describe('buildUrl / readCookie', () => {
  it('fills and encodes path parameters and drops empty query values', () => {
    expect(buildUrl('/api/v1/nodes/{id}/files/{name}', { id: 'a', name: 'b c/ä.txt' }, { conflict: 'fail', x: undefined, y: '' })).toBe(
      '/api/v1/nodes/a/files/b%20c%2F%C3%A4.txt?conflict=fail',
    );
  });
  it('refuses a missing path parameter', () => {
    expect(() => buildUrl('/api/v1/nodes/{id}', {})).toThrow(/missing path parameter id/);
  });
  it('reads one cookie among many', () => {
    expect(readCookie('a=1; nubo_csrf=abc%3D; b=2', 'nubo_csrf')).toBe('abc=');
    expect(readCookie('a=1', 'nubo_csrf')).toBeNull();
  });
});

describe('ApiClient', () => {
  it('sends JSON with X-CSRF-Token on unsafe requests only', async () => {
    const { fn, calls } = fakeFetch([() => json(200, { id: 'n' }), () => json(201, { id: 'f' })]);
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok' });
    await api.call('GET /api/v1/nodes/{id}', { path: { id: 'n' } });
    await api.call('POST /api/v1/nodes/{id}/folders', { path: { id: 'n' }, body: { name: 'x' } });
    expect(header(calls[0], 'X-CSRF-Token')).toBeNull();
    expect(calls[1].init.method).toBe('POST');
    expect(header(calls[1], 'X-CSRF-Token')).toBe('tok');
    expect(header(calls[1], 'Content-Type')).toBe('application/json');
    expect(JSON.parse(calls[1].init.body as string)).toEqual({ name: 'x' });
  });

  it('sends a raw body with its own Content-Type (an M3U8 playlist), with the CSRF header', async () => {
    const { fn, calls } = fakeFetch([() => json(201, { id: 'p', missing: 1 })]);
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok' });
    await api.call('POST /api/v1/playlists/import', {
      query: { name: 'Mix' },
      raw: { body: '#EXTM3U\na.mp3\n', type: 'audio/x-mpegurl' },
    });
    expect(calls[0].url).toBe('/api/v1/playlists/import?name=Mix');
    expect(header(calls[0], 'Content-Type')).toBe('audio/x-mpegurl');
    expect(header(calls[0], 'X-CSRF-Token')).toBe('tok');
    expect(calls[0].init.body).toBe('#EXTM3U\na.mp3\n');
  });

  it('turns error bodies into ApiError with status, code, message and Retry-After', async () => {
    const { fn } = fakeFetch([() => json(429, { error: 'too_many', message: 'slow down' }, { 'Retry-After': '30' })]);
    const api = new ApiClient({ fetch: fn, cookies: () => '' });
    const err = await api.call('GET /api/v1/me').catch((e) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 429, code: 'too_many', message: 'slow down', retryAfter: 30 });
  });

  it('returns undefined for 204', async () => {
    const { fn } = fakeFetch([() => new Response(null, { status: 204 })]);
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=t' });
    await expect(api.call('PUT /api/v1/favorites/{id}', { path: { id: 'x' } })).resolves.toBeUndefined();
  });

  it('on 401 refreshes once (with the CSRF header) and retries', async () => {
    const onSession = vi.fn();
    const { fn, calls } = fakeFetch([
      () => json(401, { error: 'unauthenticated', message: 'expired' }),
      () => json(200, { token_type: 'Cookie', csrf_token: 'tok', expires_in: 900, session_id: 's' }),
      () => json(200, { username: 'ann' }),
    ]);
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok', onSession });
    await expect(api.call('GET /api/v1/me')).resolves.toEqual({ username: 'ann' });
    expect(calls.map((c) => c.url)).toEqual(['/api/v1/me', '/api/v1/auth/refresh', '/api/v1/me']);
    expect(calls[1].init.method).toBe('POST');
    expect(header(calls[1], 'X-CSRF-Token')).toBe('tok');
    expect(onSession).toHaveBeenCalledWith(900);
  });

  it('reports the session as expired when the refresh fails, and does not loop', async () => {
    const onSessionExpired = vi.fn();
    const { fn, calls } = fakeFetch([
      () => json(401, { error: 'unauthenticated', message: 'x' }),
      () => json(401, { error: 'unauthenticated', message: 'refresh token revoked' }),
    ]);
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok', onSessionExpired });
    const err = await api.call('GET /api/v1/me').catch((e) => e);
    expect(err).toMatchObject({ status: 401 });
    expect(onSessionExpired).toHaveBeenCalledTimes(1);
    expect(calls).toHaveLength(2);
  });

  it('never refreshes for a wrong password at login', async () => {
    const onSessionExpired = vi.fn();
    const { fn, calls } = fakeFetch([() => json(401, { error: 'unauthenticated', message: 'wrong' })]);
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok', onSessionExpired });
    await expect(
      api.call('POST /api/v1/auth/login', { body: { username: 'a', password: 'b', mode: 'cookie' } }),
    ).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(1);
    expect(onSessionExpired).not.toHaveBeenCalled();
  });

  it('shares one refresh among concurrent 401s (a rotated token must not be replayed)', async () => {
    let refreshes = 0;
    const fn = vi.fn(async (url: RequestInfo | URL) => {
      if (String(url) === '/api/v1/auth/refresh') {
        refreshes++;
        await new Promise((r) => setTimeout(r, 5));
        return json(200, { expires_in: 900 });
      }
      return refreshes === 0 ? json(401, { error: 'unauthenticated', message: 'x' }) : json(200, { ok: true });
    }) as unknown as typeof fetch;
    const lock = vi.fn(<T>(_name: string, f: () => Promise<T>) => f());
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok', lock: lock as unknown as ClientOptions['lock'] });
    const results = await Promise.all([api.call('GET /api/v1/me'), api.call('GET /api/v1/drives'), api.call('GET /api/v1/trash')]);
    expect(results).toEqual([{ ok: true }, { ok: true }, { ok: true }]);
    expect(refreshes).toBe(1);
    expect(lock).toHaveBeenCalledTimes(1);
  });

  it('never refreshes the session for a public link (its 401 asks for the link password)', async () => {
    const onSessionExpired = vi.fn();
    const { fn, calls } = fakeFetch([
      () => json(401, { error: 'unauthenticated', message: 'password required' }),
      () => json(401, { error: 'unauthenticated', message: 'password required' }),
    ]);
    // A signed-in user opening someone's link: the session cookie is there.
    const api = new ApiClient({ fetch: fn, cookies: () => 'nubo_csrf=tok', onSessionExpired });
    await expect(api.call('GET /api/v1/public/{token}', { path: { token: 'abc' } })).rejects.toMatchObject({
      status: 401,
      message: 'password required',
    });
    await expect(
      api.raw('GET /api/v1/public/{token}/nodes/{id}/content', { path: { token: 'abc', id: 'n' } }),
    ).rejects.toMatchObject({ status: 401 });
    expect(calls.map((c) => c.url)).toEqual(['/api/v1/public/abc', '/api/v1/public/abc/nodes/n/content']);
    expect(onSessionExpired).not.toHaveBeenCalled();
    expect(mayRefresh('GET /api/v1/nodes/{id}')).toBe(true);
    expect(mayRefresh('POST /api/v1/public/{token}/unlock')).toBe(false);
  });

  it('makes no refresh request without a session cookie', async () => {
    const { fn, calls } = fakeFetch([() => json(401, { error: 'unauthenticated', message: 'x' })]);
    const api = new ApiClient({ fetch: fn, cookies: () => '' });
    await expect(api.call('GET /api/v1/me')).rejects.toMatchObject({ status: 401 });
    expect(calls).toHaveLength(1);
    expect(api.hasSession()).toBe(false);
  });

  it('builds typed URLs for links and media', () => {
    const api = new ApiClient({ fetch: vi.fn() as unknown as typeof fetch, cookies: () => '' });
    expect(api.url('GET /api/v1/nodes/{id}/content', { id: 'abc' }, { download: 1 })).toBe(
      '/api/v1/nodes/abc/content?download=1',
    );
    expect(api.url('GET /api/v1/zip', undefined, { ids: 'a,b' })).toBe('/api/v1/zip?ids=a%2Cb');
  });
});
