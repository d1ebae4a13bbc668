// Invites in the browser: the creator's browser keeps only its own seat and the game's host token;
// an invite link asks for a name and works once; a revoked link opens nothing and a new link
// does; the creator manages invites again later from its games list; no page ever puts a seat
// token or an invite code into a URL it requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, createGame, launch, openPage, pickRuleset, playableMap, shot, withBrowser } from './lib.mjs';

/** What a page keeps for a game in localStorage. */
async function stored(page, gameId) {
  return page.evaluate((id) => JSON.parse(localStorage.getItem('tenka.games.v1') || '{}')[id] || null, gameId);
}

/** Opens an invite link in `page`, types a name and joins; returns the alert text if refused. */
async function joinWith(page, link, name) {
  await page.goto(link);
  await page.waitForSelector('#join-name');
  // The code left the address bar at once.
  assert.ok(!page.url().includes('code='), 'the invite code is not left in the address bar');
  await page.fill('#join-name', name);
  await page.click('[data-action="join"]');
  const outcome = await Promise.race([
    page.waitForSelector('.game[data-version]').then(() => null),
    page.waitForSelector('.join-form .form-error:not([hidden])').then((el) => el.innerText()),
  ]);
  return outcome;
}

test('an invite link is exchanged once for a seat; the creator keeps only its own seat', { timeout: 5 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset); // none for a ruleset that takes no map
  const seats = ['human', 'invite', 'invite', ...Array(Math.max(0, ruleset.min_seats - 3)).fill('bot:random')];
  const browser = await launch();
  const pages = [];
  try {
    const creator = await openPage(browser);
    pages.push(creator);
    const gameId = await createGame(creator, { ruleset: ruleset.id, map, seats, seed: '5eed0005'.padEnd(64, '0') });
    const links = [1, 2].map(async (seat) => creator.locator(`[data-invite="${seat}"]`).inputValue());
    const [link1, link2] = await Promise.all(links);
    assert.match(link1, /#\/join\/[^?]+\?code=[0-9a-f]{64}$/);
    await shot(creator, 'invites-01-created');

    // The creator's browser: its own seat's token and the host token, nothing of seats 1 and 2.
    const kept = await stored(creator, gameId);
    assert.deepEqual(Object.keys(kept.seats), ['0']);
    assert.ok(typeof kept.host === 'string' && kept.host.length >= 32, 'the host token is kept');
    const everything = await creator.evaluate(() => JSON.stringify(localStorage));
    for (const link of [link1, link2]) assert.ok(!everything.includes(link.split('code=')[1]), 'invite codes are not kept');

    // Seat 2's link is revoked before anyone uses it.
    await creator.click('[data-revoke="2"]');
    await creator.waitForSelector('[data-new-link="2"]');

    // A person opens seat 1's link, gives a name and plays the seat.
    const guest = await openPage(browser);
    pages.push(guest);
    assert.equal(await joinWith(guest, link1, 'Bea'), null);
    await guest.waitForFunction(() => document.querySelector('.game-status .viewer .seat-name')?.textContent === 'Bea');
    assert.match(guest.url(), /#\/play\/[^?]+\?seat=1$/);
    assert.deepEqual(Object.keys((await stored(guest, gameId)).seats), ['1']);
    await shot(guest, 'invites-02-joined');

    // The same link a second time, and the revoked link, open nothing.
    const latecomer = await openPage(browser);
    pages.push(latecomer);
    const used = await joinWith(latecomer, link1, 'Eve');
    assert.match(used, /used or revoked/);
    await shot(latecomer, 'invites-03-used-link');
    assert.match(await joinWith(latecomer, link2, 'Eve'), /used or revoked/);
    assert.equal(await stored(latecomer, gameId), null, 'nothing is kept for a refused link');

    // The creator plays its own seat and claims it under a name: the seat gets a fresh token,
    // which this browser keeps, and the game goes on (the live stream reopens with it).
    await creator.click('[data-play-seat="0"]');
    await creator.waitForSelector('.claim:not([hidden]) #claim-name');
    await creator.fill('#claim-name', 'Ann');
    await creator.click('.claim-form button[type="submit"]');
    await creator.waitForFunction(() => document.querySelector('.game-status .viewer .seat-name')?.textContent === 'Ann');
    const claimed = (await stored(creator, gameId)).seats['0'];
    assert.ok(claimed && claimed !== kept.seats['0'], 'the claimed seat has a new token');
    await creator.waitForFunction(() => document.querySelector('.connection')?.hidden === true);
    await shot(creator, 'invites-05-claimed');

    // The creator makes a new link for seat 2 from its games list.
    await creator.goto(`${BASE}/#/`);
    await creator.click(`[data-invites="${gameId}"]`);
    await creator.waitForSelector(`[data-invites-of="${gameId}"] [data-new-link="2"]`);
    assert.match(await creator.locator(`[data-invites-of="${gameId}"] [data-invite-seat="1"]`).innerText(), /taken/);
    await creator.click(`[data-invites-of="${gameId}"] [data-new-link="2"]`);
    const link3 = await creator.locator(`[data-invites-of="${gameId}"] [data-invite="2"]`).inputValue();
    assert.notEqual(link3, link2);
    await shot(creator, 'invites-04-manage');
    assert.equal(await joinWith(latecomer, link3, 'Cy'), null);
    assert.deepEqual(Object.keys((await stored(latecomer, gameId)).seats), ['2']);

    // No page put a seat token, a host token or an invite code into any URL it requested.
    const secrets = [kept.host, ...Object.values(kept.seats), claimed];
    for (const page of [guest, latecomer]) secrets.push(...Object.values((await stored(page, gameId)).seats));
    for (const link of [link1, link2, link3]) secrets.push(link.split('code=')[1]);
    for (const page of pages) {
      // What a server sees: never the fragment, where an invite link carries its code.
      for (const url of page.urls.map((u) => u.split('#')[0])) {
        assert.ok(!/[?&](token|code)=/.test(url), `a secret parameter in ${url}`);
        for (const secret of secrets) assert.ok(!url.includes(secret), `a secret in ${url}`);
      }
      page.check();
    }
  } finally {
    await browser.close();
  }
});

test('regression_invite_rows_named_default_seats_in_english', { timeout: 2 * 60 * 1000 }, async () => {
  // The invite rows shown right after creating a game, and the invites panel of the games list,
  // named seats nobody had named with the server's English default ("Player 2") on a page in
  // another language.
  const ruleset = await pickRuleset();
  const map = playableMap(ruleset);
  const seats = ['human', 'invite', ...Array(Math.max(0, ruleset.min_seats - 2)).fill('bot:random')];
  await withBrowser(async (browser) => {
    const page = await openPage(browser, { locale: 'ru-RU' });
    await createGame(page, { ruleset: ruleset.id, map, seats, seed: '5eed0006'.padEnd(64, '0') });
    const created = await page.locator('.created .invites').innerText();
    assert.doesNotMatch(created, /Player \d|Bot \d/, `the created game's invite rows are in Russian: ${created}`);
    assert.match(created, /Игрок 2/);
    const label = await page.locator('[data-invite="1"]').getAttribute('aria-label');
    assert.doesNotMatch(label, /Player \d/);
  });
});
