// The variant lab, tried as a new user would: from the header, pick rules to try and a handful of
// games of random bots, follow the run to its report (shown in the page and downloadable), then
// start a long run and cancel it. Screenshots at 1280x800 and 390x844.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { api, BASE, openPage, pickRuleset, shot, withBrowser } from './lib.mjs';

/** A catalogue key as a word ("score.buildings", "log.attack-player-won"). */
const RAW_KEY = /(^|[^\w.])[a-z]+\.[a-z][a-z0-9-]*($|[^\w.])/m;

/** Waits until the lab's job panel shows one of `statuses`. */
async function waitForStatus(page, statuses, timeout) {
  await page.waitForFunction((wanted) => wanted.includes(document.querySelector('[data-lab-status]')?.dataset.labStatus), statuses, { timeout });
  return page.locator('[data-lab-status]').getAttribute('data-lab-status');
}

test('a small lab run goes to its report, and a long one can be cancelled', { timeout: 10 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const variant = (ruleset.variants || []).find((v) => Object.keys(v.options || {}).length);
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.click('.topbar nav a[href="#/lab"]');
    await page.waitForSelector('#lab-ruleset');
    await page.selectOption('#lab-ruleset', ruleset.id);
    await page.waitForFunction((id) => document.querySelector('#lab-ruleset')?.value === id, ruleset.id);
    if (variant) {
      await page.selectOption('#lab-variant', variant.id);
      // The option form follows the variant, as in the lobby.
      await page.waitForFunction(() => !document.querySelector('#lab-variant-hint')?.hidden);
    }
    const players = ruleset.min_seats;
    await page.selectOption('#lab-players', String(players));
    await page.fill('#lab-games', '3');
    await page.selectOption('#lab-bot', 'random');
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'lab-01-form');

    await page.click('[data-action="try"]');
    await page.waitForSelector('[data-lab-status]');
    assert.match(page.url(), /#\/lab\?job=/, 'the job goes into the address');
    const status = await waitForStatus(page, ['finished', 'failed'], 5 * 60 * 1000);
    assert.equal(status, 'finished', await page.locator('.lab-job').innerText());
    const jobId = new URL(page.url()).hash.split('job=')[1];
    const job = await api(`/api/lab/${jobId}`);
    assert.equal(job.games_done, 6, 'three games of each rule set');
    if (variant) assert.equal(job.request.rules, variant.id);
    assert.equal(await page.locator('.lab-table tbody tr[data-seat]').count(), players, 'a win-rate row per seat');
    const shownLength = await page.locator('.lab-table tbody tr').nth(2 * players).locator('td').first().innerText();
    // The seed the page shows is the job's, to the last digit.
    assert.ok((await page.locator('.lab-job .hint').first().innerText()).includes(String(job.request.seed)), 'the seed is shown exactly');
    if (variant) assert.equal(await page.locator('.lab-table thead th').nth(1).innerText(), await page.locator('#lab-variant option:checked').innerText(), 'the rules are named as in the form');
    assert.equal(shownLength, (Math.round(job.summary.arms[0].mean_actions * 10) / 10).toLocaleString('en-GB'), 'the figures are the job’s');

    // The report in the page: a sandboxed frame with the server's self-contained page.
    const frame = page.locator('.lab-report-frame');
    assert.equal(await frame.getAttribute('sandbox'), '', 'the frame may run nothing');
    assert.equal(await frame.getAttribute('src'), job.report_url);
    const heading = await page.frameLocator('.lab-report-frame').locator('h1').innerText({ timeout: 30000 });
    assert.match(heading, /Balance report/);
    assert.ok(await page.frameLocator('.lab-report-frame').locator('svg').count(), 'the report draws its plots');
    await frame.scrollIntoViewIfNeeded();
    await shot(page, 'lab-02-report');

    // And as a file.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="download"]')]);
    assert.match(download.suggestedFilename(), /\.html$/);
    const saved = fs.readFileSync(await download.path(), 'utf8');
    assert.ok(saved.includes('<svg') && !saved.includes('<script'), 'the saved report is self-contained and has no script');

    // On a phone, the same job (from its address) and the form.
    const phone = await openPage(browser, { width: 390, height: 844 });
    await phone.goto(`${BASE}/#/lab?job=${jobId}`);
    await waitForStatus(phone, ['finished'], 30000);
    await phone.locator('.lab-job').scrollIntoViewIfNeeded();
    await shot(phone, 'lab-03-phone-figures');
    const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `nothing is wider than the phone (${overflow} px too wide)`);
    await phone.locator('.lab-report-frame').scrollIntoViewIfNeeded();
    await shot(phone, 'lab-04-phone-report');
    await phone.evaluate(() => window.scrollTo(0, 0));
    await shot(phone, 'lab-05-phone-form');
    phone.check();

    // A long run, cancelled: it stops, and says how far it went.
    await page.fill('#lab-games', '200');
    await page.click('[data-action="try"]');
    await waitForStatus(page, ['running'], 30000);
    await page.waitForFunction(() => Number(document.querySelector('.lab-progress')?.value) >= 1, null, { timeout: 60000 });
    await shot(page, 'lab-06-running');
    // Enough games that the rule sets can differ significantly, in the figures' plain words.
    await page.waitForFunction(() => Number(document.querySelector('.lab-progress')?.value) >= 30, null, { timeout: 3 * 60 * 1000 });
    await page.click('[data-action="cancel"]');
    assert.equal(await waitForStatus(page, ['cancelled'], 60000), 'cancelled');
    const lines = await page.locator('.lab-differences').innerText();
    assert.ok(!/<\/?code>|&lt;|&amp;/.test(lines), `the differences are plain words: ${lines}`);
    // regression_lab_differences_showed_catalogue_keys: "The points total for score.buildings
    // differs" named the ruleset's score lines and events by their keys.
    assert.ok(!RAW_KEY.test(lines), `the differences name no catalogue key: ${lines}`);
    const cancelledId = new URL(page.url()).hash.split('job=')[1];
    assert.notEqual(cancelledId, jobId);
    const cancelled = await api(`/api/lab/${cancelledId}`);
    assert.ok(cancelled.games_done < cancelled.games_total, `the run stopped early (${cancelled.games_done} of ${cancelled.games_total})`);
    await page.evaluate(() => window.scrollTo(0, 0));
    await shot(page, 'lab-07-cancelled');

    // In another language the page follows the same job, in that language's words.
    for (const [lang, width, height] of [['ru', 1280, 800], ['de', 390, 844]]) {
      await page.setViewportSize({ width, height });
      await page.selectOption('#language', lang);
      await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      await waitForStatus(page, ['cancelled'], 30000);
      assert.equal(await page.locator('#lab-games').inputValue(), '200', 'the form shows what the job asked for');
      if (variant) assert.equal(await page.locator('#lab-variant').inputValue(), variant.id);
      const wide = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(wide <= 1, `${lang}: nothing is wider than the window (${wide} px too wide)`);
      await page.locator('.lab-job').scrollIntoViewIfNeeded();
      const said = await page.locator('.lab-differences').innerText();
      assert.ok(!RAW_KEY.test(said) && !/ differs: /.test(said), `${lang}: the differences are in the page's words: ${said}`);
      await shot(page, `lab-08-${lang}-${width}`);
    }
    page.check();
  });
});
