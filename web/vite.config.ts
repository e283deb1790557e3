import { defineConfig } from 'vite';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// The API server the dev server and `vite preview` proxy /api (and CalDAV/
// CardDAV under /remote.php, for the Calendars and Contacts pages) to
// (NUBO_API, default the server's default address).
const api = process.env.NUBO_API ?? 'http://127.0.0.1:8086';
const proxy = {
  '/api': { target: api, changeOrigin: false },
  '/remote.php': { target: api, changeOrigin: false },
};

// The same Content-Security-Policy the server sends, so development and
// preview fail the same way production would (no inline scripts, no eval).
// Vite's dev client needs a websocket; only `preview` gets the strict policy.
export const CSP =
  "default-src 'self'; img-src 'self' blob: data:; media-src 'self' blob:; " +
  "style-src 'self'; script-src 'self'; connect-src 'self'; " +
  "frame-src 'self'; object-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

export default defineConfig({
  plugins: [svelte()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    sourcemap: false,
    target: 'es2022',
  },
  server: {
    proxy,
  },
  preview: {
    proxy,
    headers: { 'Content-Security-Policy': CSP },
  },
  test: {
    environment: 'happy-dom',
    include: ['src/**/*.test.ts'],
  },
  resolve: process.env.VITEST ? { conditions: ['browser'] } : undefined,
});
