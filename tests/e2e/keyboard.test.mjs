// Keyboard only: a game is created from the lobby and a decision is answered with Tab, arrows,
// Enter and Space; every control reached shows a focus ring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, openPage, pickRuleset, shot, chooseRuleset } from './lib.mjs';
import { waitForTurn } from './play.mjs';

async function tabTo(page, predicate, limit = 80) {
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate)) return true;
  }
  return false;
}

test('the lobby and a decision are operable with the keyboard alone', { timeout: 5 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const browser = await launch();
  try {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('#new-ruleset');
    await chooseRuleset(page, ruleset.id);
    await page.locator('#new-ruleset').focus();
    assert.ok(await tabTo(page, () => document.activeElement && document.activeElement.dataset.action === 'create'), 'Tab reaches the create button');
    const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
    assert.notEqual(outline, 'none', 'the focused control shows a focus ring');
    await page.keyboard.press('Enter');
    // Nobody to invite: the create button leads straight into the game.
    await waitForTurn(page);
    await shot(page, 'keyboard-01-decision');
    const before = await page.evaluate(() => Number(document.querySelector('.game').dataset.version));
    // Reach the decision's first control and answer by keyboard.
    const kind = await page.evaluate(() => ['choose', 'number', 'assign'].find((k) => document.querySelector(`.decision-panel form.decision-${k}`)));
    if (kind === 'assign') {
      // Each slot's list takes a keyboard choice; then the send button.
      const selects = await page.locator('[data-slot-select]').count();
      for (let i = 0; i < selects; i += 1) {
        await page.locator(`[data-slot-select="${i}"]`).focus();
        await page.keyboard.press('ArrowDown');
      }
      assert.ok(await tabTo(page, () => document.activeElement && document.activeElement.dataset.action === 'send' || document.activeElement?.dataset.focusKey === 'clear'), 'Tab reaches the plan buttons');
    } else {
      assert.ok(await tabTo(page, () => !!document.activeElement && (document.activeElement.hasAttribute('data-choice-button') || document.activeElement.hasAttribute('data-number') || document.activeElement.id === 'decision-number')), 'Tab reaches the decision');
      await page.keyboard.press('Enter');
      if (await page.locator('.decision-panel [data-action="send"]').count()) {
        await page.locator('.decision-panel [data-action="send"]').focus();
        await page.keyboard.press('Enter');
      }
      await page.waitForFunction((v) => Number(document.querySelector('.game').dataset.version) > v || !!document.querySelector('.decision-error:not([hidden])'), before);
    }
    // Board choices, when the drawing marks them, are focusable buttons.
    const boardButtons = await page.evaluate(() => {
      const root = document.querySelector('.board-canvas')?.shadowRoot;
      return root ? [...root.querySelectorAll('.tk-interactive')].every((el) => el.getAttribute('tabindex') === '0' && el.getAttribute('role') === 'button') : true;
    });
    assert.ok(boardButtons, 'interactive board elements are focusable buttons');
    page.check();
    assert.ok(ruleset.id);
  } finally {
    await browser.close();
  }
});
