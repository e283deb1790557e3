// History-API router: the server answers every non-/api path with index.html,
// so /files/<id>, /trash, /search?q=… are real, shareable URLs.
export interface Route {
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  if (typeof location === 'undefined') return { path: '/', query: new URLSearchParams() };
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

class Router {
  route = $state<Route>(current());

  constructor() {
    if (typeof window !== 'undefined') {
      window.addEventListener('popstate', () => (this.route = current()));
    }
  }

  /** The path plus query of the current route (for "return here after login"). */
  get href(): string {
    const q = this.route.query.toString();
    return this.route.path + (q ? '?' + q : '');
  }

  navigate(href: string, opts: { replace?: boolean } = {}) {
    if (typeof history === 'undefined') return;
    if (opts.replace) history.replaceState(null, '', href);
    else history.pushState(null, '', href);
    this.route = current();
  }
}

export const router = new Router();

/** Whether an href (path plus query) is the login page itself (not /login-flow/…). */
export function isLoginPage(href: string): boolean {
  const path = href.split(/[?#]/, 1)[0];
  return path === '/login' || path === '/login/';
}

/**
 * Where signing in leads: the login page's "next" (where the user was sent
 * from), else the files. Only same-site paths: "next" must not send the
 * user elsewhere.
 */
export function afterSignIn(query: URLSearchParams): string {
  const next = query.get('next') ?? '';
  return next.startsWith('/') && !next.startsWith('//') && !next.startsWith('/\\') && !isLoginPage(next) ? next : '/files';
}

/** Intercepts plain left clicks on same-origin <a href> (use as onclick). */
export function link(e: MouseEvent) {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.currentTarget as HTMLElement).closest('a');
  if (!a || a.target || a.hasAttribute('download')) return;
  const url = new URL(a.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/')) return;
  e.preventDefault();
  // The hash stays: a page may show the part it names ("/profile#app-passwords").
  router.navigate(url.pathname + url.search + url.hash);
}
