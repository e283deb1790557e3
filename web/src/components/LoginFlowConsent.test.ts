import { describe, it, expect, vi, afterEach } from 'vitest';
import { render, cleanup, fireEvent } from '@testing-library/svelte';
import LoginFlowConsent from './LoginFlowConsent.svelte';
import type { LoginFlowStatus } from '../lib/state/login-flow.svelte';

afterEach(cleanup);

const CLIENT = 'Nextcloud-Test (Desktop Client - Linux)';

function props(status: LoginFlowStatus, extra: Record<string, unknown> = {}) {
  return {
    status,
    clientName: CLIENT,
    expiresAt: Date.UTC(2026, 0, 2, 12),
    userName: 'Alice',
    granting: false,
    error: null,
    ongrant: vi.fn(),
    oncancel: vi.fn(),
    onretry: vi.fn(),
    ...extra,
  };
}

describe('LoginFlowConsent', () => {
  it('names the client, what it gets and as whom; Grant and Cancel call back', async () => {
    const p = props('pending');
    const { getByRole, getByText, getByTestId } = render(LoginFlowConsent, { props: p });
    getByRole('heading', { level: 1, name: 'Connect an app' });
    getByRole('heading', { level: 2, name: `${CLIENT} wants to connect to your account` });
    getByText(/an app password of its own with access to your files, calendars and contacts/);
    getByText(/revoke it at any time under your account's app passwords/);
    expect(getByRole('link', { name: 'App passwords' }).getAttribute('href')).toBe('/profile#app-passwords');
    expect(getByTestId('flow-account').textContent).toMatch(/Signed in as Alice\./);
    await fireEvent.click(getByRole('button', { name: 'Grant access' }));
    expect(p.ongrant).toHaveBeenCalledTimes(1);
    await fireEvent.click(getByRole('button', { name: 'Cancel' }));
    expect(p.oncancel).toHaveBeenCalledTimes(1);
  });

  it('disables both buttons while granting and shows why a grant failed', () => {
    const { getByRole } = render(LoginFlowConsent, { props: props('pending', { granting: true, error: 'The server had a problem.' }) });
    expect((getByRole('button', { name: 'Granting access…' }) as HTMLButtonElement).disabled).toBe(true);
    expect((getByRole('button', { name: 'Cancel' }) as HTMLButtonElement).disabled).toBe(true);
    expect(getByRole('alert').textContent).toBe('The server had a problem.');
  });

  it('says access was granted and where to go back to, with no buttons', () => {
    const { getByRole, queryAllByRole } = render(LoginFlowConsent, { props: props('granted') });
    getByRole('heading', { level: 1, name: 'Access granted' });
    expect(getByRole('status').textContent).toBe(`Access granted — you can close this window and return to ${CLIENT}.`);
    expect(queryAllByRole('button')).toHaveLength(0);
  });

  it('an expired or used link offers no grant', () => {
    const { getByRole, queryByRole, getByTestId } = render(LoginFlowConsent, { props: props('gone') });
    expect(getByTestId('flow-gone').textContent).toBe('This login link has expired or was already used.');
    expect(queryByRole('button', { name: 'Grant access' })).toBeNull();
    expect(queryByRole('heading', { level: 2 })).toBeNull();
    expect(getByRole('link', { name: 'Go to your files' }).getAttribute('href')).toBe('/files');
  });

  it('a failed load offers Retry, not Grant', async () => {
    const p = props('failed', { error: 'The server cannot be reached. Check the connection.' });
    const { getByRole, queryByRole } = render(LoginFlowConsent, { props: p });
    expect(getByRole('alert').textContent).toBe('The server cannot be reached. Check the connection.');
    expect(queryByRole('button', { name: 'Grant access' })).toBeNull();
    await fireEvent.click(getByRole('button', { name: 'Retry' }));
    expect(p.onretry).toHaveBeenCalledTimes(1);
  });

  it('a client without a name is still named', () => {
    const { getByRole } = render(LoginFlowConsent, { props: props('pending', { clientName: '  ' }) });
    getByRole('heading', { level: 2, name: 'An app wants to connect to your account' });
  });
});
