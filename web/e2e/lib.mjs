// Shared by the end-to-end test and the benchmark: start a real nubo on a
// fresh data directory, make sure the built UI is reachable on the same
// origin as the API, start headless Chromium, read ZIP listings.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, existsSync } from 'node:fs';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import net from 'node:net';
import zlib from 'node:zlib';

export const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DIST = join(WEB, 'dist');

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless=new',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
];

/**
 * Starts `nubo serve` on 127.0.0.1:0 and resolves once it prints its address.
 * `args`: more flags for `serve` (e.g. --enable-test-routes).
 */
export async function startNubo({ bin = process.env.NUBO_BIN, extraEnv = {}, args = [] } = {}) {
  if (!bin) throw new Error('set NUBO_BIN to the nubo binary (e.g. /work/main/build/test/nubo)');
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run npm run build first`);
  const data = mkdtempSync(join(tmpdir(), 'nubo-e2e-'));
  const proc = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--data', data, ...args], {
    env: {
      ...process.env,
      NUBO_ARGON2_OPS: '1',
      NUBO_ARGON2_MEM: '8MiB',
      NUBO_WEB_DIR: DIST,
      NUBO_ACCESS_LOG: 'false',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error('nubo did not start in 20 s:\n' + log)), 20000);
    const onData = (chunk) => {
      log += chunk;
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`nubo exited with ${code}:\n${log}`)));
  });
  // Keep draining the pipes so nubo never blocks on a full one.
  proc.stdout.on('data', () => {});
  proc.stderr.on('data', () => {});
  return {
    url,
    data,
    proc,
    async stop() {
      if (proc.exitCode === null) {
        const exited = new Promise((r) => proc.once('exit', r));
        proc.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (proc.exitCode === null) proc.kill('SIGKILL');
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}

function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on('error', rej);
  });
}

/**
 * The origin the browser should use. When nubo serves web/dist itself (the
 * real deployment), that is nubo. Until it does, `vite preview` serves dist
 * with the production CSP and proxies /api to nubo, so the UI still runs
 * against the real server on one origin.
 */
export async function uiOrigin(nuboUrl) {
  const res = await fetch(nuboUrl + '/files', { headers: { Accept: 'text/html' } }).catch(() => null);
  const html = res && res.ok ? await res.text() : '';
  if (html.includes('<div id="app">')) return { origin: nuboUrl, mode: 'nubo', stop: async () => {} };
  process.env.NUBO_API = nuboUrl;
  const { preview } = await import('vite');
  const port = await freePort();
  const server = await preview({
    root: WEB,
    logLevel: 'warn',
    preview: { host: '127.0.0.1', port, strictPort: true, open: false },
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    mode: 'vite-preview',
    stop: () => new Promise((r) => server.httpServer.close(() => r())),
  };
}

export async function launchChromium() {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** Names in a ZIP archive, read from its central directory (ZIP64 aware). */
export function zipEntries(buf) {
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 65557); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error('not a zip: no end of central directory');
  let count = buf.readUInt16LE(eocd + 10);
  let offset = buf.readUInt32LE(eocd + 16);
  if (offset === 0xffffffff || count === 0xffff) {
    const loc = eocd - 20;
    if (buf.readUInt32LE(loc) !== 0x07064b50) throw new Error('zip64 locator missing');
    const z64 = Number(buf.readBigUInt64LE(loc + 8));
    if (buf.readUInt32LE(z64) !== 0x06064b50) throw new Error('zip64 end record missing');
    count = Number(buf.readBigUInt64LE(z64 + 32));
    offset = Number(buf.readBigUInt64LE(z64 + 48));
  }
  const names = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`bad central directory entry ${i}`);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    names.push(buf.subarray(p + 46, p + 46 + nameLen).toString('utf8'));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

const JSON_TYPE = { 'Content-Type': 'application/json' };

/**
 * A bearer-token API session for seeding data fast (the browser signs in with
 * cookies on its own): JSON calls, folders, and many small files per
 * multipart request.
 */
export async function apiSession(base, username, password) {
  const res = await fetch(base + '/api/v1/auth/login', {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify({ username, password }),
  });
  if (!res.ok) throw new Error(`login as ${username}: ${res.status} ${await res.text()}`);
  const { access_token: token } = await res.json();

  async function call(method, path, body) {
    const form = body instanceof FormData;
    const r = await fetch(base + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body && !form ? JSON_TYPE : {}) },
      body: form ? body : body ? JSON.stringify(body) : undefined,
    });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.status === 204 ? null : r.json();
  }

  return {
    call,
    /** The body of a GET as text (file contents). */
    async text(path) {
      const r = await fetch(base + path, { headers: { Authorization: `Bearer ${token}` } });
      if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      return r.text();
    },
    /** The body of a GET as bytes (a Buffer): binary file contents. */
    async bytes(path) {
      const r = await fetch(base + path, { headers: { Authorization: `Bearer ${token}` } });
      if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${await r.text()}`);
      return Buffer.from(await r.arrayBuffer());
    },
    /** The status of a request with a raw body (bytes, or a FormData), without throwing: for refusals. */
    async status(method, path, body) {
      const r = await fetch(base + path, { method, headers: { Authorization: `Bearer ${token}` }, body });
      await r.arrayBuffer();
      return r.status;
    },
    async rootId() {
      return (await call('GET', '/api/v1/drives')).drives[0].root_id;
    },
    /** Uploads one file with a raw body (PUT …/files/{name}); returns the node. */
    async put(folderId, name, bytes) {
      const r = await fetch(`${base}/api/v1/nodes/${folderId}/files/${encodeURIComponent(name)}`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}` },
        body: bytes,
      });
      if (!r.ok) throw new Error(`PUT ${name}: ${r.status} ${await r.text()}`);
      return r.json();
    },
    mkdir(parentId, name) {
      return call('POST', `/api/v1/nodes/${parentId}/folders`, { name });
    },
    /** Uploads `count` files named name(i) with content(i), `perRequest` per multipart request. */
    async uploadMany(folderId, count, name, content = (i) => `entry ${i}\n`, perRequest = 1000) {
      for (let start = 0; start < count; start += perRequest) {
        const form = new FormData();
        for (let i = start; i < Math.min(count, start + perRequest); i++) {
          form.append('file', new Blob([content(i)]), name(i));
        }
        const r = await call('POST', `/api/v1/nodes/${folderId}/upload`, form);
        const bad = r.items.filter((x) => x.status >= 300);
        if (bad.length) throw new Error(`upload failed: ${JSON.stringify(bad[0])}`);
      }
    },
  };
}

/** First-run setup through the API (the benchmark's administrator). */
export async function setupAdmin(base, username, password) {
  const res = await fetch(base + '/api/v1/setup', {
    method: 'POST',
    headers: JSON_TYPE,
    body: JSON.stringify({ username, password }),
  });
  if (res.status !== 201) throw new Error(`setup failed: ${res.status} ${await res.text()}`);
}

/**
 * One end-to-end script's bookkeeping, shared by run.mjs, groupware.mjs and
 * loginflow.mjs: its steps, the problems its pages report (CSP violations,
 * page errors, browser dialogs), and the helpers built on them. `page()`
 * returns the page in use (for screenshots); `prefix` names its screenshots.
 */
export function makeRun({ prefix = '', page = () => undefined } = {}) {
  const steps = [];
  const problems = [];
  const artifacts = join(WEB, 'e2e', 'artifacts');
  const strictStyle = "style-src 'self'";

  /**
   * Runs one step. A step also fails when it caused a CSP violation or a
   * page error. A failed step stops the run unless it is `soft` (it needs a
   * server feature that may not have landed; the next steps do not depend on it).
   */
  async function step(name, fn, { soft = false } = {}) {
    const t0 = Date.now();
    const seen = problems.length;
    try {
      await fn();
      // Violations are reported asynchronously: give them a moment to arrive.
      await page()?.waitForTimeout(20);
      if (problems.length > seen) throw new Error(problems.slice(seen).join('\n'));
      steps.push({ name, ok: true });
      console.log(`ok   ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      steps.push({ name, ok: false, soft });
      console.log(`FAIL ${name}${soft ? ' (soft)' : ''}: ${e.message.split('\n').slice(0, 6).join('\n     ')}`);
      mkdirSync(artifacts, { recursive: true });
      const file = join(artifacts, `${prefix}${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
      await page()?.screenshot({ path: file, fullPage: true }).catch(() => {});
      console.log(`     screenshot: ${file}`);
      if (!soft) throw e;
      await page()?.keyboard.press('Escape').catch(() => {});
    }
  }

  /** Waits until `read()` returns `want` (polling); fails naming the last value. */
  async function until(what, read, want, timeout = 5000) {
    const end = Date.now() + timeout;
    let got;
    for (;;) {
      got = await read();
      if (JSON.stringify(got) === JSON.stringify(want)) return;
      if (Date.now() > end) assert.fail(`${what}: want ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /**
   * Until the server forbids inline styles itself, a run holds the UI to the
   * strict policy anyway: documents get the server's policy with
   * 'unsafe-inline' taken out of style-src. Returns the server's policy.
   */
  async function enforceStrictStyles(ctx, origin) {
    const res = await fetch(origin + '/files', { headers: { Accept: 'text/html' } });
    const csp = res.headers.get('content-security-policy') ?? '';
    if (!/style-src[^;]*'unsafe-inline'/.test(csp)) return csp;
    console.log(`note: the server's CSP allows inline styles; this run enforces ${strictStyle}`);
    await ctx.route(
      (url) =>
        url.origin === origin &&
        !url.pathname.startsWith('/api/') &&
        !url.pathname.startsWith('/assets/') &&
        !url.pathname.startsWith('/remote.php/'),
      async (route) => {
        if (route.request().resourceType() !== 'document') return route.continue();
        const response = await route.fetch();
        const headers = response.headers();
        if (headers['content-security-policy']) {
          headers['content-security-policy'] = headers['content-security-policy'].replace(/style-src[^;]*/, strictStyle);
        }
        await route.fulfill({ response, headers });
      },
    );
    return csp;
  }

  /**
   * A new page of `ctx` whose CSP violations (also those Chromium does not
   * log to the console), page errors and browser dialogs count as problems.
   * `onDialog(d)` may take a dialog the run expects (returns true).
   */
  async function watchedPage(ctx, { onDialog = () => false } = {}) {
    await ctx.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) =>
        console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline'} (${e.sourceFile}:${e.lineNumber})`),
      );
    });
    const p = await ctx.newPage();
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    p.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to|CSP violation/.test(m.text())) problems.push(`CSP: ${m.text()}`);
    });
    p.on('dialog', (d) => {
      if (onDialog(d)) return;
      problems.push(`unexpected browser dialog: ${d.type()} ${d.message()}`);
      d.dismiss().catch(() => {});
    });
    return p;
  }

  /** Runs `main` and ends the process: the last line is "N passed, N failed". */
  function finish(main) {
    main().then(
      () => {
        const failed = steps.filter((s) => !s.ok);
        console.log(`\n${steps.length - failed.length} passed, ${failed.length} failed`);
        if (failed.length) {
          console.log(`failed${failed.every((s) => s.soft) ? ' (soft)' : ''}: ${failed.map((s) => s.name).join('; ')}`);
          process.exit(1);
        }
      },
      (e) => {
        console.error(e.stack ?? e);
        // The step that stopped the run counts once, as failed.
        const stopped = steps.length && !steps[steps.length - 1].ok ? 0 : 1;
        const failed = steps.filter((s) => !s.ok).length + stopped;
        console.log(`\n${steps.length + stopped - failed} passed, ${failed} failed`);
        process.exit(1);
      },
    );
  }

  return { steps, problems, step, until, enforceStrictStyles, watchedPage, finish };
}

/** A real PNG (8-bit RGB, a colour gradient), deflated with zlib. */
export function png(width, height) {
  const chunk = (type, data) => {
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([head, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  const stride = width * 3 + 1;
  const raw = Buffer.alloc(stride * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = y * stride + 1 + x * 3;
      raw[o] = Math.round((x * 255) / width);
      raw[o + 1] = Math.round((y * 255) / height);
      raw[o + 2] = 160;
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}
