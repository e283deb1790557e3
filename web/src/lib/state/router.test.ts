import { describe, it, expect } from 'vitest';
import { afterSignIn, isLoginPage } from './router.svelte';

const q = (next: string | null) => new URLSearchParams(next === null ? '' : { next });

describe('afterSignIn', () => {
  it('returns to the page that asked for the sign-in', () => {
    expect(afterSignIn(q('/login-flow/ab12'))).toBe('/login-flow/ab12');
    expect(afterSignIn(q('/search?q=x'))).toBe('/search?q=x');
    expect(afterSignIn(q('/profile#app-passwords'))).toBe('/profile#app-passwords');
  });

  it('goes to the files otherwise, never off the site or back to /login', () => {
    for (const next of [null, '', 'files', 'https://evil.example/', '//evil.example/', '/\\evil.example/', '/login', '/login?next=/files', '/login/']) {
      expect(afterSignIn(q(next)), String(next)).toBe('/files');
    }
  });
});

describe('isLoginPage', () => {
  it('is the login page, with or without a query, and nothing that merely starts like it', () => {
    expect(isLoginPage('/login')).toBe(true);
    expect(isLoginPage('/login?next=%2Ffiles')).toBe(true);
    expect(isLoginPage('/login/')).toBe(true);
    expect(isLoginPage('/login-flow/ab12')).toBe(false);
    expect(isLoginPage('/loginx')).toBe(false);
    expect(isLoginPage('/files')).toBe(false);
  });
});
