// The one error funnel: every failed action ends here, becomes one readable
// notice, and is logged once. Pages catch with `handleError(e, 'context')`.
import { ApiError } from '../api/client';
import { t, type MessageKey } from '../i18n/index.svelte';
import { toasts } from '../state/toasts.svelte';

const BY_STATUS: Record<number, MessageKey> = {
  400: 'error.badRequest',
  401: 'error.unauthorized',
  403: 'error.forbidden',
  404: 'error.notFound',
  409: 'error.conflict',
  412: 'error.precondition',
  413: 'error.tooLarge',
  429: 'error.tooMany',
  507: 'error.quota',
};

/** A one-line message for an error, in the user's language. */
export function describeError(e: unknown): string {
  if (e instanceof ApiError) {
    if (e.status === 429 && e.retryAfter) return t('error.tooManyRetry', { seconds: e.retryAfter });
    const key = BY_STATUS[e.status];
    // Validation messages from the server name the field; they are more
    // useful than a generic sentence.
    if (e.status === 400 || e.status === 409) return `${t(key)} ${e.message}`;
    if (key) return t(key);
    if (e.status >= 500) return t('error.server');
    return e.message;
  }
  if (e instanceof DOMException && e.name === 'AbortError') return t('error.aborted');
  if (e instanceof TypeError) return t('error.network');
  return e instanceof Error ? e.message : String(e);
}

export function handleError(e: unknown, context?: string): void {
  // A 401 the refresh could not fix already sent the user to the login page.
  if (e instanceof ApiError && e.status === 401) return;
  if (e instanceof DOMException && e.name === 'AbortError') return;
  console.error(context ?? 'error', e);
  toasts.push('error', describeError(e));
}
