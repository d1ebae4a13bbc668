// Goofspiel in the browser, the ruleset docs/sdk.md builds from `cargo xtask new-ruleset`: a
// person against a search bot in the "short game" variant, created in the lobby without a map and
// played by clicking a card of the hand on the board for every prize, to the results. While the
// person chooses, the bot's bid is already in and must show nowhere: not on the board, not in the
// person's view of the game, not in the log; once both bids are in, both are shown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, chooseRuleset, enterGame, openPage, shot, withBrowser } from './lib.mjs';
import { actionAnswered, screenProblems, screenState, setPace, waitForTurn } from './play.mjs';

/** Creates the game in the lobby: the variant, a person in seat 0 and a bot in seat 1. */
async function createShortGame(page) {
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('#new-ruleset');
  await chooseRuleset(page, 'goofspiel');
  assert.equal(await page.locator('#new-map').count(), 0, 'no map to pick');
  await page.selectOption('#new-variant', 'short');
  await page.waitForFunction(() => document.querySelector('#opt-cards')?.value === '7');
  await page.selectOption('#new-count', '2');
  await page.selectOption('#seat-0-kind', 'human');
  await page.selectOption('#seat-1-kind', 'bot:normal');
  await page.click('.advanced summary');
  await page.fill('#new-seed', '900f5b1e'.padEnd(64, '0'));
  await page.click('[data-action="create"]');
  await page.waitForFunction(() => /^#\/(play|hotseat)\//.test(location.hash) || document.querySelector('.created:not([hidden])[data-game-id]'));
  const fromHash = await page.evaluate(() => (location.hash.match(/^#\/(?:play|hotseat)\/([^?]+)/) || [])[1]);
  return fromHash ? decodeURIComponent(fromHash) : page.locator('.created').getAttribute('data-game-id');
}

test('goofspiel: a person bids against a search bot to the results, the bot\'s bid hidden until both are in', { timeout: 10 * 60 * 1000 }, async () => {
  const goofspiel = (await api('/api/rulesets')).find((r) => r.id === 'goofspiel');
  assert.ok(goofspiel, 'the server lists goofspiel, with no change to the host');
  assert.equal(goofspiel.maps.length, 0, 'goofspiel takes no map');
  assert.deepEqual(goofspiel.options.map((o) => o.name), ['cards', 'lowest-wins']);
  assert.deepEqual(goofspiel.variants.map((v) => v.id).sort(), ['lowest-wins', 'short']);
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    const gameId = await createShortGame(page);
    await enterGame(page);
    await setPace(page, 'instant');
    const token = await page.evaluate((id) => JSON.parse(localStorage.getItem('tenka.games.v1'))[id].seats['0'], gameId);
    await shot(page, 'goofspiel-01-start');
    let bids = 0;
    const problems = new Set();
    while (bids < 20) {
      await waitForTurn(page);
      if ((await screenState(page)).status === 'finished') break;
      const view = (await api(`/api/games/${gameId}/view`, { token })).state;
      const prize = view.prize;
      // The bot bids at once: its bid is in, and not shown to the person, nor on the board.
      assert.equal(view.seats[1].has_bid, true, 'the bot has bid before the person');
      assert.equal(view.seats[1].bid, undefined, "the person's view holds no bid of the bot");
      const hand = view.seats[0].hand;
      assert.equal(await page.locator('.board-canvas [data-choice]').count(), hand.length, 'each card of the hand is a button on the board');
      for (const problem of await screenProblems(page)) problems.add(problem);
      if (bids === 1) await shot(page, 'goofspiel-02-bidding');
      if (bids === 2) {
        // On a phone the hand is still whole and every text readable.
        await page.setViewportSize({ width: 390, height: 844 });
        // The board fits itself to the new width on the frames after the resize.
        await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(done)))));
        for (const problem of await screenProblems(page)) problems.add(`phone: ${problem}`);
        await shot(page, 'goofspiel-02-bidding-390');
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      // Bid the card as high in the hand as the prize is among the cards: a plan a person might follow.
      const pick = Math.min(hand.length - 1, Math.floor(((prize - 1) / view.cards) * hand.length));
      const before = (await screenState(page)).version;
      const responded = actionAnswered(page);
      await page.locator(`.board-canvas [data-choice="${pick}"]`).click();
      assert.equal((await responded).status(), 200, 'the bid is taken');
      await page.waitForFunction((v) => Number(document.querySelector('.game')?.dataset.version) > v, before);
      bids += 1;
      // Both bids are now shown: the last prize's bids name the person's card.
      const after = (await api(`/api/games/${gameId}/view`, { token })).state;
      assert.equal(after.last.prize, prize, 'the prize just bid for is the last shown');
      assert.equal(after.last.bids[0], hand[pick], "the person's card is shown as bid");
      assert.ok(!after.seats[0].hand.includes(hand[pick]), 'the bid card is spent');
    }
    await page.waitForSelector('.results');
    await shot(page, 'goofspiel-03-results');
    assert.equal(bids, 7, 'the short game has seven prizes');
    assert.equal(await page.locator('.results-table tbody tr').count(), 2, 'one ranking row per seat');
    const game = await api(`/api/games/${gameId}`);
    assert.equal(game.status, 'finished');
    // Every prize was taken or set aside on a tie: 1 + 2 + ... + 7.
    const view = (await api(`/api/games/${gameId}/view`)).state;
    const taken = view.seats.flatMap((s) => s.won).concat(view.set_aside);
    assert.equal(taken.reduce((a, b) => a + b, 0), 28);
    // The log tells the person its own card; a spectator reads only that a bid was made.
    const own = (await api(`/api/games/${gameId}/log?since=0`, { token })).flatMap((e) => (e.events || []).map((ev) => ev.text.key));
    const spectated = (await api(`/api/games/${gameId}/log?since=0`)).flatMap((e) => (e.events || []).map((ev) => ev.text.key));
    assert.equal(own.filter((k) => k === 'event.own-bid').length, 7);
    assert.equal(spectated.filter((k) => k === 'event.own-bid').length, 0, 'nobody else reads a bid before it is shown');
    assert.equal(spectated.filter((k) => k === 'event.shown').length, 14, 'both bids shown for each prize');
    assert.deepEqual([...problems], [], 'every screen shows everything, and no "null"');
    page.check();
  });
});
