// Passkeys in the browser, through Chromium's virtual authenticator (the DevTools protocol's
// WebAuthn domain): an account made with a passkey by keyboard alone, signed out, and signed in
// with the same passkey from a second browser context (its authenticator given the credential,
// as a synced passkey would be), which then sees the account's games in My games and opens one
// from a mail's link (#/my-games?game=&seat=) at its seat; in every language the UI offers. The
// server listens on 127.0.0.1, but WebAuthn takes no IP address as relying party: these pages
// open it as http://localhost:PORT (a secure context), and the page opened by address says so.
// The account page with its passkeys is checked with axe-core at both sizes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, BASE, openPage, pickRuleset, playableMap, ROOT, shot, withBrowser } from './lib.mjs';

const LANGUAGES = { en: 'en-GB', de: 'de-DE', es: 'es-ES', ro: 'ro-RO', ru: 'ru-RU' };
const LOCAL = BASE.replace('//127.0.0.1', '//localhost');
const LOCAL_ORIGIN = new URL(LOCAL).origin;
const AXE_SOURCE = fs.readFileSync(path.join(ROOT, 'tests', 'e2e', 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

function catalogue(language) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', `${language}.json`), 'utf8'));
}

/** A virtual platform authenticator (resident keys, user verification) for the page's context. */
async function virtualAuthenticator(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return {
    credentials: async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials,
    add: (credential) => cdp.send('WebAuthn.addCredential', { authenticatorId, credential }),
  };
}

/** Presses Tab until the control `selector` has the focus (at most 20 times); then Enter. */
async function pressByKeyboard(page, selector) {
  for (let presses = 0; presses < 20; presses += 1) {
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector)) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('Tab');
  }
  assert.fail(`${selector} is not reachable with Tab`);
}

/** axe-core's serious and critical findings on the page as it stands. */
async function seriousFindings(page) {
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

test('a passkey makes an account and signs it in from a second browser, in five languages', { timeout: 10 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset);
  const bots = Array(Math.max(0, ruleset.min_seats - 1)).fill({ kind: 'bot', bot: 'random' });
  await withBrowser(async (browser) => {
    for (const [language, locale] of Object.entries(LANGUAGES)) {
      const words = catalogue(language);
      const name = `kagi-${language}-${Date.now().toString(36)}`;
      // A guest's game, its seat held by the first browser.
      const game = await api('/api/games', { method: 'POST', body: { ruleset: ruleset.id, map, seats: [{ kind: 'human', creator: true }, ...bots] } });
      const token = game.seats[0].token;
      assert.ok(token, 'the creator holds its seat');

      const desk = await openPage(browser, { locale, origin: LOCAL_ORIGIN });
      const deskKeys = await virtualAuthenticator(desk);
      await desk.goto(`${LOCAL}/#/account`);
      await desk.waitForSelector('#account-name');
      await desk.evaluate(async ([id, seatToken, rulesetId]) => (await import('/src/store.js')).saveSeat(id, 0, seatToken, { ruleset: rulesetId }), [game.id, token, ruleset.id]);
      assert.equal((await desk.locator('[data-action="passkey-sign-up"]').innerText()).trim(), words['account.passkey-sign-up']);
      // By keyboard alone: the name, then Tab to "Create account with a passkey".
      await desk.focus('#account-name');
      await desk.keyboard.type(name);
      await pressByKeyboard(desk, '[data-action="passkey-sign-up"]');
      await desk.waitForSelector('[data-action="attach-seats"]');
      assert.equal((await desk.locator('#account-title').innerText()).trim(), words['account.signed-in-as'].replace('{name}', name));
      await desk.waitForSelector('.passkey-row');
      assert.equal(await desk.locator('.passkey-row').count(), 1, 'the new passkey is listed');
      const held = await deskKeys.credentials();
      assert.equal(held.length, 1, 'the authenticator holds one credential');
      assert.equal(held[0].isResidentCredential, true, 'a discoverable credential');
      assert.equal(held[0].rpId, 'localhost');
      if (language === 'en') {
        for (const [width, height] of [[1280, 800], [390, 844]]) {
          await desk.setViewportSize({ width, height });
          assert.deepEqual(await seriousFindings(desk), [], `the signed-in account page at ${width}x${height}`);
        }
        await desk.setViewportSize({ width: 1280, height: 800 });
      }
      await shot(desk, `passkeys-account-${language}`);
      await desk.click('[data-action="attach-seats"]');
      await desk.waitForFunction(() => (document.querySelector('.form-status')?.textContent || '').trim().length > 0);
      assert.equal((await desk.locator('.form-status').first().innerText()).trim(), words['account.attached'].replace('{added}', '1').replace('{refused}', '0'));
      await desk.click('[data-action="sign-out"]');
      await desk.waitForSelector('[data-action="passkey-sign-in"]');

      // A second browser: the same passkey (as a synced one), no name typed.
      const phone = await openPage(browser, { width: 390, height: 844, locale, origin: LOCAL_ORIGIN });
      const phoneKeys = await virtualAuthenticator(phone);
      await phoneKeys.add(held[0]);
      await phone.goto(`${LOCAL}/#/account`);
      await phone.waitForSelector('#account-name');
      if (language === 'en') assert.deepEqual(await seriousFindings(phone), [], 'the signed-out account page on a phone');
      await phone.focus('#account-name');
      await pressByKeyboard(phone, '[data-action="passkey-sign-in"]');
      await phone.waitForSelector('[data-action="attach-seats"]');
      assert.equal((await phone.locator('#account-title').innerText()).trim(), words['account.signed-in-as'].replace('{name}', name));
      const used = await phoneKeys.credentials();
      assert.ok(used[0].signCount > held[0].signCount, `the counter grew (${held[0].signCount} to ${used[0].signCount})`);

      await phone.goto(`${LOCAL}/#/my-games`);
      await phone.waitForSelector(`.my-games [data-game="${game.id}"]`);
      assert.equal((await phone.locator('.my-games h1').innerText()).trim(), words['header.my-games']);
      await shot(phone, `passkeys-my-games-${language}-390`);
      // A mail's link opens the game itself, at the seat.
      await phone.goto(`${LOCAL}/#/my-games?game=${game.id}&seat=0`);
      await phone.waitForFunction((id) => location.hash.startsWith(`#/play/${id}`), game.id);
      await phone.waitForSelector('.game[data-version]');

      for (const page of [desk, phone]) {
        page.check();
        await page.context().close();
      }
    }
  });
});

test('a page opened by IP address says passkeys need the server name, in its language', async () => {
  await withBrowser(async (browser) => {
    for (const [language, locale] of [['de', 'de-DE'], ['en', 'en-GB']]) {
      const page = await openPage(browser, { locale });
      await virtualAuthenticator(page);
      await page.goto(`${BASE}/#/account`);
      await page.waitForSelector('[data-action="passkey-sign-in"]');
      await page.click('[data-action="passkey-sign-in"]');
      await page.waitForSelector('.form-error:not([hidden])');
      assert.equal((await page.locator('.form-error').innerText()).trim(), catalogue(language)['account.passkey-needs-name']);
      page.check();
      await page.context().close();
    }
  });
});
