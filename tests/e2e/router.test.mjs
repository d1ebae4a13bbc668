// The hash router: a screen that finishes loading after the reader has moved on never draws over
// the screen they moved to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, openPage, pickRuleset, playableMap, withBrowser } from './lib.mjs';

test('regression_slow_screen_drew_over_the_next: a lobby still loading does not cover the game opened after it', { timeout: 60000 }, async () => {
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset);
  const seats = Array(ruleset.min_seats).fill({ kind: 'bot', bot: 'random' });
  const created = await api('/api/games', { method: 'POST', body: { ruleset: ruleset.id, ...(map ? { map } : {}), seats } });
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    // The lobby's list of rulesets answers late, so the lobby finishes loading after the game.
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    let asked;
    const requested = new Promise((resolve) => { asked = resolve; });
    let passed;
    const answered = new Promise((resolve) => { passed = resolve; });
    await page.route('**/api/rulesets', async (route) => {
      asked();
      await held;
      await route.continue();
      passed();
    });
    await page.goto(`${BASE}/#/`);
    // The lobby has started loading (on a loaded machine the page may not have got that far yet).
    await requested;
    await page.evaluate((id) => { location.hash = `#/watch/${encodeURIComponent(id)}`; }, created.id);
    await page.waitForSelector('.game[data-version]');
    // The lobby's late answer arrives and is drawn nowhere the reader can see.
    release();
    await answered;
    await page.waitForTimeout(300);
    assert.equal(await page.locator('.lobby').count(), 0, 'the lobby drew over the game');
    assert.equal(await page.locator('.game[data-version]').count(), 1, 'the game is still shown');
    page.check();
  });
});
