// A two-player block wargame whose rules text is Russian, played in Russian against a bot: the
// ruleset is picked by its id from the API, the first offered choice of each of the player's own
// decisions is clicked in the decision panel, and at a laptop's and a phone's size no text of the
// UI or of the ruleset falls back to English and no catalogue key is shown raw.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { allText, api, BASE, createGame, enterGame, openPage, playableMap, ROOT, shot, SHOTS, withBrowser } from './lib.mjs';
import { acknowledgeSummary, actionAnswered, answer, newStats, rng, screenMovedOn, screenProblems, screenState, setPace, waitForTurn } from './play.mjs';

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

/**
 * The fallbacks of this page's UI texts and of one ruleset's: the lobby's game lists may show
 * other rulesets' games, whose catalogues need not have the page's language.
 */
async function fallbacksOf(page, rulesetId) {
  return page.evaluate((id) => [...(window.tenkaI18nFallbacks || []).filter((e) => e.startsWith('ui:')), ...((window.tenkaI18nRulesetFallbacks || {})[id] || [])], rulesetId);
}

/** The catalogue keys (the UI's and the ruleset's) that stand as words in the page's text. */
async function rawKeys(page, keys) {
  const text = await allText(page);
  return keys.filter((key) => new RegExp(`(^|[^\\w.-])${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\w.-])`).test(text));
}

/** Clicks the first choice of the decision panel; returns the answer's HTTP status. */
async function pickFirst(page) {
  const before = (await screenState(page)).version;
  const responded = actionAnswered(page);
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
    await screenMovedOn(page, before);
  }
  return response.status();
}

/** The Russian catalogue of the ruleset and every key (the UI's and the ruleset's) a page may show. */
async function russianKeys() {
  const catalogue = await api(`/api/rulesets/${RULESET}/catalogue/ru`);
  const ui = JSON.parse(fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', 'en.json'), 'utf8'));
  return { catalogue, keys: [...new Set([...Object.keys(catalogue), ...Object.keys(ui)])] };
}

/**
 * A page in Russian at a new game against a random bot, made from the lobby with `seed`, the
 * story at the instant pace, reloaded so that only the game page's own texts are counted (the
 * lobby has its own test). Answers the page and the game's id.
 */
async function russianGame(browser, ruleset, seed) {
  const page = await openPage(browser, { locale: 'ru-RU' });
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('#language');
  await setPace(page, 'instant');
  const gameId = await createGame(page, { ruleset: RULESET, map: playableMap(ruleset), seats: ['human', 'bot:random'], seed: seed.padEnd(64, '0') });
  await enterGame(page);
  await page.waitForSelector('.game[data-version]');
  await page.reload();
  await page.waitForSelector('.game[data-version]');
  return { page, gameId };
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
  await withBrowser(async (browser) => {
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
    assert.deepEqual(await fallbacksOf(page, RULESET), [], 'the lobby of this ruleset shows no text in English and no raw key');
    page.check();
  });
});

test('block wargame: a game against a bot in Russian shows no English fallback and no raw key', { timeout: 10 * 60 * 1000 }, async () => {
  const ruleset = await theRuleset();
  assert.equal(ruleset.min_seats, 2, 'a two-player game');
  const { catalogue, keys } = await russianKeys();
  assert.ok(Object.keys(catalogue).length > 0, 'the ruleset has a Russian catalogue');
  await withBrowser(async (browser) => {
    const { page } = await russianGame(browser, ruleset, '5e4100');
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
  });
});

/**
 * Words in Latin letters on the page: in Russian, a text the catalogues do not translate (a name
 * passed as plain text, say) shows this way, which the fallback count cannot see. The brand is
 * the one Latin word expected.
 */
