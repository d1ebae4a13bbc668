// A two-player block wargame whose rules text is Russian, played in Russian against a bot: the
// ruleset is picked by its id from the API, the first offered choice of each of the player's own
// decisions is clicked in the decision panel, and at a laptop's and a phone's size no text of the
// UI or of the ruleset falls back to English and no catalogue key is shown raw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { allText, api, BASE, createGame, enterGame, launch, openPage, ROOT, shot, SHOTS } from './lib.mjs';
import { acknowledgeSummary, screenState, setPace, waitForTurn } from './play.mjs';

const RULESET = 'sekigahara';
const DECISIONS = 8;
const SIZES = [
  [1280, 800],
  [390, 844],
];

/** The fallbacks the page counted so far (see i18n.js). */
async function fallbacks(page) {
  return page.evaluate(() => [...(window.tenkaI18nFallbacks || [])]);
}

/** The catalogue keys (the UI's and the ruleset's) that stand as words in the page's text. */
async function rawKeys(page, keys) {
  const text = await allText(page);
  return keys.filter((key) => new RegExp(`(^|[^\\w.-])${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w.-])`).test(text));
}

/** Clicks the first choice of the decision panel; returns the answer's HTTP status. */
async function pickFirst(page) {
  const before = (await screenState(page)).version;
  const responded = page.waitForResponse((r) => r.url().includes('/actions') && r.request().method() === 'POST', { timeout: 30000 });
  const multi = (await page.locator('.decision-panel [data-action="send"]').count()) > 0;
  const buttons = page.locator('.decision-panel [data-choice-button]');
  if (!multi) await buttons.first().click();
  else {
    // A decision taking several answers: the first as many as it needs, then send.
    const min = Number(await page.locator('.decision-panel form.decision').getAttribute('data-min'));
    for (let i = 0; i < Math.max(1, min); i += 1) await buttons.nth(i).click();
    await page.locator('.decision-panel [data-action="send"]').click();
  }
  const response = await responded.catch(async (err) => {
    await shot(page, 'block-wargame-ru-no-answer');
    throw err;
  });
  if (response.status() === 200) {
    await page.waitForFunction(
      (v) => Number(document.querySelector('.game')?.dataset.version) > v || !!document.querySelector('.handover:not([hidden]), dialog.summary-dialog[open], .story:not([hidden]):not(.idle)'),
      before,
      { timeout: 30000 },
    );
  }
  return response.status();
}

/** The ruleset under test, as the API lists it. */
async function theRuleset() {
  const rulesets = await api('/api/rulesets');
  const ruleset = rulesets.find((r) => r.id === RULESET);
  assert.ok(ruleset, `the server lists ${RULESET}`);
  return ruleset;
}

test('block wargame: the lobby in Russian shows the ruleset\'s variants and options in Russian', { timeout: 2 * 60 * 1000 }, async () => {
  await theRuleset();
  const browser = await launch();
  try {
    // A browser asking for Russian gets the page in Russian without choosing it.
    const page = await openPage(browser, { locale: 'ru-RU' });
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('[data-seat-kind]');
    assert.equal(await page.locator('#language').inputValue(), 'ru');
    // The server's default ruleset may have no Russian catalogue: its texts fall back to English
    // key by key, never to a raw key, and the UI's own texts are all Russian.
    const other = await fallbacks(page);
    assert.deepEqual(other.filter((entry) => entry.startsWith('ui:') || entry.endsWith(':raw')), [], 'the lobby shows no English UI text and no raw key');
    assert.ok(other.every((entry) => entry.startsWith('ruleset:ru:')), `the lobby's fallbacks are the Russian page's (${other.join(', ')})`);
    // The lobby with this ruleset chosen, opened afresh so only its texts count: its variants,
    // option groups, options and values are all Russian.
    await page.goto(`${BASE}/#/?ruleset=${RULESET}`);
    await page.reload();
    await page.waitForSelector('[data-seat-kind]');
    assert.equal(await page.locator('#new-ruleset').inputValue(), RULESET);
    for (const group of await page.locator('[data-option-group]').all()) await group.evaluate((el) => { el.open = true; });
    await page.waitForTimeout(250);
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(250);
      await page.screenshot({ path: path.join(SHOTS, `block-wargame-ru-lobby-${width}.png`), fullPage: true });
    }
    assert.deepEqual(await fallbacks(page), [], 'the lobby of this ruleset shows no text in English and no raw key');
    page.check();
  } finally {
    await browser.close();
  }
});

test('block wargame: a game against a bot in Russian shows no English fallback and no raw key', { timeout: 10 * 60 * 1000 }, async () => {
  const ruleset = await theRuleset();
  assert.equal(ruleset.min_seats, 2, 'a two-player game');
  const catalogue = await api(`/api/rulesets/${RULESET}/catalogue/ru`);
  assert.ok(Object.keys(catalogue).length > 0, 'the ruleset has a Russian catalogue');
  const ui = JSON.parse(fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', 'en.json'), 'utf8'));
  const keys = [...new Set([...Object.keys(catalogue), ...Object.keys(ui)])];
  const map = ((ruleset.maps || []).find((m) => m.valid !== false) || (ruleset.maps || [])[0] || {}).id;
  const browser = await launch();
  try {
    const page = await openPage(browser, { locale: 'ru-RU' });
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('#language');
    await setPace(page, 'instant');
    await createGame(page, { ruleset: RULESET, map, seats: ['human', 'bot:random'], seed: '5e4100'.padEnd(64, '0') });
    await enterGame(page);
    await page.waitForSelector('.game[data-version]');
    // The lobby counted its own texts (see the test above); from here only the game page's count.
    await page.reload();
    await page.waitForSelector('.game[data-version]');
    assert.deepEqual(await fallbacks(page), []);
    assert.equal(await page.evaluate(() => document.documentElement.lang), 'ru');
    let answered = 0;
    for (let step = 0; answered < DECISIONS && step < 4 * DECISIONS; step += 1) {
      await waitForTurn(page);
      if (await acknowledgeSummary(page)) continue;
      if ((await screenState(page)).status === 'finished') break;
      if (!(await page.locator('.decision-panel:not([hidden]) [data-choice-button]').count())) break;
      if (answered === 0 || answered === DECISIONS - 1) {
        for (const [width, height] of SIZES) {
          await page.setViewportSize({ width, height });
          await page.waitForTimeout(250);
          await shot(page, `block-wargame-ru-${answered}-${width}`);
        }
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      assert.deepEqual(await rawKeys(page, keys), [], `no raw key before decision ${answered + 1}`);
      assert.equal(await pickFirst(page), 200, `the first choice of decision ${answered + 1} is accepted`);
      answered += 1;
    }
    assert.ok(answered >= 3, `several decisions were played (${answered})`);
    // The log, the board and the story told every step so far in Russian.
    assert.deepEqual(await fallbacks(page), [], 'no text fell back to English or to its key');
    assert.deepEqual(await rawKeys(page, keys), [], 'no raw key at the end');
    page.check();
  } finally {
    await browser.close();
  }
});
