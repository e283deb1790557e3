#!/usr/bin/env node
// End-to-end: the Photos and Music pages, in headless Chromium against a
// real nubo.
//   NUBO_BIN=/work/main/build/test/nubo node e2e/photos_music.mjs   (npm run e2e runs it)
// Flow: JPEGs with EXIF dates (ffmpeg + exiv2; one with a camera model, one
// with a GPS position) go up through the REST API → the timeline shows the
// month headers newest first, in the camera's time although the browser is
// in Los Angeles, and the thumbnails decode → the lightbox shows the large
// thumbnail, the date as the camera said, the camera, goes through the
// photos with the arrow keys, closes with Escape, and links to the folder →
// Places lists the photo with a position → 5,000 more photos (the EXIF date
// patched into one JPEG) go up through the API, a few requests in flight,
// until /photos/months counts them all → the timeline holds a bounded number
// of tiles while it is scrolled to its end, where the last (oldest) month's
// header shows with decoded thumbnails; the scrubber jumps to a month →
// tagged MP3s (ffmpeg) go up → Music: artist → album → Play all: the
// <audio> element's time advances and navigator.mediaSession shows the tags;
// the media session's buttons (next, seek, previous, pause, play) drive the
// player; the music goes on while the user moves to another page →
// playlists: a new one from a track row, a track added to it, a reload
// keeps it, Move down / Alt+↓ reorder it (and the order survives a reload),
// the M3U8 export lists the files, an M3U8 import reports what it could not
// find, rename and delete.
// Like run.mjs: every step fails on a CSP violation or page error it causes,
// the page is held to style-src 'self', failures save a screenshot to
// e2e/artifacts/, the last line is "N passed, N failed" and the exit code is
// non-zero when any step failed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { makeRun, startNubo, uiOrigin, launchChromium, apiSession, setupAdmin } from './lib.mjs';

const ADMIN = { user: 'admin', pass: 'correct horse 1' };
const MANY = Number(process.env.E2E_PHOTOS ?? 5000); // photos in the big timeline
const IN_FLIGHT = 6; // uploads at a time
const MAX_TILES = 400; // tiles the DOM may hold at once
let page;
const { problems, step, finish, enforceStrictStyles, watchedPage, until } = makeRun({
  prefix: 'photos-music-',
  page: () => page,
});

const work = mkdtempSync(join(tmpdir(), 'nubo-e2e-media-'));
const text = async (locator) => ((await locator.textContent()) ?? '').trim();

/** A 64×48 test-pattern JPEG with EXIF DateTimeOriginal `date` ("2023:07:14 21:30:00") and more exiv2 -M commands. */
function jpeg(name, date, more = []) {
  const file = join(work, name);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=1', '-frames:v', '1', file]);
  execFileSync('exiv2', [`-Mset Exif.Photo.DateTimeOriginal Ascii ${date}`, ...more.map((m) => `-M${m}`), file]);
  return readFileSync(file);
}

