#!/usr/bin/env node
// Benchmark (not a test): a 20,000-entry folder in the virtualized list.
//   NUBO_BIN=/work/main/build/test/nubo npm run bench
// Seeds the folder through the API (multipart POST /nodes/{id}/upload, 1000
// files per request), opens it in headless Chromium and prints
//   - time from navigation start to the first rows painted
//   - DOM row count at first paint, the most seen while scrolling, and after
//     scrolling to the very end (it must stay bounded, not grow with the folder)
//   - time to scroll through every page (40 keyset pages of 500)
// ENTRIES (default 20000) changes the folder size.
import { startNubo, uiOrigin, launchChromium, apiSession, setupAdmin } from '../e2e/lib.mjs';

const ENTRIES = Number(process.env.ENTRIES ?? 20000);
const ADMIN = { username: 'bench', password: 'bench password 1' };
const entryName = (i) => `entry-${String(i).padStart(6, '0')}.txt`;

async function seed(base) {
  await setupAdmin(base, ADMIN.username, ADMIN.password);
  const api = await apiSession(base, ADMIN.username, ADMIN.password);
  const folder = await api.mkdir(await api.rootId(), 'big');
  const t0 = performance.now();
  await api.uploadMany(folder.id, ENTRIES, entryName);
  console.log(`seeded ${ENTRIES} entries in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return folder.id;
}

async function main() {
  const nubo = await startNubo();
  const ui = await uiOrigin(nubo.url);
  const browser = await launchChromium();
  try {
    const folderId = await seed(nubo.url);
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(ui.origin + '/login');
    await page.locator('input[name=username]').fill(ADMIN.username);
    await page.locator('input[name=password]').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/files/);

    // A fresh navigation straight to the big folder (a cold page load).
    await page.goto(ui.origin + '/files/' + folderId);
    await page.waitForSelector('[role=option]');
    const firstRows = await page.evaluate(
      () =>
        new Promise((resolve) =>
          requestAnimationFrame(() =>
            resolve({ ms: performance.now(), rows: document.querySelectorAll('[role=option]').length }),
          ),
        ),
    );

    // Scroll until the last entry is on screen (the header count cannot tell:
    // servers that send item_count show the full count from the start).
    const last = entryName(ENTRIES - 1);
    const t0 = Date.now();
    let maxRows = firstRows.rows;
    for (let i = 0; i < 400; i++) {
      const s = await page.evaluate((lastName) => {
        const v = document.querySelector('[data-testid=file-list]');
        v.scrollTop = v.scrollHeight;
        return {
          rows: document.querySelectorAll('[role=option]').length,
          atEnd: !!document.querySelector(`[role=option][data-name="${lastName}"]`),
        };
      }, last);
      maxRows = Math.max(maxRows, s.rows);
      if (s.atEnd) break;
      await page.waitForTimeout(50);
    }
    await page.waitForTimeout(200);
    const end = await page.evaluate(() => ({
      rows: document.querySelectorAll('[role=option]').length,
      label: document.querySelector('.count')?.textContent?.trim(),
      lastName: [...document.querySelectorAll('[role=option]')].pop()?.getAttribute('data-name'),
    }));
    const scrollMs = Date.now() - t0;
    maxRows = Math.max(maxRows, end.rows);

    console.log(`UI served by ${ui.mode}`);
    console.log(`first rows painted: ${firstRows.ms.toFixed(0)} ms after navigation start (${firstRows.rows} rows in the DOM)`);
    console.log(`scrolled to the end in ${scrollMs} ms; the list says "${end.label}", last row ${end.lastName}`);
    console.log(`DOM rows after scrolling to the end: ${end.rows} (max seen ${maxRows}) for ${ENTRIES} entries`);
    if (maxRows > 100) {
      console.error('FAIL: the DOM row count is not bounded');
      process.exitCode = 1;
    }
  } finally {
    await browser.close();
    await ui.stop();
    await nubo.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
