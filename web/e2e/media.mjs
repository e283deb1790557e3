#!/usr/bin/env node
// End-to-end: thumbnails, the grid view, the content search and the
// background jobs, in headless Chromium against a real nubo.
//   NUBO_BIN=/work/main/build/test/nubo node e2e/media.mjs   (npm run e2e runs it last)
// Flow: the administrator (made through the API) signs in → uploads a real
// PNG (made here with zlib), a broken "PNG" and a text file with a unique
// word → the list shows the PNG's thumbnail (a decoded image, its URL naming
// the file's ETag) and the icon for the others → the grid shows tiles with
// the thumbnail, the choice survives a reload, arrows/Enter/clicks select and
// open like the list → switching layouts asks for no thumbnail that failed
// before, and a thumbnail is cacheable for good → once indexed, the search
// shows the text file under "In file contents" with the word in <mark> and
// the file's markup as text → "More" pages through 25 matches → a 2,000-file
// folder stays virtual as a grid → the admin page's "Background jobs" card
// shows the server's counts → a visitor of a public link sees the thumbnail
// in the folder's list and grid.
// Like run.mjs: every step fails on a CSP violation or page error it causes,
// the page is held to style-src 'self', failures save a screenshot to
// e2e/artifacts/, the last line is "N passed, N failed" and the exit code is
// non-zero when any step failed.
import { randomBytes } from 'node:crypto';
import assert from 'node:assert/strict';
import { makeRun, startNubo, uiOrigin, launchChromium, apiSession, setupAdmin, png } from './lib.mjs';

const ADMIN = { user: 'admin', pass: 'correct horse 1' };
const LINK_PASS = 'link password 1';
const MANY = 2000; // files in the folder shown as a grid
const PAGED = 25; // files that match the second content search (20 a page)
let page;
const { problems, step, until, enforceStrictStyles, watchedPage, finish } = makeRun({
  prefix: 'media-',
  page: () => page,
});

const text = async (locator) => ((await locator.textContent()) ?? '').trim();
const row = (name) => page.locator(`[role=option][data-name="${name}"]`);
const selectedRows = () =>
  page.evaluate(() => [...document.querySelectorAll('[role=option][aria-selected=true]')].map((r) => r.dataset.name));

/** Letters only, so the search's tokenizer keeps the word whole: "quokka" + 10 random letters. */
function uniqueWord(prefix) {
  return prefix + [...randomBytes(10)].map((b) => String.fromCharCode(97 + (b % 26))).join('');
}


/** The decoded size of the <img> under `locator` once it has loaded (0×0 while it has not). */
async function imageSize(locator) {
  const img = locator.locator('img');
  if ((await img.count()) !== 1) return null;
  return img.evaluate((el) => (el.complete && el.naturalWidth > 0 ? [el.naturalWidth, el.naturalHeight] : [0, 0]));
}

