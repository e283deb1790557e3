#!/usr/bin/env node
// End-to-end: Nextcloud Login Flow v2 — the page a desktop or mobile client
// opens in the browser — in headless Chromium against a real nubo.
//   NUBO_BIN=/work/main/build/test/nubo node e2e/loginflow.mjs   (npm run e2e runs it after groupware.mjs)
// Flow: a user is made through the API → a "client" (this script, with a
// Nextcloud desktop client's User-Agent) POSTs /index.php/login/v2; its poll
// answers 404 → the login URL, opened signed out, leads to sign in and back
// to the request, which names the client → Grant → "Access granted"; the
// next poll hands over the login name and an app password, once (404 again
// after) → that app password reaches WebDAV (PROPFIND 207) and is listed
// among the user's app passwords → the used link shows "expired or already
// used" and no grant button → another flow, cancelled on its page, is not
// granted (poll 404, still pending) → another one, with the server's clock
// moved past its 20 minutes (/_test/clock, --enable-test-routes), shows the
// expired message and its poll answers 404.
// Like run.mjs: every step fails on a CSP violation or page error it causes,
// the page is held to style-src 'self', failures save a screenshot to
// e2e/artifacts/, the last line is "N passed, N failed" and the exit code is
// non-zero when any step failed.
import assert from 'node:assert/strict';
import { makeRun, startNubo, uiOrigin, launchChromium, apiSession, setupAdmin } from './lib.mjs';

const ADMIN = { user: 'admin', pass: 'correct horse 1' };
const USER = { user: 'alice', pass: 'alice battery 2' };
const CLIENT = 'Nextcloud-Test (Desktop Client - Linux)';
const MINUTE = 60_000;
let page;
const { steps, problems, step, until, enforceStrictStyles, watchedPage, finish } = makeRun({
  prefix: 'loginflow-',
  page: () => page,
});

const title = (want) => until('document title', () => page.title(), want);
const text = async (locator) => ((await locator.textContent()) ?? '').trim();


