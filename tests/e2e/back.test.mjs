// Going back before the last confirmation: in a Shogun game against two bots, the person picks a
// battle's target, sees the army count with the ruleset's way back beside it ("Choose another
// target", a secondary button reached with the keyboard), goes back, picks another target and
// attacks. The log then says the target was taken back. Skipped on a server without Shogun.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, createGame, enterGame, openPage, shot, withBrowser } from './lib.mjs';
import { answer, newStats, rng, screenMovedOn, screenState, setPace, waitForTurn } from './play.mjs';

const BATTLE_BACK = 'Choose another target';

/** The name of the province the count's prompt sends armies to ("... from Kai to Musashi?"). */
function targetOf(prompt) {
  const match = prompt.match(/ to (.+)\?$/);
  return match ? match[1] : null;
}

test('a battle target is changed before the army count is sent', { timeout: 10 * 60 * 1000 }, async (t) => {
  const rulesets = await api('/api/rulesets');
  if (!rulesets.some((r) => r.id === 'shogun')) {
    t.skip('the server has no Shogun');
    return;
  }
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await setPace(page, 'instant');
    const gameId = await createGame(page, { ruleset: 'shogun', seats: ['human', 'bot:random', 'bot:random'], options: { years: 1 }, seed: 'ba0c'.padEnd(64, '0') });
    await enterGame(page, 0);
    const random = rng(11);
    const stats = newStats();
    let wentBack = false;
    for (let step = 0; step < 600 && !wentBack; step += 1) {
      await waitForTurn(page);
      if ((await screenState(page)).status === 'finished') break;
      const back = page.locator('.decision-panel [data-action="back"]');
      const chosen = targetOf((await page.locator('#decision-prompt').textContent()) || '');
      if (!(await back.count()) || (await back.textContent()) !== BATTLE_BACK) {
        await answer(page, random, stats);
        continue;
      }
      // The count of a battle whose target is chosen: go back, by keyboard.
      await shot(page, 'back-01-count');
      await page.setViewportSize({ width: 390, height: 844 });
      await back.scrollIntoViewIfNeeded();
      await shot(page, 'back-01-count-phone');
      const phoneBox = await back.boundingBox();
      assert.ok(phoneBox && phoneBox.x >= 0 && phoneBox.x + phoneBox.width <= 390, 'the way back fits a phone');
      await page.setViewportSize({ width: 1280, height: 800 });
      const before = (await screenState(page)).version;
      await back.focus();
      assert.equal(await page.evaluate(() => document.activeElement?.dataset.action), 'back');
      await page.keyboard.press('Enter');
      await page.waitForFunction((v) => Number(document.querySelector('.game')?.dataset.version) > v, before);
      await waitForTurn(page);
      await page.waitForSelector('.decision-panel form.decision-choose');
      await shot(page, 'back-02-target-again');
      // Another target, if this origin has one; else the same again (and look for a later battle).
      const labels = await page.locator('.decision-panel [data-choice-button] .choice-label').allTextContents();
      assert.ok(labels.includes(chosen), `the target ${chosen} is offered again: ${labels}`);
      // Another target, an attack where there is one (a choice's detail says which).
      const texts = await page.locator('.decision-panel [data-choice-button]').allTextContents();
      const attack = labels.findIndex((label, i) => label !== chosen && /Attack/.test(texts[i]));
      const other = attack === -1 ? labels.findIndex((label) => label !== chosen) : attack;
      const pick = other === -1 ? labels.indexOf(chosen) : other;
      await page.locator('.decision-panel [data-choice-button]').nth(pick).click();
      await page.waitForSelector('.decision-panel form.decision-number');
      await waitForTurn(page);
      const prompt = (await page.locator('#decision-prompt').textContent()) || '';
      assert.equal(targetOf(prompt), labels[pick], prompt);
      if (other === -1) {
        await answer(page, random, stats);
        continue;
      }
      // Attack with every army that may go.
      const attacked = (await screenState(page)).version;
      await page.locator('.decision-panel [data-number]').last().click();
      // The screen moves on, or holds the newest board while the story of the battle plays.
      await screenMovedOn(page, attacked);
      await shot(page, 'back-03-attacked');
      wentBack = true;
    }
    assert.ok(wentBack, 'the person met a battle with two targets in a year');
    const log = await api(`/api/games/${gameId}/log?since=0`);
    const keys = JSON.stringify(log);
    assert.ok(keys.includes('log.target-withdrawn'), 'the log tells that the target was taken back');
    page.check();
  });
});
