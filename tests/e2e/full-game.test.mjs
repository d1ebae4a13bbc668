// A whole game in the browser: a 5-player game with 4 bots, created in the lobby and played by
// clicking the human seat's decisions (planning with the bid, battles, winter) through to the
// final results page; then the replay of the finished game.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, createGame, launch, openPage, pickRuleset, shot } from './lib.mjs';
import { answer, newStats, rng, screenState, waitForTurn } from './play.mjs';

// What a finished game of each known ruleset must have gone through, checked on the public log
// by catalogue key (the UI itself knows no game). Options that keep the game short.
const EXPECT = {
  shogun: { options: { years: 1 }, keys: [/^log\.bid-/, /^log\.winter/], tower: true },
};

test('a 5-player game with 4 bots is played by clicking to the final results', { timeout: 20 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  assert.ok(ruleset.max_seats >= 5, `${ruleset.id} seats up to ${ruleset.max_seats} players`);
  const expect = EXPECT[ruleset.id] || { options: JSON.parse(process.env.E2E_OPTIONS || '{}'), keys: [], tower: false };
  const map = (ruleset.maps.find((m) => m.valid !== false) || ruleset.maps[0]).id;
  const browser = await launch();
  try {
    const page = await openPage(browser);
    const gameId = await createGame(page, {
      ruleset: ruleset.id,
      map,
      seats: ['human', 'bot:random', 'bot:random', 'bot:random', 'bot:random'],
      options: expect.options,
      seed: '5eed0001'.padEnd(64, '0'),
    });
    await shot(page, 'full-game-01-created');
    await page.click('[data-play-seat="0"]');
    await page.waitForSelector('.game[data-version]');
    const random = rng(12345);
    const stats = newStats();
    let attempt = 0;
    let steps = 0;
    const shots = new Set();
    while (steps < 600) {
      await waitForTurn(page);
      const state = await screenState(page);
      if (state.status === 'finished') break;
      const kind = await page.evaluate(() => ['choose', 'number', 'assign'].find((k) => document.querySelector(`.decision-panel form.decision-${k}`)));
      if (kind && !shots.has(kind)) {
        shots.add(kind);
        await shot(page, `full-game-02-decision-${kind}`);
      }
      const outcome = await answer(page, random, stats, attempt);
      if (outcome === 'rejected') {
        attempt += 1;
        assert.ok(attempt < 25, 'the same decision was refused 25 times in a row');
        const error = await page.locator('.decision-error').innerText();
        assert.ok(error.length > 0, 'a refused answer is explained on screen');
      } else attempt = 0;
      steps += 1;
      if ((await page.locator('.tower-figure').count()) && !shots.has('tower')) {
        shots.add('tower');
        await page.waitForTimeout(1500);
        await shot(page, 'full-game-03-tower');
      }
    }
    await page.waitForSelector('.results');
    await shot(page, 'full-game-04-results');
    // Everything on the results page: one ranking row per seat, a breakdown with totals.
    assert.equal(await page.locator('.results-table tbody tr').count(), 5);
    assert.ok((await page.locator('.breakdown-table tr.total').count()) === 1 || (await page.locator('.breakdown-table').count()) === 0);
    assert.ok(stats.assign + stats.choose + stats.number > 0, 'the human seat took decisions');
    if (ruleset.id === 'shogun') assert.ok(stats.assign >= 1, 'the human seat planned at least once');
    // What the game went through, from the public log.
    const log = await api(`/api/games/${gameId}/log?since=0`);
    const keys = log.flatMap((entry) => (entry.events || []).map((event) => event.text.key));
    for (const pattern of expect.keys) assert.ok(keys.some((key) => pattern.test(key)), `the log has an event matching ${pattern}`);
    if (expect.tower) assert.ok(log.some((entry) => (entry.tower || []).length), 'a battle dropped cubes through the tower');
    const game = await api(`/api/games/${gameId}`);
    assert.equal(game.status, 'finished');
    console.log(`# played ${steps} decisions: ${JSON.stringify({ ...stats, placements: stats.placements.length })}`);

    // The replay steps through the finished game.
    await page.click('.results a[href^="#/replay/"]');
    await page.waitForSelector('.replay-controls');
    await page.click('[data-replay="next"]');
    await page.click('[data-replay="next"]');
    assert.match(await page.locator('.replay-counter').innerText(), /2/);
    assert.equal(await page.locator('.replay-log > li').count(), 2);
    await shot(page, 'full-game-05-replay');
    await page.click('[data-replay="last"]');
    await page.waitForSelector('.replay .results');
    page.check();
    assert.ok(BASE);
  } finally {
    await browser.close();
  }
});
