// Nothing of one's own board is cut, in any language, on a laptop or a phone: the third review
// found a planning board drawn 603 px wide in a 401 px frame, action cards and a panel's last
// line cut, and German and Spanish legend lines running off their drawing. Every part's drawing
// and every text of it is measured against its frame at 1280x800 and 390x844 in en, es, de, ro, ru,
// at the first decision and at the first plan.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { BASE, createGame, enterGame, openPage, pickRuleset, playableMap, SHOTS, withBrowser } from './lib.mjs';
import { answer, newStats, rng, screenProblems, waitForTurn } from './play.mjs';

const SIZES = [
  [1280, 800],
  [390, 844],
];
const LANGS = ['en', 'es', 'de', 'ro', 'ru'];

/** The screen in every language at both sizes: a list of problems, each named by where it is. */
async function everywhere(page, name) {
  const problems = [];
  for (const lang of LANGS) {
    await page.selectOption('#language', lang);
    await page.waitForFunction((l) => document.documentElement.lang === l, lang);
    for (const [width, height] of SIZES) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(250);
      for (const problem of await screenProblems(page)) problems.push(`${name}, ${lang}, ${width}: ${problem}`);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      if (overflow > 1) problems.push(`${name}, ${lang}, ${width}: the page scrolls sideways by ${overflow} px`);
      if (lang === 'en' || lang === 'de') await page.screenshot({ path: path.join(SHOTS, `layout-${name}-${lang}-${width}.png`), fullPage: true });
    }
  }
  await page.selectOption('#language', 'en');
  await page.setViewportSize({ width: 1280, height: 800 });
  return problems;
}

test('regression_own_board_cut_off: every part shows whole at 1280x800 and 390x844 in every language', { timeout: 10 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset);
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.evaluate(() => localStorage.setItem('tenka.pace', 'instant'));
    await createGame(page, { ruleset: ruleset.id, map, seats: ['human', ...Array(Math.max(3, ruleset.min_seats) - 1).fill('bot:random')], seed: '5eed0031'.padEnd(64, '0') });
    await enterGame(page);
    await waitForTurn(page);
    const problems = await everywhere(page, 'start');
    // On to the first plan (an assign decision), where the planning board and the cards show.
    const random = rng(31);
    const stats = newStats();
    for (let step = 0; step < 120; step += 1) {
      await waitForTurn(page);
      if (await page.locator('.decision-panel:not([hidden]) form.decision-assign').count()) break;
      await answer(page, random, stats);
    }
    if (await page.locator('.decision-panel:not([hidden]) form.decision-assign').count()) problems.push(...(await everywhere(page, 'plan')));
    assert.deepEqual(problems, [], 'no part and no text of it is cut');
    // On a phone a panel whose texts are small at the screen's width opens at a readable size.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    const enlarge = page.locator('[data-action="enlarge-part"]:visible').first();
    if (await enlarge.count()) {
      await enlarge.click();
      await page.waitForSelector('dialog.part-zoom[open]');
      const smallest = await page.evaluate(() => {
        const svg = document.querySelector('dialog.part-zoom[open] .part-zoom-canvas').shadowRoot.querySelector('svg');
        let px = Infinity;
        for (const el of svg.querySelectorAll('text')) {
          if (!el.textContent.trim() || !el.getClientRects().length) continue;
          const ctm = el.getScreenCTM();
          px = Math.min(px, parseFloat(getComputedStyle(el).fontSize) * Math.hypot(ctm.a, ctm.b));
        }
        return px;
      });
      assert.ok(smallest >= 11 - 0.1, `the enlarged panel shows its texts at 11 px or more (${smallest.toFixed(1)})`);
      await page.screenshot({ path: path.join(SHOTS, 'layout-enlarged-panel-390.png') });
      await page.click('[data-action="close-enlarged"]');
    }
    page.check();
  });
});
