// The one typed client of the nubo REST API. Every request the UI makes goes
// through `call` (JSON) or `url` (links, <img>/<video> sources, XHR uploads),
// keyed by an operation string ("METHOD /api/v1/...") that must exist in the
// generated Operations type: a contract change breaks the build.
//
// Sessions are browser cookies (HttpOnly access + refresh, readable nubo_csrf).
// Unsafe requests carry X-CSRF-Token from the nubo_csrf cookie. A 401 triggers
// one refresh (shared by every concurrent caller, serialized across tabs with
// the Web Locks API when present: the server revokes the whole sign-in when a
// rotated refresh token is presented twice), then one retry; a failed refresh
// reports the session as expired.
import type { Operations, OperationKey, Error as ApiErrorBody } from './schema.gen';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Op<K extends OperationKey> = Operations[K];
type IsEmpty<T> = keyof T extends never ? true : false;

export type CallArgs<K extends OperationKey> = (IsEmpty<Op<K>['path']> extends true
  ? { path?: undefined }
  : { path: Op<K>['path'] }) & { query?: Op<K>['query'] } & (Op<K>['body'] extends undefined
    ? { body?: undefined }
    : { body: Op<K>['body'] }) & {
    signal?: AbortSignal;
    headers?: Record<string, string>;
    /** a body sent as it is (not JSON), with `type` as its Content-Type: an M3U8 playlist */
    raw?: { body: string | Blob; type: string };
  };

export interface ClientOptions {
  fetch?: typeof fetch;
  /** document.cookie, injectable for tests */
  cookies?: () => string;
  /** called once per failed refresh: the session is gone */
  onSessionExpired?: () => void;
  /** called after a successful login or refresh with the access lifetime */
  onSession?: (expiresInS: number) => void;
  /** cross-tab mutual exclusion for refresh (navigator.locks in browsers) */
  lock?: <T>(name: string, fn: () => Promise<T>) => Promise<T>;
}

const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
// Operations that must never trigger a refresh-and-retry (they are the
// session's own plumbing, or a 401 there means "wrong password").
const NO_RETRY = new Set<string>([
  'POST /api/v1/auth/login',
  'POST /api/v1/auth/refresh',
  'POST /api/v1/setup',
  'POST /api/v1/register',
]);

/**
 * Whether a 401 may be answered by refreshing the session. A public link's
 * routes (/api/v1/public/{token}/…) do not use the session at all: their 401
 * means "this link wants its password", and a refresh would neither help nor
 * be harmless (a failed one reports the session as expired).
 */
export function mayRefresh(op: string): boolean {
  return !NO_RETRY.has(op) && !op.includes(' /api/v1/public/');
}

export function readCookie(all: string, name: string): string | null {
  for (const part of all.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return null;
}

/** Fills "{id}" placeholders and appends the query (undefined values dropped). */
export function buildUrl(template: string, path?: Record<string, unknown>, query?: Record<string, unknown>): string {
  let url = template.replace(/\{(\w+)\}/g, (_, k: string) => {
    const v = path?.[k];
    if (v === undefined || v === null) throw new Error(`missing path parameter ${k} for ${template}`);
    return encodeURIComponent(String(v));
  });
  if (query) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) {
      if (v === undefined || v === null || v === '') continue;
      qs.set(k, String(v));
    }
    const s = qs.toString();
    if (s) url += '?' + s;
  }
  return url;
}

export async function errorFrom(res: Response): Promise<ApiError> {
  let code = 'http_' + res.status;
  let message = res.statusText || 'HTTP ' + res.status;
  try {
    const body = (await res.json()) as Partial<ApiErrorBody>;
    if (body.error) code = body.error;
    if (body.message) message = body.message;
  } catch {
    // not JSON: keep the status line
  }
  const ra = Number(res.headers.get('Retry-After'));
  return new ApiError(res.status, code, message, Number.isFinite(ra) && ra > 0 ? ra : undefined);
}

export class ApiClient {
  private readonly fetchFn: typeof fetch;
  private readonly cookies: () => string;
  private refreshing: Promise<boolean> | null = null;

