// Keyboard only: a game is created from the lobby and a decision is answered with Tab, arrows,
// Enter and Space; every control reached shows a focus ring.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, chooseRuleset, openPage, pickRuleset, playableMap, shot, withBrowser } from './lib.mjs';
import { rng, waitForTurn } from './play.mjs';

async function tabTo(page, predicate, limit = 80, argument = undefined) {
  for (let i = 0; i < limit; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(predicate, argument)) return true;
  }
  return false;
}

test('the lobby and a decision are operable with the keyboard alone', { timeout: 5 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  await withBrowser(async (browser) => {
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
  });
});

test('regression_lobby_focus_lost_on_ruleset_change: a whole tic-tac-toe game is played with the keyboard alone, from the lobby to the results', { timeout: 5 * 60 * 1000 }, async (t) => {
  const rulesets = await (await fetch(`${BASE}/api/rulesets`)).json();
  if (!rulesets.some((r) => r.id === 'tictactoe')) return t.skip('the server loads no tic-tac-toe');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('.panel.create:not([aria-busy])');
    // The ruleset list: Tab to it, then arrow keys until tic-tac-toe; the form follows.
    assert.ok(await tabTo(page, () => document.activeElement?.id === 'new-ruleset'), 'Tab reaches the ruleset list');
    for (let i = 0; i < 10 && (await page.evaluate(() => document.getElementById('new-ruleset').value)) !== 'tictactoe'; i += 1) {
      await page.keyboard.press('ArrowDown');
      await page.waitForSelector('.panel.create:not([aria-busy])');
    }
    await page.waitForSelector('.panel.create[data-ruleset="tictactoe"]:not([aria-busy])');
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'new-ruleset', 'the focus stays on the ruleset list while the form changes');
    // The second seat to a bot, by keyboard.
    assert.ok(await tabTo(page, () => document.activeElement?.id === 'seat-1-kind'), 'Tab reaches the second seat');
    for (let i = 0; i < 10 && !(await page.evaluate(() => document.activeElement.value.startsWith('bot:'))); i += 1) await page.keyboard.press('ArrowDown');
    assert.ok(await tabTo(page, () => document.activeElement?.dataset.action === 'create'), 'Tab reaches the create button');
    await page.keyboard.press('Enter');
    let moves = 0;
    for (;;) {
      await waitForTurn(page);
      if (await page.evaluate(() => document.querySelector('.game')?.dataset.status === 'finished')) break;
      const before = await page.evaluate(() => Number(document.querySelector('.game').dataset.version));
      // A free square on the board or in the choice list, reached with Tab, marked by a focus ring.
      // The focused element, inside a board's shadow root when the focus is there.
      const square = () => {
        let el = document.activeElement;
        while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
        const style = el && getComputedStyle(el);
        return el && (el.matches('[role="button"][data-choice]') || el.hasAttribute('data-choice-button')) ? { ring: style.outlineStyle !== 'none' || style.filter !== 'none' } : null;
      };
      assert.ok(await tabTo(page, square), `Tab reaches a free square (move ${moves + 1})`);
      const { ring } = await page.evaluate(square);
      assert.ok(ring, 'the focused square shows that it has the focus');
      await page.keyboard.press('Enter');
      if (await page.locator('.decision-panel [data-action="send"]:not([disabled])').count()) {
        assert.ok(await tabTo(page, () => document.activeElement?.dataset.action === 'send'), 'Tab reaches the send button');
        await page.keyboard.press('Enter');
      }
      await page.waitForFunction((v) => Number(document.querySelector('.game').dataset.version) > v, before);
      moves += 1;
      assert.ok(moves <= 5, 'a tic-tac-toe seat moves at most five times');
    }
    await page.waitForSelector('.results');
    assert.ok(moves >= 3, `the seat played a whole game (${moves} moves)`);
    await shot(page, 'keyboard-02-tictactoe-results');
    page.check();
  });
});

/**
 * Answers the decision on screen with the keyboard alone: Tab to a control, then Enter, Space,
 * arrows or digits; `random` picks among the choices. Returns false when there was none.
 */
