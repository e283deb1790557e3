#!/usr/bin/env node
// End-to-end: the Calendars and Contacts pages in headless Chromium against
// a real nubo (CalDAV/CardDAV at /remote.php/dav/ with the browser session).
//   NUBO_BIN=/work/main/build/test/nubo node e2e/groupware.mjs   (npm run e2e runs it after run.mjs)
// Flow: the administrator (made through the API) signs in → Calendars from
// the navigation shows "Personal" and the addresses for DAVx⁵/Thunderbird →
// creates a calendar with a colour → imports an .ics with two events (one in
// the next 30 days, one after; dates from the test's clock) → the agenda
// shows the first in the calendar's colour, not the second → importing again
// skips both → renames the calendar (checked on the server) → exports it
// (both UIDs in the download) → imports an .ics from the drive through the
// file picker → deletes the calendar after a confirmation → Contacts from the
// navigation shows the default address book → imports a .vcf with two cards,
// one without UID (given one before sending) → both names, emails and phones
// listed (and stored on the server, each with a UID).
// Like run.mjs: every step fails on a CSP violation or page error it causes,
// the page is held to style-src 'self', failures save a screenshot to
// e2e/artifacts/, the last line is "N passed, N failed" and the exit code is
// non-zero when any step failed.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { makeRun, startNubo, uiOrigin, launchChromium, apiSession, setupAdmin } from './lib.mjs';

const ADMIN = { user: 'admin', pass: 'correct horse 1' };
const DAY = 86_400_000;
let page;
const { steps, problems, step, until, enforceStrictStyles, watchedPage, finish } = makeRun({
  prefix: 'groupware-',
  page: () => page,
});

const title = (want) => until('document title', () => page.title(), want);
const text = async (locator) => ((await locator.textContent()) ?? '').trim();