  constructor(private readonly opts: ClientOptions = {}) {
    this.fetchFn = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.cookies = opts.cookies ?? (() => (typeof document === 'undefined' ? '' : document.cookie));
  }

  /** The CSRF token of the current browser session, or null when signed out. */
  csrfToken(): string | null {
    return readCookie(this.cookies(), 'nubo_csrf');
  }

  /** True when a browser session cookie exists (it may still have expired). */
  hasSession(): boolean {
    return !!this.csrfToken();
  }

  /** Headers an unsafe request made outside `call` (XHR uploads) must carry. */
  unsafeHeaders(): Record<string, string> {
    const t = this.csrfToken();
    return t ? { 'X-CSRF-Token': t } : {};
  }

  /** A same-origin URL for an operation (links, media sources, XHR). */
  url<K extends OperationKey>(op: K, path?: Op<K>['path'], query?: Op<K>['query']): string {
    return buildUrl(op.slice(op.indexOf(' ') + 1), path as Record<string, unknown>, query as Record<string, unknown>);
  }

  async call<K extends OperationKey>(op: K, args: CallArgs<K> = {} as CallArgs<K>): Promise<Op<K>['response']> {
    const res = await this.send(op, args, mayRefresh(op));
    if (!res.ok) throw await errorFrom(res);
    if (res.status === 204 || res.headers.get('Content-Length') === '0') return undefined as Op<K>['response'];
    const type = res.headers.get('Content-Type') ?? '';
    if (type.includes('json')) return (await res.json()) as Op<K>['response'];
    return (await res.blob()) as Op<K>['response'];
  }

  /** Like `call` but hands back the raw Response (text previews). */
  async raw<K extends OperationKey>(op: K, args: CallArgs<K>): Promise<Response> {
    const res = await this.send(op, args, mayRefresh(op));
    if (!res.ok) throw await errorFrom(res);
    return res;
  }

  private async send<K extends OperationKey>(op: K, args: CallArgs<K>, retry: boolean): Promise<Response> {
    const method = op.slice(0, op.indexOf(' '));
    const url = this.url(op, args.path as Op<K>['path'], args.query);
    const attempt = () => {
      const headers: Record<string, string> = { Accept: 'application/json', ...(args.headers ?? {}) };
      if (UNSAFE.has(method)) Object.assign(headers, this.unsafeHeaders());
      let body: string | Blob | undefined;
      if (args.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(args.body);
      } else if (args.raw) {
        headers['Content-Type'] = args.raw.type;
        body = args.raw.body;
      }
      return this.fetchFn(url, { method, headers, body, credentials: 'same-origin', signal: args.signal });
    };
    let res = await attempt();
    if (res.status === 401 && retry) {
      if (await this.refresh()) res = await attempt();
      else this.opts.onSessionExpired?.();
    }
    if (op === 'POST /api/v1/auth/login' && res.ok) {
      const copy = res.clone();
      copy.json().then((b: { expires_in?: number }) => b.expires_in && this.opts.onSession?.(b.expires_in), () => {});
    }
    return res;
  }

  /**
   * Rotates the session once for every concurrent caller. Resolves true when
   * the session is alive again.
   */
  refresh(): Promise<boolean> {
    if (!this.refreshing) {
      const run = async () => {
        if (!this.csrfToken()) return false;
        const res = await this.fetchFn('/api/v1/auth/refresh', {
          method: 'POST',
          headers: { Accept: 'application/json', ...this.unsafeHeaders() },
          credentials: 'same-origin',
        });
        if (!res.ok) return false;
        try {
          const b = (await res.json()) as { expires_in?: number };
          if (b.expires_in) this.opts.onSession?.(b.expires_in);
        } catch {
          // a 200 without a body still set the cookies
        }
        return true;
      };
      const locked = this.opts.lock ? this.opts.lock('nubo-refresh', run) : run();
      this.refreshing = locked.catch(() => false).finally(() => {
        this.refreshing = null;
      });
    }
    return this.refreshing;
  }
}
