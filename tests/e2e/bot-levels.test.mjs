// Bot levels in the browser: the lobby offers easy, normal, hard and random moves with a line
// about each chosen one, and a seat the host hands to a bot gets the level the table chose
// (the strongest of its bots' seats) unless the host picks another beside the button.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, createGame, openPage, pickRuleset, playableMap, shot, withBrowser } from './lib.mjs';

test('the lobby offers the bot levels and a handed seat plays at the table\'s level', { timeout: 3 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset);
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('[data-seat-kind="1"]');
    const offered = await page.$$eval('[data-seat-kind="1"] option', (options) => options.map((o) => o.value));
    assert.deepEqual(offered.filter((v) => v.startsWith('bot:')), ['bot:easy', 'bot:normal', 'bot:hard', 'bot:random']);
    // A new table's bots start at normal, and the line about them says what normal is.
    assert.equal(await page.$eval('[data-seat-kind="1"]', (s) => s.value), 'bot:normal');
    await page.selectOption('[data-seat-kind="1"]', 'bot:hard');
    assert.match(await page.locator('[data-bot-about-kind="hard"]').innerText(), /Hard/);

    // A table with a hard bot: the invited person's seat, handed to a bot, plays at hard.
    const threeSeats = ruleset.max_seats >= 3;
    const seats = threeSeats ? ['human', 'invite', 'bot:hard', ...Array(Math.max(0, ruleset.min_seats - 3)).fill('bot:easy')] : ['human', 'invite'];
    const gameId = await createGame(page, { ruleset: ruleset.id, map, seats, seed: '5eed0b07'.padEnd(64, '0') });
    const level = page.locator('[data-seat-bot-level="1"]');
    assert.equal(await level.inputValue(), threeSeats ? 'hard' : 'normal');
    await shot(page, 'bot-levels-01-handover');
    await page.selectOption('[data-seat-bot-level="1"]', 'easy');
    await page.click('[data-seat-bot="1"]');
    await page.waitForSelector('[data-seat-played-by-bot="1"]');
    const game = await api(`/api/games/${encodeURIComponent(gameId)}`);
    assert.equal(game.seats.find((s) => s.seat === 1).bot, 'easy');
  });
});
