// "Since your last move" in the browser: a player whose seat a bot played for a while comes back
// and, in one click, steps through what happened as the seat's own log and board showed it; the
// recap's requests carry the seat's token in a header, never in a URL; it works from the keyboard
// and at phone width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, launch, openPage, pickRuleset, playableMap, shot } from './lib.mjs';

/** Waits until `check` of the spectator's view holds (the server's bots move on their own). */
async function waitForView(gameId, check, what) {
  const deadline = Date.now() + 120000;
  for (;;) {
    const view = await api(`/api/games/${encodeURIComponent(gameId)}/view`);
    if (check(view)) return view;
    if (Date.now() > deadline) throw new Error(`never ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

for (const [width, height, label] of [
  [1280, 800, '1280'],
  [390, 844, '390'],
]) {
  test(`a returning player steps through what they missed in one click (${label})`, { timeout: 5 * 60 * 1000 }, async () => {
    const ruleset = await pickRuleset();
    const map = playableMap(ruleset);
    const seats = [{ kind: 'human', creator: true }, ...Array(Math.max(1, ruleset.min_seats - 1)).fill({ kind: 'bot', bot: 'random' })];
    const created = await api('/api/games', { method: 'POST', body: { ruleset: ruleset.id, ...(map ? { map } : {}), seats, seed: '5eed0033'.padEnd(64, '0') } });
    const gameId = created.id;
    const token = created.seats[0].token;
    // The player leaves the seat to a bot, which plays a few moves for it, and takes it back.
    await api(`/api/games/${encodeURIComponent(gameId)}/seats/0/bot`, { method: 'POST', token, body: { bot: 'random' } });
    await waitForView(gameId, (view) => view.version >= 4 || view.status === 'finished', 'a few moves were made');
    await api(`/api/games/${encodeURIComponent(gameId)}/seats/0/bot`, { method: 'POST', token, body: { bot: null } }).catch(() => null);
    // The other seats' bots may still be moving; the count is only final once the game waits on
    // this seat alone (regression_recap_count_grew_while_bots_moved: with test files running side
    // by side, the button showed 6 where the recap fetched just before had 4).
    await waitForView(gameId, (view) => view.status === 'finished' || (view.waiting_for || []).join() === '0', 'waiting on the returning seat alone');
    const recap = await api(`/api/games/${encodeURIComponent(gameId)}/recap`, { token });
    assert.equal(recap.since, 0, 'the bot\'s moves were not the person\'s');
    const missed = recap.entries.length;
    assert.ok(missed >= 4, `at least four entries were missed, not ${missed}`);

    const browser = await launch();
    try {
      const page = await openPage(browser, { width, height });
      await page.goto(`${BASE}/#/play/${encodeURIComponent(gameId)}?token=${token}`);
      await page.waitForSelector('.game[data-version]');
      // Click 1: the button names how many entries came since.
      const button = page.locator('[data-recap="open"]');
      await button.waitFor();
      assert.equal((await button.innerText()).trim(), `Since your last move (${missed})`);
      await button.click();
      await page.waitForSelector('.recap .recap-counter');
      await page.waitForFunction(() => document.querySelector('.recap .recap-counter')?.textContent.startsWith('Step 1 of'));
      assert.equal(await page.locator('.recap .recap-current').first().getAttribute('data-version'), String(recap.entries[0].version));
      // The board of that step is drawn (the map, or the ruleset's panels when it has no map).
      await page.waitForFunction(() => {
        const board = document.querySelector('.recap .recap-board');
        return board && (board.querySelector(':scope > :not(.no-svg)') || document.querySelector('.recap .seat-parts:not([hidden]), .recap .table-parts:not([hidden])'));
      });
      await shot(page, `recap-01-open-${label}`);
      // Click 2: the next step, with its entry marked; the arrow keys step as well.
      await page.click('[data-recap="next"]');
      await page.waitForFunction(() => document.querySelector('.recap .recap-counter')?.textContent.startsWith('Step 2 of'));
      assert.equal(await page.locator('.recap .recap-current').first().getAttribute('data-version'), String(recap.entries[1].version));
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(() => document.querySelector('.recap .recap-counter')?.textContent.startsWith('Step 3 of'));
      await page.keyboard.press('ArrowLeft');
      await page.waitForFunction(() => document.querySelector('.recap .recap-counter')?.textContent.startsWith('Step 2 of'));
      await shot(page, `recap-02-step-${label}`);
      const shownVersions = await page.locator('.recap .recap-log .log-entry').evaluateAll((items) => [...new Set(items.map((item) => item.dataset.version))]);
      assert.deepEqual(shownVersions.sort(), recap.entries.slice(0, 2).map((entry) => String(entry.version)).sort(), 'the log shows the entries up to the step');
      // Escape goes back to the game, and the focus to the button.
      await page.keyboard.press('Escape');
      await page.waitForSelector('.recap', { state: 'detached' });
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.recap), 'open');
      // No URL the page asked for carries the seat's token but the one it was opened with.
      const leaked = page.urls.filter((url) => url.includes(token) && !url.includes('#/play/'));
      assert.deepEqual(leaked, []);
      page.check();
    } finally {
      await browser.close();
    }
  });
}