/** DAV requests as the administrator (a bearer token), to check what the UI did on the server. */
async function davSession(base, username, password) {
  const res = await fetch(base + '/api/v1/auth/login', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (!res.ok) throw new Error(`login as ${username}: ${res.status}`);
  const { access_token: token } = await res.json();
  return async (method, path, { body, depth } = {}) => {
    const headers = { Authorization: `Bearer ${token}` };
    if (depth) headers.Depth = depth;
    if (body) headers['Content-Type'] = 'application/xml; charset=utf-8';
    const r = await fetch(base + path, { method, headers, body });
    return { status: r.status, text: await r.text() };
  };
}

/** "20260105T100000Z" */
const icsTime = (ms) => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

async function main() {
  const nubo = await startNubo();
  const ui = await uiOrigin(nubo.url);
  console.log(`nubo at ${nubo.url}; UI served by ${ui.mode} at ${ui.origin}`);
  const browser = await launchChromium();
  try {
    await setupAdmin(nubo.url, ADMIN.user, ADMIN.pass);
    const dav = await davSession(nubo.url, ADMIN.user, ADMIN.pass);
    const admin = await apiSession(nubo.url, ADMIN.user, ADMIN.pass);
    const ctx = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    await enforceStrictStyles(ctx, ui.origin);
    page = await watchedPage(ctx);

    const HOME = `/remote.php/dav/calendars/${ADMIN.user}/`;
    const collection = (name) => page.locator(`[data-testid=collections] li[data-name="${name}"]`);
    const listedCollections = () =>
      page.evaluate(() => [...document.querySelectorAll('[data-testid=collections] li[data-name]')].map((li) => li.dataset.name));
    const propfind = async (path) => {
      const r = await dav('PROPFIND', path, {
        depth: '1',
        body: '<d:propfind xmlns:d="DAV:" xmlns:A="http://apple.com/ns/ical/"><d:prop><d:displayname/><A:calendar-color/></d:prop></d:propfind>',
      });
      assert.equal(r.status, 207, r.text);
      return r.text;
    };
    const importDialog = (name) => page.getByRole('dialog', { name: `Import into "${name}"` });

    // Two events: one in the next 30 days, one after; all in UTC at 10:00.
    const now = Date.now();
    const soon = Math.floor((now + 2 * DAY) / DAY) * DAY + 10 * 3600_000;
    const later = Math.floor((now + 45 * DAY) / DAY) * DAY + 10 * 3600_000;
    const UID_SOON = `soon-${now}@e2e.nubo`;
    const UID_LATER = `later-${now}@e2e.nubo`;
    const ics = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//nubo e2e//EN',
      'METHOD:PUBLISH',
      'BEGIN:VEVENT',
      `UID:${UID_SOON}`,
      `DTSTAMP:${icsTime(now)}`,
      `DTSTART:${icsTime(soon)}`,
      `DTEND:${icsTime(soon + 3600_000)}`,
      'SUMMARY:Planning\\, with everyone',
      'LOCATION:Room 4',
      'END:VEVENT',
      'BEGIN:VEVENT',
      `UID:${UID_LATER}`,
      `DTSTAMP:${icsTime(now)}`,
      `DTSTART:${icsTime(later)}`,
      `DTEND:${icsTime(later + 3600_000)}`,
      'SUMMARY:Far away',
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n');

    await step('sign in', async () => {
      await page.goto(ui.origin + '/login');
      await page.locator('input[name=username]').fill(ADMIN.user);
      await page.locator('input[name=password]').fill(ADMIN.pass);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(/\/files/, { timeout: 10000 });
    });

    await step('Calendars in the navigation: "Personal", the addresses for apps, an empty agenda', async () => {
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Calendars', exact: true }).click();
      await page.waitForURL(/\/calendars$/);
      await title('Calendars — nubo');
      await page.getByRole('heading', { name: 'Calendars', level: 1 }).waitFor();
      await collection('Personal').waitFor();
      await until('calendars listed', listedCollections, ['Personal']);
      assert.equal(await collection('Personal').getAttribute('data-slug'), 'personal');
      const personal = collection('Personal');
      await personal.getByText('Connect an app').click();
      assert.equal(await text(personal.getByTestId('dav-server-url')), `${ui.origin}/remote.php/dav/`);
      assert.equal(await text(personal.getByTestId('dav-collection-url')), `${ui.origin}${HOME}personal/`);
      const appLink = personal.getByRole('link', { name: 'Create an app password' });
      assert.equal(await appLink.getAttribute('href'), '/profile#app-passwords');
      assert.match(await text(personal.locator('details')), /an app password as the password/);
      await page.getByTestId('agenda-empty').waitFor();
      assert.equal(await text(page.getByTestId('agenda-empty')), 'Nothing in the next 30 days.');
    });

    await step('create a calendar with a colour', async () => {
      await page.getByLabel('New calendar').fill('Work');
      await page.locator('input[name=new-color]').fill('#22aa55');
      await page.getByTestId('new-collection-form').getByRole('button', { name: 'Create' }).click();
      await collection('Work').waitFor();
      await until('calendars listed', listedCollections, ['Personal', 'Work']);
      const slug = await collection('Work').getAttribute('data-slug');
      assert.match(slug, /^work-[a-z0-9]{6}$/);
      const xml = await propfind(HOME);
      assert.ok(xml.includes(`<d:href>${HOME}${slug}/</d:href>`), xml);
      assert.match(xml, /<d:displayname>Work<\/d:displayname>/);
      assert.match(xml, />#22aa55</i);
      assert.equal(await page.getByLabel('New calendar').inputValue(), '', 'the form clears');
    });

    await step('import an .ics with two events; importing it again skips both', async () => {
      await collection('Work').getByRole('button', { name: 'Import' }).click();
      const dialog = importDialog('Work');
      await dialog.waitFor();
      await dialog.getByTestId('import-file').setInputFiles({ name: 'events.ics', mimeType: 'text/calendar', buffer: Buffer.from(ics) });
      await until('import result', () => dialog.getByTestId('import-result').textContent().catch(() => null), '2 imported', 10000);
      const slug = await collection('Work').getAttribute('data-slug');
      const exported = await dav('GET', `${HOME}${slug}/`);
      assert.equal(exported.status, 200);
      assert.ok(exported.text.includes(`UID:${UID_SOON}`) && exported.text.includes(`UID:${UID_LATER}`), exported.text);
      assert.ok(!exported.text.includes('METHOD:'), 'no METHOD in stored objects');
      await dialog.getByTestId('import-file').setInputFiles({ name: 'events.ics', mimeType: 'text/calendar', buffer: Buffer.from(ics) });
      await until('second import result', () => dialog.getByTestId('import-result').textContent().catch(() => null), '0 imported, 2 already there', 10000);
      await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
      await dialog.waitFor({ state: 'detached' });
    });

    await step('the agenda shows the event of the next 30 days in the calendar colour, not the later one', async () => {
      const agenda = page.getByTestId('agenda');
      const item = agenda.locator(`li[data-uid="${UID_SOON}"]`);
      await item.waitFor({ timeout: 10000 });
      assert.equal(await agenda.locator(`li[data-uid="${UID_LATER}"]`).count(), 0, 'the event after 30 days is listed');
      assert.equal(await agenda.locator('li[data-uid]').count(), 1);
      assert.equal(await text(item.locator('.summary')), 'Planning, with everyone');
      assert.equal(await text(item.locator('.place')), 'Room 4');
      assert.match(await text(item), /in Work/);
      // Under the heading of its (local) day, at its (local) time.
      const expected = await page.evaluate((ms) => {
        const d = new Date(ms);
        return {
          day: `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`,
          time: new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit' }).format(d),
        };
      }, soon);
      const heading = await agenda.locator('h3[data-day]').first().getAttribute('data-day');
      assert.equal(heading, expected.day);
      assert.equal(await text(item.locator('time').first()), expected.time);
      const dot = await item.locator('.dot').evaluate((el) => getComputedStyle(el).backgroundColor);
      assert.equal(dot, 'rgb(34, 170, 85)');
    });

    await step('rename the calendar', async () => {
      await collection('Work').getByRole('button', { name: 'Edit' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit calendar' });
      await dialog.waitFor();
      assert.equal(await dialog.getByLabel('Name').inputValue(), 'Work');
      await dialog.getByLabel('Name').fill('Work renamed');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await dialog.waitFor({ state: 'detached' });
      await until('calendars listed', listedCollections, ['Personal', 'Work renamed']);
      const xml = await propfind(HOME);
      assert.match(xml, /<d:displayname>Work renamed<\/d:displayname>/);
      assert.doesNotMatch(xml, /<d:displayname>Work<\/d:displayname>/);
      await page.getByTestId('agenda').locator(`li[data-uid="${UID_SOON}"]`).filter({ hasText: 'in Work renamed' }).waitFor();
    });

    await step('export the calendar: one file with both events', async () => {
      const link = collection('Work renamed').getByRole('link', { name: 'Export' });
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      const body = readFileSync(await download.path(), 'utf8');
      // The server's Content-Disposition names the file (it wins over the link's download name).
      assert.match(download.suggestedFilename(), /\.ics$/);
      assert.match(body, /^BEGIN:VCALENDAR/);
      assert.ok(body.includes(`UID:${UID_SOON}`), body);
      assert.ok(body.includes(`UID:${UID_LATER}`), body);
      assert.equal(body.match(/BEGIN:VEVENT/g)?.length, 2);
    });

    await step('share a calendar with another user, change the access; one shared back shows whose it is', async () => {
      const BEA = { user: 'bea', pass: 'bea password 12' };
      await admin.call('POST', '/api/v1/admin/users', { username: BEA.user, password: BEA.pass });
      const bea = await davSession(nubo.url, BEA.user, BEA.pass);
      await collection('Work renamed').getByRole('button', { name: 'Share' }).click();
      const dialog = page.getByRole('dialog', { name: 'Share "Work renamed"' });
      await dialog.getByText('Not shared with anyone yet.').waitFor();
      await dialog.locator('input[name=sharee]').fill(BEA.user);
      await dialog.getByLabel('They may add and change entries').check();
      await dialog.getByRole('button', { name: 'Share', exact: true }).click();
      await dialog.locator(`li[data-sharee="${BEA.user}"][data-access="read-write"]`).waitFor();
      // Bea finds it in her own home, writable.
      const slug = await collection('Work renamed').getAttribute('data-slug');
      const mount = `/remote.php/dav/calendars/${BEA.user}/${slug}_shared_by_${ADMIN.user}/`;
      const priv = '<d:propfind xmlns:d="DAV:"><d:prop><d:current-user-privilege-set/></d:prop></d:propfind>';
      let r = await bea('PROPFIND', mount, { depth: '0', body: priv });
      assert.equal(r.status, 207, r.text);
      assert.match(r.text, /write-content/);
      // Read-only from the list: her privileges follow.
      await dialog.getByRole('combobox', { name: `Access of ${BEA.user}` }).selectOption('r');
      await dialog.locator(`li[data-sharee="${BEA.user}"][data-access="read"]`).waitFor();
      r = await bea('PROPFIND', mount, { depth: '0', body: priv });
      assert.doesNotMatch(r.text, /write-content/);
      await dialog.getByRole('button', { name: `Stop sharing with ${BEA.user}` }).click();
      await dialog.getByText('Not shared with anyone yet.').waitFor();
      assert.equal((await bea('PROPFIND', mount, { depth: '0', body: priv })).status, 404);
      await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
      // Bea shares one of hers: it shows as hers, read-only, no Edit or Share; leaving it keeps it hers.
      const beaCal = `/remote.php/dav/calendars/${BEA.user}/trips/`;
      r = await bea('MKCALENDAR', beaCal, {
        body: '<C:mkcalendar xmlns:d="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><d:set><d:prop><d:displayname>Trips</d:displayname></d:prop></d:set></C:mkcalendar>',
      });
      assert.equal(r.status, 201, r.text);
      r = await bea('POST', beaCal, {
        body: `<o:share xmlns:d="DAV:" xmlns:o="http://owncloud.org/ns"><o:set><d:href>principal:principals/users/${ADMIN.user}</d:href></o:set></o:share>`,
      });
      assert.equal(r.status, 200, r.text);
      await page.reload();
      const shared = collection('Trips');
      await shared.waitFor();
      assert.equal(await shared.getByTestId('shared-by').textContent(), `Shared by ${BEA.user}\u00a0· read-only`);
      assert.equal(await shared.getByRole('button', { name: 'Edit' }).count(), 0);
      assert.equal(await shared.getByRole('button', { name: 'Share' }).count(), 0);
      assert.equal(await shared.getByRole('button', { name: 'Import' }).count(), 0);
      await shared.getByRole('button', { name: 'Remove from my list' }).click();
      const confirm = page.getByRole('dialog', { name: 'Remove from my list' });
      await confirm.getByRole('button', { name: 'Remove from my list' }).click();
      await shared.waitFor({ state: 'detached' });
      await until('calendars listed', listedCollections, ['Personal', 'Work renamed']);
      assert.equal((await bea('PROPFIND', beaCal, { depth: '0', body: priv })).status, 207, "Bea's calendar stays");
    });

    await step('import an .ics from the drive through the file picker', async () => {
      const root = await admin.rootId();
      const uid = `drive-${now}@e2e.nubo`;
      const fromDrive = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//e2e//EN', 'BEGIN:VEVENT', `UID:${uid}`, `DTSTAMP:${icsTime(now)}`, `DTSTART:${icsTime(soon + DAY)}`, 'SUMMARY:From the drive', 'END:VEVENT', 'END:VCALENDAR', ''].join('\r\n');
      const st = await admin.status('PUT', `/api/v1/nodes/${root}/files/drive-events.ics`, fromDrive);
      assert.ok(st === 200 || st === 201, `upload answered ${st}`);
      assert.equal(await admin.status('PUT', `/api/v1/nodes/${root}/files/notes.txt`, 'not a calendar\n'), 201);
      await collection('Personal').getByRole('button', { name: 'Import' }).click();
      const dialog = importDialog('Personal');
      await dialog.getByTestId('import-drive').click();
      const picker = page.getByRole('dialog', { name: 'Choose a file' });
      await picker.locator('button[data-name="drive-events.ics"]').waitFor();
      assert.equal(await picker.locator('button[data-name="notes.txt"]').count(), 0, 'only .ics files are offered');
      await picker.locator('button[data-name="drive-events.ics"]').click();
      await picker.waitFor({ state: 'detached' });
      await until('import result', () => dialog.getByTestId('import-result').textContent().catch(() => null), '1 imported', 10000);
      await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
      await page.getByTestId('agenda').locator(`li[data-uid="${uid}"]`).filter({ hasText: 'in Personal' }).waitFor();
      const personal = await dav('GET', `${HOME}personal/`);
      assert.ok(personal.text.includes(`UID:${uid}`), personal.text);
    });

    await step('delete the calendar after a confirmation naming it', async () => {
      await collection('Work renamed').getByRole('button', { name: 'Delete' }).click();
      const confirm = page.getByRole('dialog', { name: 'Delete calendar' });
      assert.match(await text(confirm), /Delete the calendar "Work renamed" and all its events for good\?/);
      await confirm.getByRole('button', { name: 'Delete' }).click();
      await collection('Work renamed').waitFor({ state: 'detached' });
      await until('calendars listed', listedCollections, ['Personal']);
      const xml = await propfind(HOME);
      assert.doesNotMatch(xml, /Work renamed/);
      // Its events leave the agenda (which is asked again after the delete).
      await page.getByTestId('agenda').locator(`li[data-uid="${UID_SOON}"]`).waitFor({ state: 'detached', timeout: 5000 });
    });

    const BOOKS = `/remote.php/dav/addressbooks/users/${ADMIN.user}/`;
    const contactRows = () =>
      page.evaluate(() => [...document.querySelectorAll('[data-testid=contact-list] tbody tr')].map((tr) => tr.dataset.name));

    await step('Contacts in the navigation: the default address book, empty', async () => {
      await page.getByRole('navigation', { name: 'Main navigation' }).getByRole('link', { name: 'Contacts', exact: true }).click();
      await page.waitForURL(/\/contacts$/);
      await title('Contacts — nubo');
      await collection('Contacts').waitFor();
      await until('address books listed', listedCollections, ['Contacts']);
      assert.equal(await collection('Contacts').getAttribute('data-slug'), 'contacts');
      const list = page.getByTestId('contact-list');
      await list.getByText('No contacts in this address book yet.').waitFor();
      assert.equal(await list.getByRole('heading', { level: 2 }).textContent(), 'Contacts');
      await collection('Contacts').getByText('Connect an app').click();
      assert.equal(await text(collection('Contacts').getByTestId('dav-collection-url')), `${ui.origin}${BOOKS}contacts/`);
    });

    await step('import a .vcf with two cards, one without UID: both listed', async () => {
      const vcf = [
        'BEGIN:VCARD',
        'VERSION:3.0',
        `UID:ada-${now}`,
        'FN:Ada Lovelace',
        'N:Lovelace;Ada;;;',
        'EMAIL;TYPE=work:ada@example.com',
        'TEL;TYPE=cell:+44 20 7946 0000',
        'END:VCARD',
        'BEGIN:VCARD',
        'VERSION:3.0',
        'FN:Grace Hopper',
        'N:Hopper;Grace;;;',
        'EMAIL:grace@example.com',
        'END:VCARD',
        '',
      ].join('\r\n');
      await collection('Contacts').getByRole('button', { name: 'Import' }).click();
      const dialog = importDialog('Contacts');
      await dialog.getByTestId('import-file').setInputFiles({ name: 'people.vcf', mimeType: 'text/vcard', buffer: Buffer.from(vcf) });
      await until('import result', () => dialog.getByTestId('import-result').textContent().catch(() => null), '2 imported', 10000);
      await dialog.getByRole('button', { name: 'Close', exact: true }).last().click();
      await until('contacts listed', contactRows, ['Ada Lovelace', 'Grace Hopper'], 10000);
      const list = page.getByTestId('contact-list');
      assert.match(await text(list.locator('tr[data-name="Ada Lovelace"]')), /ada@example\.com.*\+44 20 7946 0000/);
      assert.match(await text(list.locator('tr[data-name="Grace Hopper"]')), /grace@example\.com/);
      assert.equal(await text(list.locator('p.muted').first()), '2 contacts');
      // On the server: two cards, each with a UID (Grace's made in the page).
      const r = await dav('GET', `${BOOKS}contacts/`);
      assert.equal(r.status, 200);
      assert.equal(r.text.match(/BEGIN:VCARD/g)?.length, 2, r.text);
      assert.equal(r.text.match(/^UID:.+$/gm)?.length, 2, r.text);
      assert.ok(r.text.includes(`UID:ada-${now}`), r.text);
      const grace = await list.locator('tr[data-name="Grace Hopper"]').getAttribute('data-uid');
      assert.match(grace, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
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
