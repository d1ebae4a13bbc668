// Honshu in the browser: a 3-player game against 2 random bots, created in the lobby without a
// map and played by clicking through to the results page, with at least one card placed turned
// a quarter turn or more, and one placement taken back a step with the decision's way back. Only
// the generic decision controls are used (a choice on the board where a part marks it with
// data-choice, else the decision panel's choice buttons and its way back), so the test does not
// depend on how the board's parts are laid out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, createGame, enterGame, openPage, shot, withBrowser } from './lib.mjs';
import { actionAnswered, answer, newStats, rng, screenMovedOn, screenState, setPace, waitForTurn } from './play.mjs';

/** The texts of the decision panel's choice buttons. */
async function choiceTexts(page) {
  return page.locator('.decision-panel [data-choice-button]').allInnerTexts();
}

/** Picks choice `index` of the decision on screen by clicking; returns the response status. */
async function pick(page, index) {
  const before = (await screenState(page)).version;
  const responded = actionAnswered(page);
  const onBoard = page.locator(`.board-canvas [data-choice="${index}"]`).first();
  if ((await onBoard.count()) && (await onBoard.isVisible())) await onBoard.click();
  else await page.locator('.decision-panel [data-choice-button]').nth(index).click();
  const response = await responded;
  if (response.status() === 200) {
    // The screen moves on, or holds the newest board while the story plays or pauses (the final
    // scoring is a summary the player acknowledges).
    await screenMovedOn(page, before);
  }
  return response.status();
}

/** Goes back a step with the decision panel's way back; returns the response status. */
async function goBack(page) {
  const before = (await screenState(page)).version;
  const responded = actionAnswered(page);
  await page.locator('.decision-panel [data-action="back"]').click();
  const response = await responded;
  if (response.status() === 200) {
    await page.waitForFunction((v) => Number(document.querySelector('.game')?.dataset.version) > v, before, { timeout: 30000 });
  }
  return response.status();
}

test('honshu: a 3-player game with 2 bots is played by clicking to the results, a card placed turned', { timeout: 15 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const honshu = rulesets.find((r) => r.id === 'honshu');
  assert.ok(honshu, 'the server lists honshu');
  assert.equal(honshu.maps.length, 0, 'honshu takes no map');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    const gameId = await createGame(page, {
      ruleset: 'honshu',
      seats: ['human', 'bot:random', 'bot:random'],
      seed: '4085b000'.padEnd(64, '0'),
    });
    await shot(page, 'honshu-01-created');
    // The host names a game without a map "none" (NO_MAP).
    assert.ok([null, undefined, 'none'].includes((await api(`/api/games/${gameId}`)).map), 'the game has no map');
    await enterGame(page);
    await page.waitForSelector('.game[data-version]');
    await shot(page, 'honshu-02-start');
    // The story of each step is not what this test watches: it plays at once.
    await setPace(page, 'instant');
    const random = rng(2024);
    const stats = newStats();
    const shots = new Set();
    let turned = 0;
    let wentBack = false;
    let steps = 0;
    while (steps < 400) {
      await waitForTurn(page);
      if ((await screenState(page)).status === 'finished') break;
      const texts = await choiceTexts(page);
      const rotations = texts.map((t, i) => ({ t, i })).filter(({ t }) => /\b(90|180|270)\s*°/.test(t));
      // The position and the confirmation offer the way back; the rotation does not.
      const back = page.locator('.decision-panel [data-action="back"]');
      const placing = (await back.count()) > 0;
      if (rotations.length && turned === 0) {
        // The first placement that can be turned is turned.
        await shot(page, 'honshu-03-rotation');
        assert.equal(await pick(page, rotations[0].i), 200, 'a rotation is accepted');
        turned += 1;
      } else if (placing) {
        // Position, then over/under: the first offered.
        const key = texts.some((t) => /^confirm/.test(t.trim())) ? 'confirm' : 'position';
        if (!shots.has(key)) {
          shots.add(key);
          await shot(page, `honshu-04-${key}`);
        }
        if (key === 'position' && !wentBack) {
          // Once, the way back: the card's rotation is asked again.
          assert.equal((await back.textContent()).trim(), 'Turn the card another way');
          assert.ok(!texts.some((t) => /back/i.test(t)), `going back is not a choice: ${texts}`);
          assert.equal(await goBack(page), 200, 'going back is accepted');
          await waitForTurn(page);
          const again = await choiceTexts(page);
          assert.ok(again.some((t) => /°/.test(t)), `the rotation is asked again: ${again}`);
          assert.equal(await page.locator('.decision-panel [data-action="back"]').count(), 0, 'no way back from the rotation');
          wentBack = true;
          steps += 1;
          continue;
        }
        assert.equal(await pick(page, 0), 200, `the ${key} step is accepted`);
      } else {
        const outcome = await answer(page, random, stats, 0);
        assert.notEqual(outcome, 'rejected', 'a legal choice is never refused');
      }
      steps += 1;
    }
    await page.waitForSelector('.results');
    await shot(page, 'honshu-05-results');
    assert.equal(await page.locator('.results-table tbody tr').count(), 3, 'one ranking row per seat');
    const game = await api(`/api/games/${gameId}`);
    assert.equal(game.status, 'finished');
    // Twelve rounds each placed a card on every map; one of the human seat's is turned.
    const view = await api(`/api/games/${gameId}/view`);
    const placed = view.state.players[0].map.placed;
    assert.equal(placed.length, 13, 'the province card and one card per round');
    assert.ok(placed.some((p) => p.rotation !== 0), 'a card of seat 0 lies turned');
    // A placement's steps are told to the placing seat alone: the way back is in seat 0's log and
    // not in a spectator's.
    const token = await page.evaluate((id) => JSON.parse(localStorage.getItem('tenka.games.v1'))[id].seats['0'], gameId);
    const log = await api(`/api/games/${gameId}/log?since=0`, { token });
    const keys = log.flatMap((entry) => (entry.events || []).map((event) => event.text.key));
    const spectated = await api(`/api/games/${gameId}/log?since=0`);
    const spectatorKeys = spectated.flatMap((entry) => (entry.events || []).map((event) => event.text.key));
    assert.ok(keys.includes('event.placed-over') || keys.includes('event.placed-under'));
    assert.ok(wentBack && keys.includes('event.placing-back'), 'a placement went back a step');
    assert.ok(!spectatorKeys.includes('event.placing-back'), 'a spectator is not told a placement step');
    assert.equal(keys.filter((k) => k === 'event.final-score').length, 3);
    assert.deepEqual(stats.screenProblems || [], [], 'every screen of the game shows everything, and no "null"');
    console.log(`# honshu: ${steps} decisions, ${turned} turned on purpose, ${JSON.stringify({ ...stats, placements: undefined })}`);
    page.check();
  });
});