/** What a Nextcloud client does first: POST /index.php/login/v2 with its User-Agent. */
async function startFlow(base) {
  const r = await fetch(base + '/index.php/login/v2', { method: 'POST', headers: { 'User-Agent': CLIENT } });
  const body = await r.text();
  assert.equal(r.status, 200, `POST /index.php/login/v2 answered ${r.status}: ${body}`);
  const flow = JSON.parse(body);
  assert.equal(typeof flow.poll?.token, 'string', body);
  assert.ok(flow.poll.token.length > 0, body);
  assert.equal(flow.poll.endpoint, base + '/index.php/login/v2/poll', body);
  const m = /^(http:\/\/[^/]+)\/index\.php\/login\/v2\/flow\/([^/?#]+)$/.exec(flow.login ?? '');
  assert.ok(m, `login URL: ${body}`);
  assert.equal(m[1], base, 'the login URL is on the server the client asked');
  return { pollToken: flow.poll.token, endpoint: flow.poll.endpoint, login: flow.login, loginToken: m[2] };
}

/** The client's poll: { status, json } (json null when the body is not JSON). */
async function poll(flow) {
  const r = await fetch(flow.endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': CLIENT },
    body: new URLSearchParams({ token: flow.pollToken }).toString(),
  });
  const body = await r.text();
  let json = null;
  try {
    json = JSON.parse(body);
  } catch {
    // not JSON
  }
  return { status: r.status, json, body };
}

async function expectPoll404(flow, when) {
  const p = await poll(flow);
  assert.equal(p.status, 404, `poll ${when} answered ${p.status}: ${p.body}`);
}

async function main() {
  const nubo = await startNubo({ args: ['--enable-test-routes'] });
  const ui = await uiOrigin(nubo.url);
  console.log(`nubo at ${nubo.url}; UI served by ${ui.mode} at ${ui.origin}`);
  const browser = await launchChromium();
  try {
    await setupAdmin(nubo.url, ADMIN.user, ADMIN.pass);
    const admin = await apiSession(nubo.url, ADMIN.user, ADMIN.pass);
    await admin.call('POST', '/api/v1/admin/users', { username: USER.user, password: USER.pass });
    const alice = await apiSession(nubo.url, USER.user, USER.pass);
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await enforceStrictStyles(ctx, ui.origin);
    page = await watchedPage(ctx);

    const grantButton = () => page.getByRole('button', { name: 'Grant access' });
    const asks = `${CLIENT} wants to connect to your account`;
    const GONE = 'This login link has expired or was already used.';
    let first;

    await step('the UI is served by nubo itself (the login URL points there)', async () => {
      assert.equal(ui.mode, 'nubo', 'this nubo does not serve web/dist: the login URL would lead away from the UI');
    });

    await step('a client starts Login Flow v2; its poll answers 404 before any grant', async () => {
      first = await startFlow(nubo.url);
      await expectPoll404(first, 'before the grant');
    });

    await step('the login URL redirects to the page of the flow', async () => {
      const r = await fetch(first.login, { redirect: 'manual' });
      assert.equal(r.status, 302, `GET ${first.login} answered ${r.status}`);
      const to = new URL(r.headers.get('location') ?? '', nubo.url);
      assert.equal(to.pathname, `/login-flow/${first.loginToken}`);
    });

    await step('opened signed out: sign in, then back on the request naming the client', async () => {
      await page.goto(first.login);
      await page.waitForURL((u) => u.pathname === '/login', { timeout: 10000 });
      assert.equal(new URL(page.url()).searchParams.get('next'), `/login-flow/${first.loginToken}`);
      assert.equal(await grantButton().count(), 0, 'a grant button before signing in');
      await page.locator('input[name=username]').fill(USER.user);
      await page.locator('input[name=password]').fill(USER.pass);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((u) => u.pathname === `/login-flow/${first.loginToken}`, { timeout: 10000 });
      await page.getByRole('heading', { level: 1, name: 'Connect an app' }).waitFor();
      const heading = page.getByRole('heading', { level: 2, name: asks });
      await heading.waitFor({ timeout: 10000 });
      assert.equal(await text(heading), asks);
      await title('Connect an app — nubo');
      const body = await text(page.locator('main'));
      assert.match(body, /an app password of its own with access to your files, calendars and contacts/);
      assert.match(body, /revoke it at any time under your account's app passwords/);
      assert.equal(await page.getByRole('link', { name: 'App passwords' }).getAttribute('href'), '/profile#app-passwords');
      assert.match(await text(page.getByTestId('flow-account')), new RegExp(`Signed in as ${USER.user}\\.`));
      await page.getByRole('button', { name: 'Cancel' }).waitFor();
      await expectPoll404(first, 'after opening the page, before the grant');
    });

    let appPassword;
    await step('Grant access: the page says so; the next poll gets the login name and an app password', async () => {
      await grantButton().click();
      const done = page.getByTestId('flow-granted');
      await done.waitFor({ timeout: 10000 });
      assert.equal(await text(done), `Access granted — you can close this window and return to ${CLIENT}.`);
      await page.getByRole('heading', { level: 1, name: 'Access granted' }).waitFor();
      assert.equal(await grantButton().count(), 0, 'still a grant button');
      const p = await poll(first);
      assert.equal(p.status, 200, `poll after the grant answered ${p.status}: ${p.body}`);
      assert.equal(p.json?.loginName, USER.user, p.body);
      assert.equal(typeof p.json?.appPassword, 'string', p.body);
      assert.ok(p.json.appPassword.length >= 16, `a short app password: ${p.body}`);
      assert.equal(typeof p.json.server, 'string', p.body);
      assert.ok(p.json.server.startsWith(nubo.url), `server ${p.json.server} is not ${nubo.url}`);
      appPassword = p.json.appPassword;
    });

    await step('the app password reaches WebDAV (PROPFIND 207) and is among the user\'s app passwords', async () => {
      const r = await fetch(`${nubo.url}/remote.php/dav/files/${USER.user}/`, {
        method: 'PROPFIND',
        headers: {
          Authorization: 'Basic ' + Buffer.from(`${USER.user}:${appPassword}`).toString('base64'),
          Depth: '1',
          'Content-Type': 'application/xml; charset=utf-8',
        },
        body: '<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:resourcetype/></d:prop></d:propfind>',
      });
      const body = await r.text();
      assert.equal(r.status, 207, `PROPFIND with the app password answered ${r.status}: ${body.slice(0, 300)}`);
      assert.match(body, new RegExp(`/remote\\.php/dav/files/${USER.user}/`));
      const { app_passwords: list } = await alice.call('GET', '/api/v1/me/app-passwords');
      assert.equal(list.length, 1, JSON.stringify(list));
      assert.ok(list[0].label.includes('Nextcloud-Test'), `label ${JSON.stringify(list[0].label)} does not name the client`);
    });

    await step('the poll answers once: 404 again after the credentials were handed over', async () => {
      await expectPoll404(first, 'after the credentials were handed over');
    });

    await step('the used link shows "expired or already used" and no grant button', async () => {
      await page.goto(first.login);
      await page.waitForURL((u) => u.pathname === `/login-flow/${first.loginToken}`, { timeout: 10000 });
      const gone = page.getByTestId('flow-gone');
      await gone.waitFor({ timeout: 10000 });
      assert.equal(await text(gone), GONE);
      assert.equal(await grantButton().count(), 0, 'a grant button on a used link');
      assert.equal(await page.getByRole('heading', { level: 2, name: asks }).count(), 0);
    });

    await step('Cancel on the page grants nothing: to the files, poll still 404, the flow still pending', async () => {
      const flow = await startFlow(nubo.url);
      await page.goto(flow.login);
      await page.waitForURL((u) => u.pathname === `/login-flow/${flow.loginToken}`, { timeout: 10000 });
      await page.getByRole('heading', { level: 2, name: asks }).waitFor({ timeout: 10000 });
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.waitForURL((u) => u.pathname === '/files', { timeout: 10000 });
      await page.getByRole('navigation', { name: 'Main navigation' }).waitFor();
      await expectPoll404(flow, 'after Cancel');
      const pending = await alice.call('GET', `/api/v1/login-flows/${flow.loginToken}`);
      assert.equal(pending.client_name, CLIENT, JSON.stringify(pending));
      await expectPoll404(flow, 'after Cancel, asked again');
      const { app_passwords: list } = await alice.call('GET', '/api/v1/me/app-passwords');
      assert.equal(list.length, 1, `Cancel made an app password: ${JSON.stringify(list)}`);
    });

    await step('a flow past its 20 minutes: the page says it expired, no grant button; poll 404', async () => {
      const flow = await startFlow(nubo.url);
      const pending = await alice.call('GET', `/api/v1/login-flows/${flow.loginToken}`);
      assert.equal(pending.client_name, CLIENT, JSON.stringify(pending));
      const now = Date.now();
      assert.ok(pending.expires_at > now + 15 * MINUTE && pending.expires_at <= now + 21 * MINUTE, `expires_at ${pending.expires_at} is not about 20 minutes from now (${now})`);
      const r = await fetch(`${nubo.url}/_test/clock?offset_ms=${21 * MINUTE}`, { method: 'PUT' });
      assert.equal(r.status, 200, `PUT /_test/clock answered ${r.status}: ${await r.text()}`);
      try {
        await page.goto(flow.login);
        await page.waitForURL((u) => u.pathname === `/login-flow/${flow.loginToken}`, { timeout: 10000 });
        const gone = page.getByTestId('flow-gone');
        await gone.waitFor({ timeout: 10000 });
        assert.equal(await text(gone), GONE);
        assert.equal(await grantButton().count(), 0, 'a grant button on an expired link');
        await expectPoll404(flow, 'after expiry');
      } finally {
        await fetch(`${nubo.url}/_test/clock?offset_ms=0`, { method: 'PUT' });
      }
    });

    await step('no CSP violations, page errors or browser dialogs', async () => {
      assert.deepEqual(problems, []);
    });
  } finally {
    await browser.close().catch(() => {});
    await ui.stop();
    await nubo.stop();
  }
}

finish(main);
