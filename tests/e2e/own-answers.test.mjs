// A player's own answers are never refused as stale while bots move (issue 22, item 1). In
// Honshu every seat places at the same time: each bot's step (a card, a rotation, a position)
// moves the game's version on while the player's screen still shows the version it was drawn
// at, and the server refused those answers ("The game moved on"), 7 of 15 in one game. The
// server now accepts an answer to a decision that is still pending and unchanged. Bots move at
// pace 0 here (run.sh), so they step between the player's view and every click.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, createGame, enterGame, openPage, shot, withBrowser } from './lib.mjs';
import { answer, newStats, rng, screenState, setPace, waitForTurn } from './play.mjs';

test('regression: own answers were refused as stale while bots moved (honshu, bots at pace 0)', { timeout: 15 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  assert.ok(rulesets.some((r) => r.id === 'honshu'), 'the server lists honshu');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    const gameId = await createGame(page, {
      ruleset: 'honshu',
      seats: ['human', 'bot:random', 'bot:random'],
      seed: '57a1e000'.padEnd(64, '0'),
    });
    let sent = 0;
    let stale = 0;
    page.on('response', (response) => {
      if (!response.url().includes('/actions') || response.request().method() !== 'POST') return;
      sent += 1;
      if (response.status() === 409) stale += 1;
    });
    // With nobody to invite, the lobby goes straight into the game.
    await enterGame(page, 0);
    // The story plays at once: the bots' steps still land between the view and each click (they
    // move at pace 0 on the server), and the test does not wait through every caption.
    await setPace(page, 'instant');
    const random = rng(22);
    const stats = newStats();
    let steps = 0;
    while (steps < 400) {
      await waitForTurn(page);
      if ((await screenState(page)).status === 'finished') break;
      await answer(page, random, stats, 0);
      steps += 1;
    }
    await shot(page, 'own-answers-end');
    const game = await api(`/api/games/${gameId}`);
    console.log(`# own answers: ${sent} sent, ${stale} refused as stale, game ${game.status} after ${steps} steps`);
    assert.equal(game.status, 'finished', 'the game was played to its end');
    assert.ok(sent >= 24, `the player answered every round (${sent})`);
    assert.equal(stale, 0, `${stale} of ${sent} own answers were refused as stale`);
    page.check();
  });
});
