// Profile, sessions, app passwords and user administration.
import { api } from './api';
import { session } from '../state/session.svelte';
import type { User, Session, AppPassword } from '../api/schema.gen';

export async function updateProfile(display_name: string, email: string): Promise<User> {
  const u = await api.call('PATCH /api/v1/me', { body: { display_name, email } });
  session.user = u;
  return u;
}

export function changePassword(current_password: string, new_password: string): Promise<void> {
  return api.call('POST /api/v1/me/password', { body: { current_password, new_password } });
}

export async function listSessions(): Promise<Session[]> {
  return (await api.call('GET /api/v1/me/sessions')).sessions ?? [];
}

export function revokeSession(id: string): Promise<void> {
  return api.call('DELETE /api/v1/me/sessions/{id}', { path: { id } });
}

export async function listAppPasswords(): Promise<AppPassword[]> {
  return (await api.call('GET /api/v1/me/app-passwords')).app_passwords ?? [];
}

export function createAppPassword(label: string): Promise<{ id: number; label: string; password: string }> {
  return api.call('POST /api/v1/me/app-passwords', { body: { label } });
}

export function revokeAppPassword(id: number): Promise<void> {
  return api.call('DELETE /api/v1/me/app-passwords/{id}', { path: { id } });
}

export async function listUsers(q?: string, after?: string): Promise<{ users: User[]; next: string | null }> {
  const r = await api.call('GET /api/v1/admin/users', { query: { q: q || undefined, after, limit: 200 } });
  return { users: r.users ?? [], next: r.next ?? null };
}

export function createUser(username: string, password: string, admin: boolean, email?: string): Promise<User> {
  return api.call('POST /api/v1/admin/users', {
    body: { username, password, admin, ...(email ? { email } : {}) },
  });
}

export type UserPatch = { role?: 'admin' | 'user'; active?: boolean; quota_bytes?: number; unlimited?: boolean };

export function updateUser(name: string, patch: UserPatch): Promise<User> {
  return api.call('PATCH /api/v1/admin/users/{name}', { path: { name }, body: patch });
}

export function resetPassword(name: string, password: string): Promise<void> {
  return api.call('POST /api/v1/admin/users/{name}/password', { path: { name }, body: { password } });
}

export async function copyToClipboard(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