/** A tagged MP3: a sine tone of `seconds`. */
function mp3(name, seconds, tags) {
  const file = join(work, name);
  const meta = Object.entries(tags).flatMap(([k, v]) => ['-metadata', `${k}=${v}`]);
  execFileSync('ffmpeg', ['-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`, ...meta, file]);
  return readFileSync(file);
}

/** Polls `read()` until `ok(value)`; fails naming the last value. */
async function waitFor(what, read, ok, timeout = 10000, every = 100) {
  const end = Date.now() + timeout;
  let got;
  for (;;) {
    got = await read();
    if (ok(got)) return got;
    if (Date.now() > end) assert.fail(`${what}: last value ${JSON.stringify(got)}`);
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Whether the <img> under `locator` has decoded (naturalWidth > 0). */
const decodedImg = (locator) =>
  locator
    .locator('img')
    .evaluateAll((imgs) => imgs.length > 0 && imgs.every((i) => i.complete && i.naturalWidth > 0))
    .catch(() => false);

async function main() {
  const nubo = await startNubo();
  const ui = await uiOrigin(nubo.url);
  console.log(`nubo at ${nubo.url}; UI served by ${ui.mode} at ${ui.origin}`);
  const browser = await launchChromium();
  try {
    await setupAdmin(nubo.url, ADMIN.user, ADMIN.pass);
    const admin = await apiSession(nubo.url, ADMIN.user, ADMIN.pass);
    const root = await admin.rootId();
    const monthsSum = async () => (await admin.call('GET', '/api/v1/photos/months')).months.reduce((n, m) => n + m.count, 0);
    // Far west of UTC: the camera's 02:00 on the 1st is the evening before here.
    const ctx = await browser.newContext({
      acceptDownloads: true,
      viewport: { width: 1280, height: 800 },
      locale: 'en-US',
      timezoneId: 'America/Los_Angeles',
    });
    await enforceStrictStyles(ctx, ui.origin);
    // The media session's action handlers, kept where the test can press them.
    await ctx.addInitScript(() => {
      const ms = navigator.mediaSession;
      if (!ms) return;
      window.__msHandlers = {};
      const set = ms.setActionHandler.bind(ms);
      ms.setActionHandler = (action, handler) => {
        window.__msHandlers[action] = handler;
        set(action, handler);
      };
    });
    page = await watchedPage(ctx);
    const photoRequests = [];
    const thumbRequests = [];
    page.on('request', (r) => {
      const path = new URL(r.url()).pathname;
      if (path === '/api/v1/photos') photoRequests.push(r.url());
      if (path.endsWith('/thumbnail')) thumbRequests.push(r.url());
    });

    await step('sign in', async () => {
      await page.goto(ui.origin + '/login');
      await page.locator('input[name=username]').fill(ADMIN.user);
      await page.locator('input[name=password]').fill(ADMIN.pass);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/files/, { timeout: 10000 });
    });

    const nodes = {};
    let camera;
    await step('photos with EXIF dates: month headers newest first, in the camera time, thumbnails decoded', async () => {
      camera = await admin.mkdir(root, 'Camera');
      const shots = [
        ['a-aug.jpg', '2023:08:01 02:00:00', ['set Exif.Image.Model Ascii NuboCam 1']],
        ['b-jul.jpg', '2023:07:14 21:30:00', []],
        [
          'c-jul.jpg',
          '2023:07:02 10:00:00',
          [
            'set Exif.GPSInfo.GPSLatitudeRef N',
            'set Exif.GPSInfo.GPSLatitude 52/1 31/1 0/1',
            'set Exif.GPSInfo.GPSLongitudeRef E',
            'set Exif.GPSInfo.GPSLongitude 13/1 24/1 0/1',
          ],
        ],
        ['d-dec.jpg', '2021:12:31 23:30:00', []],
      ];
      for (const [name, date, more] of shots) nodes[name] = await admin.put(camera.id, name, jpeg(name, date, more));
      await waitFor('photos counted in /photos/months', monthsSum, (n) => n === 4, 30000, 200);
      await page.getByRole('link', { name: 'Photos', exact: true }).click();
      await page.waitForURL(/\/photos$/);
      const headers = page.getByTestId('month-header');
      await until('month headers', () => headers.evaluateAll((hs) => hs.map((h) => h.dataset.month)), ['2023-08', '2023-07', '2021-12']);
      const labels = await headers.evaluateAll((hs) => hs.map((h) => h.firstChild.textContent.trim()));
      assert.deepEqual(labels, ['August 2023', 'July 2023', 'December 2021']);
      assert.match(await text(headers.nth(1)), /2 photos$/);
      const tiles = page.getByTestId('photo-tile');
      assert.deepEqual(await tiles.evaluateAll((ts) => ts.map((t) => t.dataset.name)), ['a-aug.jpg', 'b-jul.jpg', 'c-jul.jpg', 'd-dec.jpg']);
      await waitFor('every thumbnail decoded', () => decodedImg(page.locator('[data-testid=photo-timeline]')), (ok) => ok);
      const src = await tiles.first().locator('img').getAttribute('src');
      assert.equal(src, `/api/v1/nodes/${nodes['a-aug.jpg'].id}/thumbnail?size=small&v=${nodes['a-aug.jpg'].etag.replaceAll('"', '')}`);
      // No scrubber for so few months? Three months: it shows them.
      assert.equal(await page.getByTestId('photo-scrubber').locator('button').count(), 3);
    });

    await step('the lightbox: large thumbnail, the date as the camera said, camera, arrows, Escape, folder', async () => {
      await page.locator('[data-testid=photo-tile][data-name="a-aug.jpg"]').click();
      const box = page.getByTestId('lightbox');
      await box.waitFor();
      const img = box.getByTestId('lightbox-image');
      assert.match(await img.getAttribute('src'), /\/thumbnail\?size=large&v=[0-9a-f]{32}$/);
      await waitFor('the large thumbnail decoded', () => img.evaluate((i) => i.complete && i.naturalWidth > 0), (ok) => ok);
      const date = () => text(box.getByTestId('lightbox-date'));
      assert.match(await date(), /August 1, 2023.*2:00\sAM/);
      assert.equal(await text(box.getByTestId('lightbox-camera')), 'NuboCam 1');
      assert.equal(await box.getByTestId('lightbox-folder').getAttribute('href'), `/files/${camera.id}`);
      assert.equal(await box.getByTestId('lightbox-download').getAttribute('href'), `/api/v1/nodes/${nodes['a-aug.jpg'].id}/content?download=1`);
      await page.keyboard.press('ArrowRight');
      await until('date after ArrowRight', async () => /July 14, 2023.*9:30\sPM/.test(await date()), true);
      assert.equal(await box.getByTestId('lightbox-camera').count(), 0);
      await page.keyboard.press('ArrowRight');
      await until('date after another ArrowRight', async () => /July 2, 2023/.test(await date()), true);
      await page.keyboard.press('ArrowLeft');
      await until('date after ArrowLeft', async () => /July 14, 2023/.test(await date()), true);
      await page.keyboard.press('Escape');
      await box.waitFor({ state: 'hidden' });
      // The folder link leads to the file in its folder.
      await page.locator('[data-testid=photo-tile][data-name="d-dec.jpg"]').click();
      await box.getByTestId('lightbox-folder').click();
      await page.waitForURL(new RegExp(`/files/${camera.id}$`));
      await page.locator('[role=option][data-name="d-dec.jpg"]').waitFor();
      assert.equal(await page.getByTestId('lightbox').count(), 0);
    });

    await step('places list the photo with a position: count, coordinates, cover', async () => {
      await page.goto(`${ui.origin}/photos`);
      await page.getByTestId('tab-places').click();
      await page.waitForURL(/\/photos\/places$/);
      const place = page.getByTestId('place');
      await place.first().waitFor();
      assert.equal(await place.count(), 1);
      assert.equal(await text(place.getByTestId('place-coords')), '52.5167° N, 13.4000° E');
      assert.equal(await text(place.getByTestId('place-count')), 'one photo');
      await waitFor('the cover decoded', () => decodedImg(place), (ok) => ok);
      // No map tiles: nothing was asked of another origin.
      const others = await page.evaluate((origin) => performance.getEntriesByType('resource').filter((e) => !e.name.startsWith(origin)).length, ui.origin);
      assert.equal(others, 0);
    });

    await step(`${MANY.toLocaleString('en')} photos uploaded through the API, all counted in /photos/months`, async () => {
      const many = await admin.mkdir(root, 'Many');
      const base = jpeg('base.jpg', '2000:01:01 00:00:00');
      const at = base.indexOf('2000:01:01 00:00:00');
      assert.ok(at > 0, 'the date is in the JPEG');
      // 60 months (2019-12 back to 2015-01); every file a different moment.
      const dateOf = (i) => {
        const k = i % 60;
        const y = 2019 - Math.floor(k / 12);
        const m = 12 - (k % 12);
        const n = Math.floor(i / 60);
        const p = (v) => String(v).padStart(2, '0');
        return `${y}:${p(m)}:${p(1 + (n % 28))} ${p(Math.floor(n / 28) % 24)}:${p(n % 60)}:${p(i % 60)}`;
      };
      const t0 = Date.now();
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < MANY; i = next++) {
          const b = Buffer.from(base);
          b.write(dateOf(i), at, 'latin1');
          await admin.put(many.id, `m${String(i).padStart(5, '0')}.jpg`, b);
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
      const up = Date.now() - t0;
      await waitFor('photos counted in /photos/months', monthsSum, (n) => n === MANY + 4, 600_000, 1000);
      console.log(`     ${MANY} uploads in ${up} ms; all in the timeline after ${Date.now() - t0} ms`);
    });

    await step(`the ${MANY.toLocaleString('en')}-photo timeline stays virtual and scrolls to its last month`, async () => {
      const months = (await admin.call('GET', '/api/v1/photos/months')).months;
      const last = months[months.length - 1].month;
      assert.equal(last, '2015-01');
      photoRequests.length = 0;
      thumbRequests.length = 0;
      await page.goto(`${ui.origin}/photos`);
      const timeline = page.getByTestId('photo-timeline');
      await page.getByTestId('month-header').first().waitFor();
      const tiles = () => page.locator('[data-testid=photo-timeline] .tile').count();
      const first = await tiles();
      assert.ok(first > 0 && first < MAX_TILES, `${first} tiles at the top`);
      // Scroll to the end a few screens a frame, as a fast swipe or the
      // scrollbar would, counting the tiles and timing each frame.
      const t0 = Date.now();
      const fling = await timeline.evaluate(async (el) => {
        let most = 0;
        let slowest = 0;
        for (let i = 0; i < 2000; i++) {
          const t = performance.now();
          el.scrollTop += el.clientHeight * 3;
          await new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res)));
          slowest = Math.max(slowest, performance.now() - t);
          most = Math.max(most, el.querySelectorAll('.tile').length);
          if (el.scrollTop + el.clientHeight >= el.scrollHeight - 1) return { most, slowest, steps: i + 1 };
        }
        return { most, slowest, steps: -1 };
      });
      let most = Math.max(first, fling.most);
      console.log(
        `     at the end after ${Date.now() - t0} ms (${fling.steps} steps); at most ${most} tiles in the DOM; slowest step ${Math.round(fling.slowest)} ms`,
      );
      assert.ok(fling.steps > 0, 'the end was not reached');
      assert.ok(most < MAX_TILES, `${most} tiles in the DOM at once`);
      // The last (oldest) month's header shows at the end, or, when that
      // month fills more than the view, its name is pinned at the top and
      // the header shows a little way up, as the user scrolls back.
      const header = page.locator(`[data-testid=month-header][data-month="${last}"]`);
      const headerInView = () =>
        timeline.evaluate((el, month) => {
          const h = el.querySelector(`[data-testid=month-header][data-month="${month}"]`);
          if (!h) return false;
          const v = el.getBoundingClientRect();
          const r = h.getBoundingClientRect();
          return r.top >= v.top && r.bottom <= v.bottom;
        }, last);
      const monthHeight = 52 + Math.ceil(months[months.length - 1].count / 7) * 200; // at most
      if (!(await headerInView())) await until('the pinned month at the end', () => text(page.getByTestId('month-pinned')), 'January 2015');
      let up = 0;
      while (!(await headerInView())) {
        assert.ok(up < monthHeight, `no header for ${last} within ${up} px of the end`);
        await timeline.evaluate((el) => (el.scrollTop -= 200));
        up += 200;
        await page.waitForTimeout(30);
        most = Math.max(most, await tiles());
      }
      assert.equal(await header.evaluate((h) => h.firstChild.textContent.trim()), 'January 2015');
      assert.ok(most < MAX_TILES, `${most} tiles in the DOM at once`);
      // The pages up to the end have loaded: the last month's tiles are photos with decoded thumbnails.
      await waitFor('no placeholders left in view', () => page.locator('[data-testid=photo-timeline] .placeholder').count(), (n) => n === 0, 60000, 200);
      const lastTile = page.locator('[data-testid=photo-tile]').last();
      await waitFor('the last thumbnail decoded', () => decodedImg(lastTile), (ok) => ok, 20000);
      console.log(`     the last month loaded and shown after ${Date.now() - t0} ms; ${thumbRequests.length} thumbnails asked for`);
      assert.ok(photoRequests.length >= Math.ceil((MANY + 4) / 500), `${photoRequests.length} pages asked for`);
      assert.ok((await tiles()) < MAX_TILES, 'still virtual at the end');
      assert.equal(await page.locator('[data-testid=month-header][data-month="2023-08"]').count(), 0, 'the first month left the DOM');
      // The scrubber marks the month in view and jumps to another.
      const scrubber = page.getByTestId('photo-scrubber');
      const topMonth = await timeline.evaluate((el) => {
        const top = el.getBoundingClientRect().top;
        const rows = [...el.querySelectorAll('[data-testid=month-header], .line')];
        return rows.find((r) => r.getBoundingClientRect().bottom > top + 1)?.dataset.month;
      });
      assert.equal(await scrubber.locator('button[aria-current=true]').getAttribute('data-month'), topMonth);
      await scrubber.locator('button[data-month="2017-06"]').click();
      const june = page.locator('[data-testid=month-header][data-month="2017-06"]');
      await june.waitFor();
      await until('the scrubber marks June 2017', () => scrubber.locator('button[aria-current=true]').getAttribute('data-month'), '2017-06');
      await waitFor('June 2017 tiles loaded', () => page.locator('[data-testid=photo-timeline] .placeholder').count(), (n) => n === 0, 20000, 200);
    });

    const tracks = {};
    await step('an MP3 plays: the time advances and the Media Session shows its tags', async () => {
      const music = await admin.mkdir(root, 'Music');
      const album = { artist: 'Test Artist', album: 'Test Album', album_artist: 'Test Artist' };
      tracks.sine = await admin.put(music.id, 'sine.mp3', mp3('sine.mp3', 20, { ...album, title: 'Sine Song', track: '1' }));
      tracks.second = await admin.put(music.id, 'second.mp3', mp3('second.mp3', 20, { ...album, title: 'Second Song', track: '2' }));
      await waitFor('tracks in the library', async () => (await admin.call('GET', '/api/v1/music/tracks')).items.length, (n) => n === 2, 30000, 200);
      await page.getByRole('link', { name: 'Music', exact: true }).click();
      await page.waitForURL(/\/music$/);
      await page.getByRole('link', { name: 'Test Artist' }).click();
      await page.waitForURL(/\/music\/albums\?artist=/);
      await page.getByTestId('album').getByRole('link', { name: 'Test Album' }).click();
      await page.waitForURL(/\/music\/tracks\?artist=.*&album=/);
      assert.equal(await text(page.getByTestId('album-title')), 'Test Album');
      const rows = page.getByTestId('track-row');
      await until('album tracks', () => rows.evaluateAll((rs) => rs.map((r) => r.dataset.title)), ['Sine Song', 'Second Song']);
      await page.getByTestId('play-album').click();
      const audio = page.getByTestId('player-audio');
      await waitFor('the audio time', () => audio.evaluate((a) => a.currentTime), (t) => t > 0.5, 15000);
      assert.equal(await audio.evaluate((a) => a.paused), false);
      assert.equal(await page.evaluate(() => navigator.mediaSession.metadata?.title), 'Sine Song');
      assert.deepEqual(
        await page.evaluate(() => [navigator.mediaSession.metadata.artist, navigator.mediaSession.metadata.album, navigator.mediaSession.playbackState]),
        ['Test Artist', 'Test Album', 'playing'],
      );
      assert.equal(await text(page.getByTestId('player-title')), 'Sine Song');
      assert.equal(await page.locator('[data-testid=track-row][aria-current=true]').getAttribute('data-title'), 'Sine Song');
    });

    await step("the media session's buttons drive the player: next, seek, previous, pause, play", async () => {
      const audio = page.getByTestId('player-audio');
      const title = () => page.evaluate(() => navigator.mediaSession.metadata?.title);
      assert.deepEqual(
        await page.evaluate(() => ['play', 'pause', 'previoustrack', 'nexttrack', 'seekto'].filter((a) => typeof window.__msHandlers[a] !== 'function')),
        [],
      );
      await page.evaluate(() => window.__msHandlers.nexttrack({ action: 'nexttrack' }));
      await until('title after nexttrack', title, 'Second Song');
      await until('player bar after nexttrack', () => text(page.getByTestId('player-title')), 'Second Song');
      await page.evaluate(() => window.__msHandlers.seekto({ action: 'seekto', seekTime: 10 }));
      await waitFor('the time after seekto', () => audio.evaluate((a) => a.currentTime), (t) => t >= 10 && t < 15);
      await page.evaluate(() => window.__msHandlers.previoustrack({ action: 'previoustrack' })); // 10 s in: from the start
      await waitFor('the time after previoustrack', () => audio.evaluate((a) => a.currentTime), (t) => t < 3);
      assert.equal(await title(), 'Second Song');
      await page.evaluate(() => window.__msHandlers.previoustrack({ action: 'previoustrack' })); // at the start: the one before
      await until('title after a second previoustrack', title, 'Sine Song');
      await page.evaluate(() => window.__msHandlers.pause({ action: 'pause' }));
      await until('paused', () => audio.evaluate((a) => a.paused), true);
      await until('the button offers Play', () => page.getByTestId('player-toggle').getAttribute('aria-label'), 'Play');
      assert.equal(await page.evaluate(() => navigator.mediaSession.playbackState), 'paused');
      await page.evaluate(() => window.__msHandlers.play({ action: 'play' }));
      await until('playing again', () => audio.evaluate((a) => a.paused), false);
    });

    await step('the music goes on while moving to another page', async () => {
      const audio = page.getByTestId('player-audio');
      const before = await audio.evaluate((a) => a.currentTime);
      await page.getByRole('link', { name: 'Files', exact: true }).click();
      await page.waitForURL(/\/files$/);
      await page.getByRole('link', { name: 'Photos', exact: true }).click();
      await page.waitForURL(/\/photos$/);
      await waitFor('the time going on', () => audio.evaluate((a) => a.currentTime), (t) => t > before + 0.5, 10000);
      assert.equal(await audio.evaluate((a) => a.paused), false);
      assert.equal(await text(page.getByTestId('player-title')), 'Sine Song');
      await page.getByTestId('player-toggle').click();
      await until('paused by the bar', () => audio.evaluate((a) => a.paused), true);
    });

    await step('playlists: a new one from a track row, a track added, kept after a reload', async () => {
      await page.goto(`${ui.origin}/music/tracks`);
      const row = (title) => page.locator(`[data-testid=track-row][data-title="${title}"]`);
      await row('Sine Song').getByTestId('add-to-playlist').click();
      const dialog = page.getByTestId('add-to-playlist');
      await dialog.getByTestId('new-playlist-name').fill('Road Trip');
      await page.getByRole('button', { name: 'Create and add' }).click();
      await page.getByTestId('toasts').getByText('Sine Song added to Road Trip').waitFor();
      await row('Second Song').getByTestId('add-to-playlist').click();
      await page.getByTestId('add-to-playlist').getByRole('button', { name: /^Road Trip/ }).click();
      await page.getByTestId('toasts').getByText('Second Song added to Road Trip').waitFor();
      await page.getByTestId('tab-playlists').click();
      const item = page.getByTestId('playlist').filter({ hasText: 'Road Trip' });
      await item.waitFor();
      assert.match(await text(item), /2 tracks/);
      await item.getByRole('link', { name: 'Road Trip' }).click();
      await page.waitForURL(/\/music\/playlists\/[^/]+$/);
      const titles = () => page.getByTestId('track-row').evaluateAll((rs) => rs.map((r) => r.dataset.title));
      await until('playlist tracks', titles, ['Sine Song', 'Second Song']);
      await page.reload();
      assert.equal(await text(page.getByTestId('playlist-name')), 'Road Trip');
      await until('playlist tracks after a reload', titles, ['Sine Song', 'Second Song']);
    });

    await step('playlists: Move down and Alt+arrows reorder, the order is saved; export lists the files', async () => {
      const titles = () => page.getByTestId('track-row').evaluateAll((rs) => rs.map((r) => r.dataset.title));
      const saved = () => page.waitForResponse((r) => r.request().method() === 'PUT' && /\/api\/v1\/playlists\/[^/]+\/items$/.test(r.url()));
      let put = saved();
      await page.getByRole('button', { name: 'Move Sine Song down' }).click();
      assert.equal((await put).status(), 200);
      await until('order after Move down', titles, ['Second Song', 'Sine Song']);
      // At the bottom "down" is disabled: the focus is on "up" of the same track.
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Move Sine Song up');
      await page.reload();
      await until('order after a reload', titles, ['Second Song', 'Sine Song']);
      await page.getByRole('button', { name: 'Move Second Song down' }).focus();
      put = saved();
      await page.keyboard.press('Alt+ArrowDown');
      await put;
      await until('order after Alt+ArrowDown', titles, ['Sine Song', 'Second Song']);
      assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Move Second Song up');
      const href = await page.getByTestId('export-playlist').getAttribute('href');
      assert.match(href, /^\/api\/v1\/playlists\/[^/]+\/m3u8$/);
      const m3u = await page.evaluate(async (u) => {
        const r = await fetch(u);
        return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
      }, href);
      assert.equal(m3u.status, 200);
      assert.match(m3u.type, /mpegurl/);
      const lines = m3u.body.split('\n').filter((l) => l && !l.startsWith('#'));
      assert.deepEqual(lines, ['Music/sine.mp3', 'Music/second.mp3']);
      // Play the playlist.
      await page.getByTestId('play-playlist').click();
      await until('playing the playlist', () => text(page.getByTestId('player-title')), 'Sine Song');
      await page.getByTestId('player-stop').click();
      await page.getByTestId('player-bar').waitFor({ state: 'hidden' });
    });

    await step('playlists: import an M3U8 (one line missing), rename, delete', async () => {
      await page.getByTestId('tab-playlists').click();
      await page.getByTestId('import-playlist-file').setInputFiles({
        name: 'Imported Mix.m3u8',
        mimeType: 'audio/x-mpegurl',
        buffer: Buffer.from('#EXTM3U\n#EXTINF:20,Test Artist - Second Song\nMusic/second.mp3\nMusic/not-there.mp3\n'),
      });
      await page.waitForURL(/\/music\/playlists\/[^/]+$/);
      await page.getByTestId('toasts').getByText('Imported Imported Mix; one entry names no file you can read').waitFor();
      await until('imported name', () => text(page.getByTestId('playlist-name')), 'Imported Mix');
      await until('imported tracks', () => page.getByTestId('track-row').evaluateAll((rs) => rs.map((r) => r.dataset.title)), ['Second Song']);
      await page.getByTestId('rename-playlist').click();
      const input = page.getByRole('dialog').getByLabel('Name');
      await input.fill('Renamed Mix');
      await page.getByRole('dialog').getByRole('button', { name: 'Rename' }).click();
      await until('renamed', () => text(page.getByTestId('playlist-name')), 'Renamed Mix');
      await page.getByTestId('delete-playlist').click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.waitForURL(/\/music\/playlists$/);
      await until(
        'playlists after the delete',
        () => page.getByTestId('playlist').evaluateAll((ps) => ps.map((p) => p.querySelector('a').textContent.trim())),
        ['Road Trip'],
      );
      const lists = (await admin.call('GET', '/api/v1/playlists')).playlists.map((p) => p.name);
      assert.deepEqual(lists, ['Road Trip']);
    });

    await step('no CSP violations, page errors or browser dialogs', async () => {
      assert.deepEqual(problems, []);
    });
  } finally {
    await browser.close().catch(() => {});
    await ui.stop();
    await nubo.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

finish(main);