async function answerByKeyboard(page, random) {
  const focusOn = async (selector, index = 0, limit = 400) => {
    const found = await tabTo(page, ([sel, i]) => [...document.querySelectorAll(sel)].indexOf(document.activeElement) === i, limit, [selector, index]);
    assert.ok(found, `Tab reaches ${selector} #${index}`);
    const ring = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle !== 'none');
    assert.ok(ring, `the focused ${selector} shows a focus ring`);
  };
  if (await page.locator('dialog.summary-dialog[open]').count()) {
    await focusOn('dialog.summary-dialog[open] button');
    await page.keyboard.press('Enter');
    return true;
  }
  const kind = await page.evaluate(() => ['choose', 'number', 'assign'].find((k) => document.querySelector(`.decision-panel:not([hidden]) form.decision-${k}`)));
  if (!kind) return false;
  const send = '.decision-panel [data-action="send"]';
  if (kind === 'choose') {
    const count = await page.locator('.decision-panel [data-choice-button]').count();
    const multi = (await page.locator(send).count()) > 0;
    if (!multi) {
      await focusOn('.decision-panel [data-choice-button]', Math.floor(random() * count));
      await page.keyboard.press('Enter');
      return true;
    }
    const min = Number(await page.locator('.decision-panel form.decision').getAttribute('data-min')) || 1;
    const picks = [...Array(count).keys()].sort(() => random() - 0.5).slice(0, Math.max(1, min)).sort((a, b) => a - b);
    for (const pick of picks) {
      await focusOn('.decision-panel [data-choice-button]', pick);
      await page.keyboard.press('Space');
    }
  } else if (kind === 'number') {
    const quick = await page.locator('.decision-panel [data-number]').count();
    if (quick) {
      await focusOn('.decision-panel [data-number]', quick - 1);
      await page.keyboard.press('Enter');
      return true;
    }
    await focusOn('#decision-number');
    await page.keyboard.press('ArrowUp');
  } else {
    const slots = await page.locator('[data-slot-select]').count();
    for (let slot = 0; slot < slots; slot += 1) {
      await focusOn('[data-slot-select]', slot);
      // Down the list to an item no other slot holds yet.
      for (let i = 0; i < 12; i += 1) {
        const free = await page.evaluate(() => {
          const mine = document.activeElement;
          const taken = [...document.querySelectorAll('[data-slot-select]')].filter((s) => s !== mine).map((s) => s.value);
          return mine.value !== '' && !taken.includes(mine.value);
        });
        if (free) break;
        await page.keyboard.press('ArrowDown');
      }
    }
  }
  await focusOn(send);
  await page.keyboard.press('Enter');
  return true;
}

test('the first week of the block wargame is played with the keyboard alone', { timeout: 8 * 60 * 1000 }, async (t) => {
  const rulesets = await api('/api/rulesets');
  const ruleset = rulesets.find((r) => r.id === 'sekigahara');
  if (!ruleset) return t.skip('the server loads no block wargame');
  const map = playableMap(ruleset);
  const game = await api('/api/games', { method: 'POST', body: { ruleset: ruleset.id, map, seats: [{ kind: 'human', name: 'Ana', creator: true }, { kind: 'bot', bot: 'random' }], seed: '6b6579'.padEnd(64, '0') } });
  const token = game.seats.find((s) => s.seat === 0).token;
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.evaluate(([id, tok]) => {
      localStorage.setItem('tenka.pace', 'instant');
      localStorage.setItem('tenka.games.v1', JSON.stringify({ [id]: { seats: { 0: tok } } }));
    }, [game.id, token]);
    await page.goto(`${BASE}/#/play/${game.id}?seat=0`);
    const random = rng(1600);
    let answered = 0;
    for (;;) {
      const { state, status } = await api(`/api/games/${game.id}/view`);
      if (status === 'finished' || (state && state.week >= 2)) break;
      await waitForTurn(page);
      const before = await page.evaluate(() => Number(document.querySelector('.game').dataset.version));
      if (!(await answerByKeyboard(page, random))) continue;
      await page.waitForFunction((v) => Number(document.querySelector('.game')?.dataset.version) > v || !!document.querySelector('.decision-error:not([hidden]), dialog.summary-dialog[open]') || !document.querySelector('.decision-panel:not([hidden]) form.decision'), before, { timeout: 30000 });
      answered += 1;
      assert.ok(answered < 200, 'the first week ends within 200 answers');
    }
    assert.ok(answered >= 3, `the seat answered the first week's decisions by keyboard (${answered})`);
    await shot(page, 'keyboard-03-block-wargame-week-2');
    page.check();
  });
});