/** Waits until the <img> under `locator` shows a decoded picture; returns [width, height]. */
async function decoded(what, locator, timeout = 10000) {
  const end = Date.now() + timeout;
  for (;;) {
    const size = await imageSize(locator).catch(() => null);
    if (size && size[0] > 0) return size;
    if (Date.now() > end) assert.fail(`${what}: no decoded image (got ${JSON.stringify(size)})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function main() {
  const nubo = await startNubo();
  const ui = await uiOrigin(nubo.url);
  console.log(`nubo at ${nubo.url}; UI served by ${ui.mode} at ${ui.origin}`);
  const browser = await launchChromium();
  try {
    await setupAdmin(nubo.url, ADMIN.user, ADMIN.pass);
    const admin = await apiSession(nubo.url, ADMIN.user, ADMIN.pass);
    const root = await admin.rootId();
    const ctx = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await enforceStrictStyles(ctx, ui.origin);
    page = await watchedPage(ctx);

    const WORD = uniqueWord('quokka');
    const PAGE_WORD = uniqueWord('wombat');
    const NOTE = `notes-${WORD.slice(-4)}.txt`;
    const nodes = {};
    const byName = async (parent, name) =>
      (await admin.call('GET', `/api/v1/nodes/${parent}/children?limit=500`)).items.find((n) => n.name === name);
    /** The thumbnail requests the page makes, as node ids. */
    const thumbRequests = [];
    page.on('request', (r) => {
      const m = /\/api\/v1\/(?:public\/[^/]+\/)?nodes\/([^/]+)\/thumbnail/.exec(new URL(r.url()).pathname);
      if (m) thumbRequests.push(m[1]);
    });
    /** Waits until content search (through the API) finds `want` files for `q`: the background job indexed them. */
    const indexed = async (q, want) =>
      until(
        `files indexed for "${q}"`,
        async () => (await admin.call('GET', `/api/v1/search/content?q=${q}&limit=100`)).items.length,
        want,
        30000,
      );

    await step('sign in', async () => {
      await page.goto(ui.origin + '/login');
      await page.locator('input[name=username]').fill(ADMIN.user);
      await page.locator('input[name=password]').fill(ADMIN.pass);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/files/, { timeout: 10000 });
      await page.getByText('This folder is empty').waitFor();
    });

    await step("upload a PNG, a broken PNG and a text file; the list shows the PNG's thumbnail", async () => {
      await page.getByTestId('file-input').setInputFiles([
        { name: 'photo.png', mimeType: 'image/png', buffer: png(320, 200) },
        { name: 'broken.png', mimeType: 'image/png', buffer: Buffer.from('\x89PNG\r\n\x1a\nnot really a picture') },
        {
          name: NOTE,
          mimeType: 'text/plain',
          buffer: Buffer.from(`Meeting notes: the ${WORD} project starts <img src=x onerror="window.__pwned=1"> on Monday.\n`),
        },
      ]);
      await page.waitForFunction(() => {
        const items = [...document.querySelectorAll('[data-testid=upload-panel] li[data-status]')];
        return items.length === 3 && items.every((i) => i.dataset.status === 'done');
      }, null, { timeout: 20000 });
      for (const name of ['photo.png', 'broken.png', NOTE]) {
        await row(name).waitFor();
        nodes[name] = await byName(root, name);
      }
      // A 320×200 picture fits 256×256 as 256×160.
      assert.deepEqual(await decoded('the thumbnail in the list', row('photo.png')), [256, 160]);
      const src = await row('photo.png').locator('img').getAttribute('src');
      assert.equal(
        src,
        `/api/v1/nodes/${nodes['photo.png'].id}/thumbnail?size=small&v=${nodes['photo.png'].etag.replaceAll('"', '')}`,
      );
      // No preview: the icon, after one attempt for the broken picture and none for the text.
      await row('broken.png').locator('.file-icon').waitFor();
      await until('the broken picture falls back to its icon', () => row('broken.png').locator('img').count(), 0);
      assert.equal(await row(NOTE).locator('img').count(), 0);
      assert.ok(await row(NOTE).locator('.file-icon').isVisible());
      assert.equal(thumbRequests.filter((id) => id === nodes[NOTE].id).length, 0, 'a thumbnail asked for a text file');
      assert.equal(thumbRequests.filter((id) => id === nodes['broken.png'].id).length, 1);
    });

    await step('the grid shows tiles with the thumbnail, and the choice survives a reload', async () => {
      await page.getByTestId('layout-grid').click();
      assert.equal(await page.getByTestId('layout-grid').getAttribute('aria-pressed'), 'true');
      assert.equal(await page.getByTestId('layout-list').getAttribute('aria-pressed'), 'false');
      const tile = page.locator('.tile[role=option][data-name="photo.png"]');
      await tile.waitFor();
      assert.deepEqual(await decoded('the thumbnail in the grid', tile), [256, 160]);
      assert.equal(await page.locator(`.tile[data-name="${NOTE}"] img`).count(), 0);
      assert.ok(await page.locator(`.tile[data-name="${NOTE}"] .file-icon`).isVisible());
      assert.equal(await page.locator('.row[role=option]').count(), 0, 'list rows in the grid');
      await page.reload();
      await tile.waitFor();
      assert.equal(await page.evaluate(() => localStorage.getItem('nubo.layout')), 'grid');
      assert.equal(await page.getByTestId('layout-grid').getAttribute('aria-pressed'), 'true');
      assert.deepEqual(await decoded('the thumbnail after the reload', tile), [256, 160]);
    });

    await step('the grid selects and opens like the list: arrows, Enter, clicks', async () => {
      // Sorted by name: broken.png, notes-….txt, photo.png on one line.
      const list = page.getByTestId('file-list');
      await list.focus();
      await page.keyboard.press('Home');
      await until('selected after Home', selectedRows, ['broken.png']);
      await page.keyboard.press('ArrowRight');
      await until('selected after ArrowRight', selectedRows, [NOTE]);
      await page.keyboard.press('Shift+ArrowRight');
      await until('selected after Shift+ArrowRight', selectedRows, [NOTE, 'photo.png']);
      await page.keyboard.press('ArrowLeft');
      await until('selected after ArrowLeft', selectedRows, [NOTE]);
      assert.match(await list.getAttribute('aria-activedescendant'), new RegExp(`-${nodes[NOTE].id}$`));
      // The toolbar follows the selection.
      await page.locator('[role=toolbar] [data-action=download]').waitFor();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('Enter');
      await page.getByTestId('viewer').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('viewer').waitFor({ state: 'hidden' });
      // Clicks: one selects, ctrl adds, the background clears, a double click opens.
      await page.locator('.tile[data-name="broken.png"]').click();
      await page.locator('.tile[data-name="photo.png"]').click({ modifiers: ['Control'] });
      await until('selected after clicks', selectedRows, ['broken.png', 'photo.png']);
      await list.click({ position: { x: 1000, y: 300 } }); // below the one line of tiles
      await until('selected after a click on the background', selectedRows, []);
      await page.locator(`.tile[data-name="${NOTE}"]`).dblclick();
      await page.getByTestId('viewer-text').waitFor();
      assert.match(await page.getByTestId('viewer-text').textContent(), new RegExp(WORD));
      await page.keyboard.press('Escape');
      await page.getByTestId('viewer').waitFor({ state: 'hidden' });
    });

    await step('switching layouts asks for no failed thumbnail again; a thumbnail is cacheable for good', async () => {
      const before = thumbRequests.length;
      const brokenBefore = thumbRequests.filter((id) => id === nodes['broken.png'].id).length;
      for (const to of ['list', 'grid', 'list', 'grid']) {
        await page.getByTestId(`layout-${to}`).click();
        await page.locator(`.${to === 'grid' ? 'tile' : 'row'}[data-name="photo.png"] img`).waitFor();
        await page.waitForTimeout(100);
      }
      const brokenAfter = thumbRequests.filter((id) => id === nodes['broken.png'].id).length;
      assert.equal(brokenAfter, brokenBefore, 'the broken picture was asked for again');
      assert.ok(thumbRequests.length - before <= 4, `thumbnail requests while switching: ${thumbRequests.length - before}`);
      const src = await page.locator('.tile[data-name="photo.png"] img').getAttribute('src');
      const answer = await page.evaluate(async (url) => {
        const r = await fetch(url, { cache: 'no-store' });
        return { status: r.status, type: r.headers.get('content-type'), cache: r.headers.get('cache-control') };
      }, src);
      assert.equal(answer.status, 200);
      assert.equal(answer.type, 'image/webp');
      assert.match(answer.cache ?? '', /immutable/, JSON.stringify(answer));
    });

    await step('the search shows the text file under "In file contents", the word in <mark>', async () => {
      await indexed(WORD, 1);
      await page.goto(`${ui.origin}/files`);
      await page.locator('body').press('/');
      await page.keyboard.type(WORD);
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/search\\?q=${WORD}`));
      const section = page.getByTestId('content-results');
      await section.getByRole('heading', { name: 'In file contents' }).waitFor();
      const hit = section.locator(`[data-testid=content-hit][data-name="${NOTE}"]`);
      await hit.waitFor();
      assert.equal(await section.locator('[data-testid=content-hit]').count(), 1);
      assert.deepEqual(await hit.locator('mark').allTextContents(), [WORD]);
      // The file's markup is text: no <img> in the excerpt, nothing ran.
      const snippet = hit.getByTestId('snippet');
      assert.match(await text(snippet), /<img src=x onerror="window.__pwned=1">/);
      assert.equal(await snippet.locator('img').count(), 0);
      assert.equal(await page.evaluate(() => window.__pwned), undefined);
      await until('location of the hit', () => text(hit.getByTestId('location')), 'Home');
      // No name matches the word.
      assert.equal(await page.locator('tbody tr').count(), 0);
      await page.getByText(`No file or folder name matches "${WORD}".`).waitFor();
      // The name opens the file.
      await hit.getByRole('button', { name: NOTE }).click();
      await page.getByTestId('viewer-text').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('viewer').waitFor({ state: 'hidden' });
    });

    await step(`"More" pages through ${PAGED} files found by their content`, async () => {
      const folder = await admin.mkdir(root, 'paged');
      await admin.uploadMany(folder.id, PAGED, (i) => `paged-${String(i).padStart(2, '0')}.md`, (i) => `# Part ${i}\n\nabout ${PAGE_WORD} number ${i}\n`);
      await indexed(PAGE_WORD, PAGED);
      await page.goto(`${ui.origin}/search?q=${PAGE_WORD}`);
      const section = page.getByTestId('content-results');
      const hits = section.locator('[data-testid=content-hit]');
      await until('hits on the first page', () => hits.count(), 20);
      await section.getByTestId('content-more').click();
      await until('hits after "More"', () => hits.count(), PAGED);
      assert.equal(await section.getByTestId('content-more').count(), 0, '"More" after the last page');
      const names = await hits.evaluateAll((els) => els.map((el) => el.dataset.name));
      assert.equal(new Set(names).size, PAGED, 'a file listed twice');
      assert.equal(await section.locator('mark').count(), PAGED);
    });

    await step(`a ${MANY.toLocaleString('en')}-file folder stays virtual as a grid`, async () => {
      const many = await admin.mkdir(root, 'many');
      await admin.uploadMany(many.id, MANY, (i) => `item-${String(i).padStart(5, '0')}.txt`, () => 'x\n');
      await page.goto(`${ui.origin}/files/${many.id}`);
      await page.locator('.tile[data-name="item-00000.txt"]').waitFor();
      await until('item count', () => text(page.locator('.bar .count')), `${MANY.toLocaleString('en')} items`);
      const rendered = await page.locator('[role=option]').count();
      assert.ok(rendered > 0 && rendered < 150, `${rendered} tiles in the DOM`);
      await page.getByTestId('file-list').focus();
      // End goes to the last tile loaded; the next pages load as it comes near.
      const last = `item-${String(MANY - 1).padStart(5, '0')}.txt`;
      await until(
        'selected after End (pressed until every page is loaded)',
        async () => {
          await page.keyboard.press('End');
          return selectedRows();
        },
        [last],
        20000,
      );
      await page.locator(`.tile[data-name="${last}"]`).waitFor();
      assert.ok((await page.locator('[role=option]').count()) < 150, 'still virtual at the end');
      assert.equal(await page.locator('.tile[data-name="item-00000.txt"]').count(), 0, 'the first tile left the DOM');
    });

    await step('the admin page shows the background jobs', async () => {
      await page.getByRole('link', { name: 'Users', exact: true }).click();
      const card = page.getByTestId('jobs-card');
      await card.getByRole('heading', { name: 'Background jobs' }).waitFor();
      const shown = () =>
        card.evaluate((el) =>
          Object.fromEntries(
            [...el.querySelectorAll('[data-count]')].map((d) => [d.dataset.count, Number(d.querySelector('dd').textContent.replace(/\D/g, ''))]),
          ),
        );
      const server = async () => {
        const s = await admin.call('GET', '/api/v1/admin/jobs');
        return { due: s.due, running: s.running, retrying: s.retrying, done: s.done, failed: s.failed };
      };
      // The 2,000 files uploaded above keep the queue busy for a while; compare once it is idle.
      await until('an idle queue', async () => {
        const s = await server();
        return s.due + s.running;
      }, 0, 60000);
      const want = await server();
      assert.ok(want.done >= 3 + PAGED + MANY, `jobs done on the server: ${want.done}`);
      // The card asked again by itself while jobs were waiting: it shows the idle queue.
      await until('the counts on the card', shown, want, 10000);
      await card.getByRole('button', { name: 'Refresh' }).click();
      await until('the counts after Refresh', shown, await server());
      const { failing } = await admin.call('GET', '/api/v1/admin/jobs');
      if (failing.length === 0) await card.getByTestId('jobs-none-failing').waitFor();
      else await until('failing jobs listed', () => card.locator('[data-testid=jobs-failing] tbody tr').count(), failing.length);
    });

    const signedIn = page;
    const visitorCtx = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
    await enforceStrictStyles(visitorCtx, ui.origin);

    await step('a public link shows thumbnails in its list and grid', async () => {
      const pics = await admin.mkdir(root, 'Pictures');
      await admin.uploadMany(pics.id, 1, () => 'wide.png', () => png(400, 100));
      await admin.uploadMany(pics.id, 1, () => 'readme.txt', () => 'just text\n');
      const link = await admin.call('POST', `/api/v1/nodes/${pics.id}/links`, { role: 'view', password: LINK_PASS });
      page = await watchedPage(visitorCtx);
      page.on('request', (r) => {
        const m = /\/api\/v1\/(?:public\/[^/]+\/)?nodes\/([^/]+)\/thumbnail/.exec(new URL(r.url()).pathname);
        if (m) thumbRequests.push(m[1]);
      });
      await page.goto(`${ui.origin}/s/${link.token}`);
      await page.locator('input[name=password]').fill(LINK_PASS);
      await page.getByRole('button', { name: 'Open' }).click();
      const tr = page.locator('tr[data-name="wide.png"]');
      await tr.waitFor();
      // 400×100 fits 256×256 as 256×64.
      assert.deepEqual(await decoded('the thumbnail in the link list', tr), [256, 64]);
      assert.match(await tr.locator('img').getAttribute('src'), new RegExp(`^/api/v1/public/${link.token}/nodes/[^/]+/thumbnail\\?size=small&v=[0-9a-f]{32}$`));
      assert.equal(await page.locator('tr[data-name="readme.txt"] img').count(), 0);
      await page.getByTestId('layout-grid').click();
      const tile = page.locator('li.tile[data-name="wide.png"]');
      await tile.waitFor();
      assert.deepEqual(await decoded('the thumbnail in the link grid', tile), [256, 64]);
      await tile.getByRole('button', { name: 'wide.png', exact: true }).click();
      await page.getByTestId('viewer').waitFor();
      await page.keyboard.press('Escape');
      await page.getByTestId('viewer').waitFor({ state: 'hidden' });
      assert.equal(await page.locator('tr[data-name]').count(), 0, 'the list next to the grid');
    });

    await visitorCtx.close();
    page = signedIn;

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
