// Notices in the page: a signed-in account whose seat becomes due sees "(1) Tenka" in the title
// and a count on the My games link, without reloading; opening My games marks it seen. The
// browser's notification permission is never asked on load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, openPage, shot, withBrowser } from './lib.mjs';

/** Creates an untimed game of two people, both seats the test's; the id and the two tokens. */
async function twoPeople(ruleset) {
  const created = await api('/api/games', {
    method: 'POST',
    body: {
      ruleset: ruleset.id,
      map: (ruleset.maps || [])[0]?.id,
      seats: [{ kind: 'human', creator: true }, { kind: 'human', creator: true }],
    },
  });
  return { id: created.id, tokens: created.seats.map((seat) => seat.token) };
}

/** Answers the first decision the seat of `token` owes with its first option. */
async function answerFirst(id, token) {
  const view = await api(`/api/games/${id}/view`, { token });
  assert.ok(view.pending && view.pending.length, `the seat owes an answer: ${JSON.stringify(view.pending)}`);
  await api(`/api/games/${id}/actions`, { method: 'POST', token, body: { version: view.version, action: { choose: [0] } } });
}

test('the title and the My games link count a notice when it becomes your turn', { timeout: 120000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const ruleset = rulesets.find((r) => r.id === 'tictactoe') || rulesets[0];
  const game = await twoPeople(ruleset);
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    let asked = false;
    await page.exposeFunction('noteAsked', () => {
      asked = true;
    });
    await page.addInitScript(() => {
      if ('Notification' in window) {
        const original = Notification.requestPermission.bind(Notification);
        Notification.requestPermission = (...args) => {
          window.noteAsked();
          return original(...args);
        };
      }
    });
    await page.goto(`${BASE}/#/`);
    // Sign up in the page (the session cookie is the browser's) and attach the second seat.
    const name = `notice${Date.now().toString(36)}`;
    const attached = await page.evaluate(async ({ name, id, token }) => {
      const headers = { 'Content-Type': 'application/json' };
      const signedUp = await fetch('/api/accounts', { method: 'POST', headers, body: JSON.stringify({ name, password: 'a long enough password' }) });
      const { csrf_token: csrf } = await signedUp.json();
      const answer = await fetch('/api/me/seats', { method: 'POST', headers: { ...headers, 'X-CSRF-Token': csrf }, body: JSON.stringify({ seats: [{ game: id, token }] }) });
      return (await answer.json()).seats[0].outcome;
    }, { name, id: game.id, token: game.tokens[1] });
    assert.equal(attached, 'attached');
    await page.goto(`${BASE}/#/`);
    assert.equal(await page.title(), 'Tenka');

    // The other seat moves: it is now this account's turn.
    await answerFirst(game.id, game.tokens[0]);
    await page.waitForFunction(() => document.title.startsWith('(1) '), null, { timeout: 60000 });
    const badge = page.locator('#topbar a[href="#/my-games"] .notice-count');
    assert.equal(await badge.textContent(), '1');
    assert.match(await badge.getAttribute('aria-label'), /1 new notice/);
    await shot(page, 'notices-title-badge-1280');
    assert.equal(asked, false, 'no permission asked on load');

    // My games shows the game waiting, and marks the notice seen.
    await page.click('#topbar a[href="#/my-games"]');
    await page.waitForFunction(() => !document.title.startsWith('('), null, { timeout: 30000 });
    assert.equal(await badge.count(), 0);

    // The account page offers browser notifications behind a click.
    await page.click('#topbar a[href="#/account"]');
    await page.locator('[data-action="save-notices"]').waitFor();
    assert.equal(asked, false, 'still not asked before the click');
    page.check();
  });
});
