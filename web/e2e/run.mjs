#!/usr/bin/env node
// End-to-end: the built UI in headless Chromium against a real nubo.
//   NUBO_BIN=/work/main/build/test/nubo npm run e2e
// Flow: setup → login → create folder → upload files, a folder and a drop
// (queue reaches 100 %) → rename → move → copy → delete → restore → favorite
// → search → view → ZIP download (entries checked) → admin creates a user →
// change password → log out → the new user sees an empty drive → the admin
// signs in with the new password. Exits non-zero on the first failure, with a
// screenshot in e2e/artifacts/.
import { mkdirSync, mkdtempSync, writeFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import assert from 'node:assert/strict';
import { startNubo, uiOrigin, launchChromium, zipEntries, WEB } from './lib.mjs';

const ARTIFACTS = join(WEB, 'e2e', 'artifacts');
const ADMIN = { user: 'admin', pass: 'correct horse 1', next: 'battery staple 2' };
const BOB = { user: 'bob', pass: 'bobs password 1' };
const steps = [];
let page;

async function step(name, fn) {
  const t0 = Date.now();
  try {
    await fn();
    steps.push({ name, ok: true });
    console.log(`ok   ${name} (${Date.now() - t0} ms)`);
  } catch (e) {
    steps.push({ name, ok: false });
    console.log(`FAIL ${name}: ${e.message}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    const file = join(ARTIFACTS, `${name.replace(/[^a-z0-9]+/gi, '-')}.png`);
    await page?.screenshot({ path: file, fullPage: true }).catch(() => {});
    console.log(`     screenshot: ${file}`);
    throw e;
  }
}

const row = (name) => page.locator(`[role=option][data-name="${name}"]`);
const toolbar = (id) => page.locator(`[role=toolbar] [data-action="${id}"]`);

async function waitRows(names, present = true) {
  for (const n of names) {
    if (present) await row(n).waitFor({ state: 'visible', timeout: 10000 });
    else await row(n).waitFor({ state: 'detached', timeout: 10000 });
  }
}

async function signIn(user, pass) {
  await page.locator('input[name=username]').fill(user);
  await page.locator('input[name=password]').fill(pass);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/files/, { timeout: 10000 });
}

async function openFolder(name) {
  await row(name).locator('button.name').click();
  await page.waitForFunction((n) => document.querySelector('.crumbs li[aria-current=page]')?.textContent === n, name);
}

async function pickFolder(action, folder) {
  await toolbar(action).click();
  const list = page.getByTestId('picker-list');
  await list.locator(`button[data-name="${folder}"]`).click();
  await page.waitForFunction(
    (f) => [...document.querySelectorAll('dialog[open] strong')].some((s) => s.textContent === f),
    folder,
  );
  await page.getByTestId('picker-confirm').click();
}

async function main() {
  const nubo = await startNubo();
  const ui = await uiOrigin(nubo.url);
  console.log(`nubo at ${nubo.url}; UI served by ${ui.mode} at ${ui.origin}`);
  const browser = await launchChromium();
  const fixtures = mkdtempSync(join(tmpdir(), 'nubo-e2e-files-'));
  const problems = [];
  try {
    const ctx = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    page = await ctx.newPage();
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) problems.push(`CSP: ${m.text()}`);
    });
    page.on('dialog', (d) => problems.push(`unexpected browser dialog: ${d.message()}`));

    await step('first run: create the administrator', async () => {
      await page.goto(ui.origin + '/');
      await page.waitForURL(/\/login/);
      await page.getByRole('link', { name: /Create the administrator/ }).click();
      await page.locator('input[name=username]').fill(ADMIN.user);
      await page.locator('input[name=password]').fill(ADMIN.pass);
      await page.locator('input[name=confirm]').fill(ADMIN.pass);
      await page.getByRole('button', { name: 'Create administrator' }).click();
      await page.getByText('The administrator account was created').waitFor();
    });

    await step('setup again answers "already set up"', async () => {
      await page.goto(ui.origin + '/setup');
      await page.locator('input[name=password]').fill('another password');
      await page.locator('input[name=confirm]').fill('another password');
      await page.getByRole('button', { name: 'Create administrator' }).click();
      await page.getByText('already set up').waitFor();
    });

    await step('sign in and land on the empty drive', async () => {
      await signIn(ADMIN.user, ADMIN.pass);
      await page.getByText('This folder is empty').waitFor();
    });

    await step('create a folder', async () => {
      await toolbar('new-folder').click();
      await page.getByLabel('Folder name').fill('Projects');
      await page.getByRole('button', { name: 'Create' }).click();
      await waitRows(['Projects']);
      await openFolder('Projects');
    });

    await step('upload files, a folder and a drop; the queue reaches 100 %', async () => {
      await page.getByTestId('file-input').setInputFiles([
        { name: 'hello.txt', mimeType: 'text/plain', buffer: Buffer.from('hello nubo\n') },
        { name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# notes\n'.repeat(5000)) },
      ]);
      const album = join(fixtures, 'album');
      mkdirSync(join(album, 'sub'), { recursive: true });
      writeFileSync(join(album, 'a.txt'), 'a in album\n');
      writeFileSync(join(album, 'sub', 'b.txt'), 'b in album/sub\n');
      await page.getByTestId('folder-input').setInputFiles(album);
      // A drop as the browser delivers it (files of a DataTransfer).
      await page.evaluate(() => {
        const dt = new DataTransfer();
        dt.items.add(new File(['dropped bytes\n'], 'dropped.txt', { type: 'text/plain' }));
        const zone = document.querySelector('[data-testid=drop-zone]');
        zone.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      });
      await page.waitForFunction(() => {
        const items = [...document.querySelectorAll('[data-testid=upload-panel] li[data-status]')];
        return items.length === 5 && items.every((i) => i.dataset.status === 'done');
      }, null, { timeout: 20000 });
      assert.equal((await page.getByTestId('upload-total').textContent()).trim(), '100 %');
      await waitRows(['album', 'hello.txt', 'notes.md', 'dropped.txt']);
      await openFolder('album');
      await waitRows(['a.txt', 'sub']);
      await page.goBack();
      await waitRows(['hello.txt']);
    });

    await step('rename inline with F2', async () => {
      await row('hello.txt').click();
      await page.keyboard.press('F2');
      const input = page.getByLabel('New name');
      await input.fill('greeting.txt');
      await input.press('Enter');
      await waitRows(['greeting.txt']);
      await waitRows(['hello.txt'], false);
    });

    await step('move into a new folder', async () => {
      await page.getByTestId('file-list').click({ position: { x: 5, y: 300 } });
      await toolbar('new-folder').click();
      await page.getByLabel('Folder name').fill('Archive');
      await page.getByRole('button', { name: 'Create' }).click();
      await waitRows(['Archive']);
      await row('greeting.txt').click();
      await pickFolder('move', 'Archive');
      await waitRows(['greeting.txt'], false);
    });

    await step('copy into that folder', async () => {
      await row('notes.md').click();
      await pickFolder('copy', 'Archive');
      await page.getByText('Copied one item').waitFor();
      await waitRows(['notes.md']);
      await openFolder('Archive');
      await waitRows(['greeting.txt', 'notes.md']);
    });

    await step('delete to the trash and restore', async () => {
      await row('notes.md').click();
      await page.keyboard.press('Delete');
      await waitRows(['notes.md'], false);
      await page.getByRole('link', { name: 'Trash', exact: true }).click();
      const tr = page.locator('tr[data-name="notes.md"]');
      await tr.waitFor();
      assert.match(await tr.textContent(), /deleted in 30 days/);
      await tr.getByRole('button', { name: 'Restore' }).click();
      await page.getByText('The trash is empty').waitFor();
      await page.goBack();
      await waitRows(['notes.md', 'greeting.txt']);
    });

    await step('favorite', async () => {
      await row('greeting.txt').click();
      await toolbar('favorite').click();
      await row('greeting.txt').locator('.fav').waitFor();
      await page.getByRole('link', { name: 'Favorites', exact: true }).click();
      await page.locator('tr[data-name="greeting.txt"]').waitFor();
    });

    await step('search with "/"', async () => {
      await page.locator('body').press('/');
      await page.keyboard.type('greet');
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/search\?q=greet/);
      await page.locator('tr[data-name="greeting.txt"]').waitFor();
      assert.equal(await page.locator('tbody tr').count(), 1);
    });

    await step('preview a text file', async () => {
      await page.locator('tr[data-name="greeting.txt"] a').click(); // its folder
      await row('greeting.txt').locator('button.name').click();
      await page.getByTestId('viewer-text').waitFor();
      assert.equal(await page.getByTestId('viewer-text').textContent(), 'hello nubo\n');
      await page.keyboard.press('Escape');
      await page.getByTestId('viewer').waitFor({ state: 'hidden' });
    });

    await step('download the selection as a ZIP', async () => {
      await page.getByRole('link', { name: 'Files', exact: true }).click();
      await openFolder('Projects');
      await waitRows(['album', 'Archive', 'notes.md', 'dropped.txt']);
      await page.getByTestId('file-list').focus();
      await page.keyboard.press('Control+A');
      const [download] = await Promise.all([page.waitForEvent('download'), toolbar('zip').click()]);
      const names = zipEntries(readFileSync(await download.path())).sort();
      for (const want of ['album/a.txt', 'album/sub/b.txt', 'Archive/greeting.txt', 'Archive/notes.md', 'notes.md', 'dropped.txt']) {
        assert.ok(names.includes(want), `zip lacks ${want}: ${names.join(', ')}`);
      }
    });

    await step('admin creates a user', async () => {
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      const form = page.getByTestId('new-user-form');
      await form.locator('input[name=username]').fill(BOB.user);
      await form.locator('input[name=password]').fill(BOB.pass);
      await form.getByRole('button', { name: 'Create' }).click();
      await page.locator(`tr[data-user="${BOB.user}"]`).waitFor();
    });

    await step('change password', async () => {
      await page.getByRole('link', { name: 'Profile', exact: true }).click();
      const form = page.getByTestId('password-form');
      await form.locator('input[name=current]').fill(ADMIN.pass);
      await form.locator('input[name=new]').fill(ADMIN.next);
      await form.getByRole('button', { name: 'Change password' }).click();
      await page.getByText('Password changed').waitFor();
    });

    await step('log out', async () => {
      await page.getByTestId('logout').click();
      await page.waitForURL(/\/login/);
      const cookies = await ctx.cookies();
      assert.ok(!cookies.some((c) => c.name === 'nubo_access' && c.value), 'access cookie survived logout');
    });

    await step('the new user sees an empty drive', async () => {
      await signIn(BOB.user, BOB.pass);
      await page.getByText('This folder is empty').waitFor();
      assert.equal(await page.locator('[role=option]').count(), 0);
      assert.equal(await page.getByRole('link', { name: 'Users', exact: true }).count(), 0);
      await page.getByTestId('logout').click();
      await page.waitForURL(/\/login/);
    });

    await step('the admin signs in with the new password', async () => {
      await signIn(ADMIN.user, ADMIN.next);
      await waitRows(['Projects']);
    });

    await step('no CSP violations, page errors or browser dialogs', async () => {
      assert.deepEqual(problems, []);
    });
  } finally {
    await browser.close().catch(() => {});
    await ui.stop();
    await nubo.stop();
    rmSync(fixtures, { recursive: true, force: true });
  }
}

main().then(
  () => {
    console.log(`\n${steps.length} passed, 0 failed`);
  },
  (e) => {
    const passed = steps.filter((s) => s.ok).length;
    console.error(e.stack ?? e);
    console.log(`\n${passed} passed, 1 failed`);
    process.exit(1);
  },
);
