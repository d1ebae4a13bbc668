// Accounts in the browser: a guest's seats are added to an account on one device, and the
// account plays them from another device (a phone) in every language the UI offers. My games
// lists the games waiting for the account first, longest waiting first, with who else plays and
// the pace; taking a seat to the new device ends the old device's token; no page ever puts a
// token or a password into a URL it requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { BASE, createGame, openPage, pickRuleset, playableMap, ROOT, shot, withBrowser } from './lib.mjs';

const LANGUAGES = { en: 'en-GB', de: 'de-DE', es: 'es-ES', ro: 'ro-RO', ru: 'ru-RU' };
const PASSWORD = 'a long enough passphrase';

/** The UI's own catalogue for a language, to read what a page must say. */
function catalogue(language) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', `${language}.json`), 'utf8'));
}

/** Fills the account form and presses sign up or sign in; waits for the signed-in page. */
async function signIn(page, name, action) {
  await page.goto(`${BASE}/#/account`);
  await page.waitForSelector('#account-name');
  await page.fill('#account-name', name);
  await page.fill('#account-password', PASSWORD);
  await page.click(`[data-action="${action}"]`);
  await page.waitForSelector('[data-action="attach-seats"]');
}

/** The seat token a page keeps for a game's seat. */
async function heldToken(page, gameId, seat) {
  return page.evaluate(([id, s]) => (JSON.parse(localStorage.getItem('tenka.games.v1') || '{}')[id] || { seats: {} }).seats[String(s)] || null, [gameId, seat]);
}

test("an account's seats are played from a second device, waiting games first, in five languages", { timeout: 10 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset);
  const bots = Array(Math.max(0, ruleset.min_seats - 2)).fill('bot:random');
  await withBrowser(async (browser) => {
    for (const [language, locale] of Object.entries(LANGUAGES)) {
      const words = catalogue(language);
      const name = `player-${language}-${Date.now().toString(36)}`;
      // Device one: two games with a seat each and a friend invited, then an account.
      const desk = await openPage(browser, { locale });
      const older = await createGame(desk, { ruleset: ruleset.id, map, seats: ['human', 'invite', ...bots] });
      await desk.goto('about:blank'); // a fresh lobby, not the one still showing the first game
      const newer = await createGame(desk, { ruleset: ruleset.id, map, seats: ['human', 'invite', ...bots] });
      const deskToken = await heldToken(desk, older, 0);
      assert.ok(deskToken, 'the creating device holds its seat');
      await signIn(desk, name, 'sign-up');
      await desk.click('[data-action="attach-seats"]');
      await desk.waitForFunction(() => (document.querySelector('.form-status')?.textContent || '').trim().length > 0);

      // Device two, a phone: sign in, My games in this language, the older game first.
      const phone = await openPage(browser, { width: 390, height: 844, locale });
      await signIn(phone, name, 'sign-in');
      await phone.goto(`${BASE}/#/my-games`);
      await phone.waitForSelector('.my-games [data-game]');
      assert.equal((await phone.locator('.my-games h1').innerText()).trim(), words['header.my-games']);
      const listed = await phone.locator('.my-games [data-game]').evaluateAll((rows) => rows.map((row) => [row.dataset.game, row.dataset.status]));
      // The page keeps the server's order (waiting first, longest waiting first: tests/it/accounts.rs)
      // and shows every game; which of the two waits depends on the bots' first moves.
      const served = await phone.evaluate(async () => (await (await fetch('/api/me/games')).json()).games.map((g) => [g.id, g.status]));
      assert.deepEqual(listed, served, 'My games lists the games in the order the server gives');
      assert.deepEqual(listed.map(([id]) => id).sort(), [older, newer].sort(), 'both games are listed on the second device');
      const rank = { waiting: 0, running: 1, finished: 2 };
      assert.deepEqual(listed.map(([, status]) => rank[status]), listed.map(([, status]) => rank[status]).sort(), 'games waiting for the account come first');
      const sections = await phone.locator('.my-games section h2').allInnerTexts();
      assert.equal(sections[0].trim(), words[`my-games.${listed[0][1]}`], 'the first section is named in this language');
      const firstRow = await phone.locator(`.my-games [data-game="${older}"]`).innerText();
      const against = words['my-games.against'].split('{names}')[0].trim();
      assert.ok(firstRow.includes(against), `the row names the other players (${against}): ${firstRow}`);
      const defaultName = words['seat.default'].replace('{n}', '2');
      assert.ok(firstRow.includes(defaultName), `a seat nobody named is named in this language (${defaultName}): ${firstRow}`);
      const overflow = await phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `My games fits a phone's width in ${language} (${overflow} px over)`);
      await shot(phone, `accounts-my-games-${language}-390`);

      // Taking the seat to the phone plays it there and ends the desk's token.
      await phone.click(`[data-play="${older}"]`);
      await phone.waitForSelector('.game[data-version]');
      assert.match(await phone.evaluate(() => location.hash), new RegExp(`^#/play/${older}`));
      const phoneToken = await heldToken(phone, older, 0);
      assert.ok(phoneToken && phoneToken !== deskToken, 'the phone holds a fresh token for the seat');
      const oldAnswer = await fetch(`${BASE}/api/games/${older}/view`, { headers: { Authorization: `Bearer ${deskToken}` } });
      assert.ok(oldAnswer.status === 401 || oldAnswer.status === 403, `the desk's old token no longer acts (${oldAnswer.status})`);
      const newAnswer = await fetch(`${BASE}/api/games/${older}/view`, { headers: { Authorization: `Bearer ${phoneToken}` } });
      assert.equal(newAnswer.status, 200, "the phone's token shows the seat's view");

      for (const page of [desk, phone]) {
        const leaked = page.urls.filter((url) => url.includes(PASSWORD.replaceAll(' ', '%20')) || (deskToken && url.includes(deskToken)) || (phoneToken && url.includes(phoneToken)));
        assert.deepEqual(leaked, [], 'no token or password in any URL the page asked for');
        page.check();
        await page.context().close();
      }
    }
  });
});