async function latinWords(page) {
  const words = (await allText(page)).match(/(?<![\p{L}\d])[A-Za-z][A-Za-z'-]{2,}(?![\p{L}\d])/gu) || [];
  // The language menu names each language in itself.
  const languages = await page.locator('#language option').allTextContents();
  return [...new Set(words)].filter((word) => word !== 'Tenka' && !languages.some((name) => name.includes(word)));
}

/** The prompt key of the viewer's pending decision, from the API (the screen shows it translated). */
async function promptKey(gameId, token) {
  const view = await api(`/api/games/${gameId}/view`, { token });
  return ((view.pending || [])[0] || {}).prompt?.key || null;
}

/** Screenshots at a laptop's and a phone's size, the map in sight; back to the laptop's size. */
async function bothSizes(page, name, { map = false } = {}) {
  for (const [width, height] of SIZES) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(150);
    if (map) await page.locator('.board').scrollIntoViewIfNeeded();
    await shot(page, `${name}-${width}`);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

test('block wargame: a whole game against a random bot is played by clicking in Russian to its result', { timeout: 10 * 60 * 1000 }, async () => {
  const started = Date.now();
  const ruleset = await theRuleset();
  const { catalogue, keys } = await russianKeys();
  await withBrowser(async (browser) => {
    const { page, gameId } = await russianGame(browser, ruleset, '5e4101');
    const token = await page.evaluate((id) => JSON.parse(localStorage.getItem('tenka.games.v1'))[id].seats['0'], gameId);
    const random = rng(1600);
    const stats = newStats();
    const shots = new Set();
    const problems = new Set();
    // The first sighting of each raw key or Latin word, with the decision it was seen before.
    const seen = new Map();
    let steps = 0;
    while (steps < 1500) {
      await waitForTurn(page);
      if (await acknowledgeSummary(page, stats)) continue;
      if ((await screenState(page)).status === 'finished') break;
      for (const key of await rawKeys(page, keys)) if (!seen.has(key)) seen.set(key, `raw key ${key} before decision ${steps + 1}`);
      for (const word of await latinWords(page)) if (!seen.has(word)) seen.set(word, `"${word}" in Latin letters before decision ${steps + 1}`);
      const prompt = await promptKey(gameId, token);
      // A destination to move to: the path of the first one is shown on the map (the board's
      // generic preview of a choice) while its button has the focus, then it is confirmed.
      const route = page.locator('.board-canvas [data-preview-of]').first();
      if (!shots.has('move') && (await route.count())) {
        const index = Number(await route.getAttribute('data-preview-of'));
        const button = page.locator('.decision-panel [data-choice-button]').nth(index);
        const path = page.locator(`.board-canvas [data-preview-of="${index}"]`).first();
        for (const [width, height] of SIZES) {
          await page.setViewportSize({ width, height });
          await page.waitForTimeout(150);
          // The map in sight (on a phone it is under the decision), the choice focused.
          await page.locator('.board').evaluate((el) => el.scrollIntoView({ block: 'end' }));
          await button.evaluate((el) => { el.blur(); el.focus({ preventScroll: true }); });
          await page.waitForTimeout(100);
          assert.ok(await path.isVisible(), `the path of the focused destination is drawn on the map at ${width} px`);
          await shot(page, `block-wargame-ru-move-${width}`);
        }
        await page.setViewportSize({ width: 1280, height: 800 });
        shots.add('move');
        const before = (await screenState(page)).version;
        await button.click();
        await page.waitForFunction((v) => Number(document.querySelector('.game')?.dataset.version) > v, before, { timeout: 30000 });
        steps += 1;
        continue;
      }
      // The blocks a card deploys: the deployment is told at a readable pace and caught mid-battle.
      const watchBattle = !shots.has('battle') && prompt === 'prompt.deploy-blocks';
      if (watchBattle) await setPace(page, 'slow');
      const outcome = await answer(page, random, stats, 0).catch(async (err) => {
        await shot(page, 'block-wargame-ru-failed');
        throw new Error(`decision ${steps + 1} (${prompt}): ${err.message}`);
      });
      assert.notEqual(outcome, 'rejected', `decision ${steps + 1} (${prompt}) was refused`);
      if (watchBattle) {
        const told = await page
          .waitForFunction(() => {
            const last = (window.tenkaCaptions || []).at(-1);
            return last && ['event.deploy', 'event.deploy-plain'].includes(last.key) && !!document.querySelector('.story:not([hidden]):not(.idle)');
          }, null, { timeout: 8000, polling: 50 })
          .then(() => true, () => false);
        if (told) {
          await page.locator('.story').evaluate((el) => el.scrollIntoView({ block: 'nearest' }));
          await shot(page, 'block-wargame-ru-battle-1280');
          await page.setViewportSize({ width: 390, height: 844 });
          await page.locator('.story').scrollIntoViewIfNeeded();
          await shot(page, 'block-wargame-ru-battle-390');
          await page.setViewportSize({ width: 1280, height: 800 });
          shots.add('battle');
        }
        await setPace(page, 'instant');
        await page.locator('.story [data-action="story-skip-all"]').click({ timeout: 2000 }).catch(() => {});
      }
      steps += 1;
    }
    await page.waitForSelector('.results');
    await page.waitForTimeout(300);
    await bothSizes(page, 'block-wargame-ru-result');
    const game = await api(`/api/games/${gameId}`);
    assert.equal(game.status, 'finished', 'the game ended');
    const log = await api(`/api/games/${gameId}/log?since=0`, { token });
    const logKeys = log.flatMap((entry) => (entry.events || []).map((event) => event.text.key));
    assert.ok(logKeys.some((k) => k.startsWith('event.win-')), `the log tells the result (${[...new Set(logKeys)].slice(-5).join(', ')})`);
    for (const key of await rawKeys(page, keys)) problems.add(`raw key ${key} on the results`);
    for (const word of await latinWords(page)) problems.add(`"${word}" in Latin letters on the results`);
    for (const problem of seen.values()) problems.add(problem);
    for (const problem of stats.screenProblems || []) problems.add(problem);
    for (const problem of await screenProblems(page)) problems.add(problem);
    assert.deepEqual(await fallbacks(page), [], 'no text of the game fell back to English or to its key');
    assert.deepEqual([...problems], [], 'every screen shows its texts in Russian, whole');
    assert.ok(shots.has('move'), 'a move was shown with its path');
    assert.ok(shots.has('battle'), 'a deployment was caught mid-battle');
    console.log(`# block wargame: ${steps} decisions in ${Math.round((Date.now() - started) / 1000)} s; ${JSON.stringify({ ...stats, placements: undefined })}`);
    page.check();
  });
});
