// Play over days in the browser (issue 33): three people with accounts, each in a browser context
// of their own and in a language of their own, play a rated turn-based three-player Shogun table
// across simulated days. The test starts its own `tenka serve` with a movable clock
// (`--test-clock`, behind an operator token) and a loopback SMTP server as its relay, so no real
// hour passes and every mail the server sends is read.
//
// Day 0: sign up, create the table from the lobby (turn-based, rated, one year), join by the
// invite links, add the seats to the accounts, play a few turns; a "your turn" mail arrives.
// One player stops answering; the clock moves on two days; a bot takes the seat (every page
// shows it). Day 2: the others play on. The absent player comes back on another device through
// the mail's link, takes the seat back and steps through "Since your last move"; My games lists
// the game waiting for them first. Then Ann and Bo leave the table to bots and Cy plays it out;
// the ratings page shows Cy above the two who left, who share the last place. All five UI
// languages are checked on the way: the sign-up page, My games and the game's header, each in
// the language of the page showing them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BASE, ROOT, chooseRuleset, launch, openPage, setOption, shot } from './lib.mjs';
import { acknowledgeSummary, answer, newStats, rng, waitForTurn } from './play.mjs';
import { OWN_SERVER_SKIP } from './own-server.mjs';
import { advanceClock, body, header, spectate, startDaysServer, startSmtpSink, waitForMail, waitForView } from './days-support.mjs';

const TOKEN = 'e2e-days-operator-7c41be09d2a5f318';
const PASSWORD = 'a long enough passphrase';
const HOUR = 3600;
const SUFFIX = Date.now().toString(36).slice(-5);

/** The UI's own catalogue for a language. */
function catalogue(language) {
  return JSON.parse(fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', `${language}.json`), 'utf8'));
}

/** A catalogue text up to its first placeholder: what a page shows whatever the numbers. */
function lead(text) {
  return text.split('{')[0].trim();
}

/** The text of `selector` on `page`, trimmed. */
async function textOf(page, selector) {
  return (await page.locator(selector).first().innerText()).trim();
}

/** Signs up on the account page (checking it is in the page's language) and asks for mails. */
async function signUp(page, base, person) {
  const words = person.words;
  await page.goto(`${base}/#/account`);
  await page.waitForSelector('#account-name');
  assert.equal(await textOf(page, '.account-form h1'), words['account.title'], `the sign-up page is in ${person.language}`);
  assert.equal(await textOf(page, '[data-action="sign-up"]'), words['account.sign-up']);
  await page.fill('#account-name', person.name);
  await page.fill('#account-password', PASSWORD);
  await page.click('[data-action="sign-up"]');
  await page.waitForSelector('[data-action="attach-seats"]');
  // Notices by mail, "your turn" among them.
  await page.waitForSelector('#notice-email');
  await page.fill('#notice-email', person.email);
  await page.locator('#notice-mail').setChecked(true);
  await page.locator('#notice-your-turn').setChecked(true);
  await page.locator('#notice-replaced').setChecked(true);
  await page.click('[data-action="save-notices"]');
  await page.waitForFunction((saved) => document.querySelector('.notice-settings .form-status')?.textContent === saved, words['notices.saved']);
}

/** Adds this browser's seats to the signed-in account from the account page. */
async function attachSeats(page, base) {
  await page.goto(`${base}/#/account`);
  await page.click('[data-action="attach-seats"]');
  await page.waitForFunction(() => (document.querySelector('.account-panel .form-status, .form-status')?.textContent || '').trim().length > 0);
}

/** The game page of a seat this browser holds, with the story told at once. */
async function openSeat(page, base, gameId, seat) {
  // Set where the browser is: a route left before it has drawn may still draw over the next.
  await page.evaluate(() => localStorage.setItem('tenka.pace', 'instant'));
  await page.goto(`${base}/#/play/${encodeURIComponent(gameId)}?seat=${seat}`);
  await page.waitForSelector('.game[data-version]');
}

/** Checks the game's header and player list are in the page's language and show every clock. */
async function checkHeader(page, person, seat) {
  const words = person.words;
  await page.waitForFunction((youAre) => (document.querySelector('.game-status')?.textContent || '').includes(youAre), words['game.you-are']);
  assert.equal(await textOf(page, '#players-title'), words['game.players'], `the players' heading is in ${person.language}`);
  const seatName = await textOf(page, `.player[data-seat="${seat}"] .seat-name`);
  assert.equal(seatName, person.seatName);
  assert.equal(await page.locator('.player .seat-clock').count(), 3, 'every seat shows its clock');
}

/**
 * Answers, through each page's decision panel, whatever the seats of `pages` owe, until `done`
 * holds for the spectator's view; counts each seat's answers in `answered`.
 */
async function playUntil(base, gameId, pages, answered, done, what) {
  const random = rng(0x33);
  const stats = newStats();
  for (let round = 0; round < 200; round += 1) {
    const view = await spectate(base, gameId);
    if (done(view)) return view;
    if (view.status === 'finished') throw new Error(`the game ended before ${what}`);
    const due = view.waiting_for.filter((seat) => pages.has(seat) && !view.seats[seat].bot);
    if (!due.length) {
      // Bots or a seat left out are to move: wait for the game to move on.
      await waitForView(base, gameId, (next) => next.version !== view.version || done(next), `the game moving on towards ${what}`);
      continue;
    }
    for (const seat of due) {
      const page = pages.get(seat);
      await waitForTurn(page, 60000);
      const outcome = await answer(page, random, stats);
      if (outcome === 'sent') answered[seat] = (answered[seat] || 0) + 1;
    }
  }
  throw new Error(`never ${what}`);
}

test('regression_take_back_button_showed_the_my_games_hint: no catalogue names a key twice', () => {
  // "game.take-back" was in every catalogue twice; the later text (a hint about My games) won,
  // so the button that takes a seat back from a bot read as that hint.
  for (const language of ['en', 'de', 'es', 'ro', 'ru']) {
    const text = fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', `${language}.json`), 'utf8');
    const keys = [...text.matchAll(/^\s*"([^"]+)":/gm)].map((match) => match[1]);
    const twice = keys.filter((key, index) => keys.indexOf(key) !== index);
    assert.deepEqual(twice, [], `${language}.json names a key twice`);
  }
});

test('the shared server has no clock to move', async () => {
  const refused = await advanceClock(BASE, TOKEN, HOUR);
  assert.equal(refused.status, 404, 'without --test-clock the route does not exist');
});

test('a rated turn-based Shogun table of three accounts is played across simulated days', { skip: OWN_SERVER_SKIP, timeout: 6 * 60 * 1000 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tenka-e2e-days-'));
  const sink = await startSmtpSink();
  const server = await startDaysServer(dir, { token: TOKEN, smtpPort: sink.port });
  const base = server.base;
  const origin = new URL(base).origin;
  const browser = await launch();
  const person = (key, seatName, language, locale) => ({ name: `${key}-${SUFFIX}`, email: `${key}-${SUFFIX}@example.org`, seatName, language, locale, words: catalogue(language) });
  const ann = person('ann', 'Ann', 'en', 'en-GB');
  const bo = person('bo', 'Bo', 'de', 'de-DE');
  const cy = person('cy', 'Cy', 'ru', 'ru-RU');
  const pages = [];
  const open = async (who, size = {}) => {
    const page = await openPage(browser, { locale: who.locale, origin, ...size });
    pages.push(page);
    return page;
  };
  try {
    // Day 0. Three people sign up, each in a browser of their own and their own language.
    const [annPage, boPage, cyPage] = [await open(ann), await open(bo), await open(cy, { width: 390, height: 844 })];
    await Promise.all([signUp(annPage, base, ann), signUp(boPage, base, bo), signUp(cyPage, base, cy)]);
    await shot(cyPage, 'days-01-sign-up-ru-390');

    // Ann creates the table in the lobby: Shogun for three, one year, turn-based (a day a move
    // and a day in reserve), rated; two seats by invite.
    await annPage.goto(`${base}/#/`);
    await annPage.waitForSelector('#new-ruleset');
    await chooseRuleset(annPage, 'shogun');
    await annPage.selectOption('#new-count', '3');
    await annPage.selectOption('#seat-0-kind', 'human');
    await annPage.fill('#seat-0-name', ann.seatName);
    await annPage.selectOption('#seat-1-kind', 'invite');
    await annPage.selectOption('#seat-2-kind', 'invite');
    assert.ok(await setOption(annPage, 'years', 1), 'Shogun offers a one-year game');
    await annPage.selectOption('#new-pace', 'turn-based');
    await annPage.fill('#pace-move_hours', '24');
    await annPage.fill('#pace-extra_days', '1');
    await annPage.locator('#new-rated').setChecked(true);
    await annPage.click('.advanced summary');
    await annPage.fill('#new-seed', '5eed0033'.padEnd(64, '0'));
    await annPage.click('[data-action="create"]');
    await annPage.waitForSelector('.created:not([hidden])[data-game-id]');
    const gameId = await annPage.locator('.created').getAttribute('data-game-id');
    const [boLink, cyLink] = await Promise.all([1, 2].map((seat) => annPage.locator(`[data-invite="${seat}"]`).inputValue()));
    // The lobby shows the table's pace.
    await annPage.waitForSelector(`.game-row[data-game="${gameId}"] .badge.pace`);
    assert.equal(await textOf(annPage, `.game-row[data-game="${gameId}"] .badge.pace`), '24 h a move + 1 d');
    await shot(annPage, 'days-02-created-1280');
    await attachSeats(annPage, base);

    // The others join by their links and add their seats to their accounts.
    for (const [page, who, link] of [[boPage, bo, boLink], [cyPage, cy, cyLink]]) {
      await page.goto(link);
      await page.waitForSelector('#join-name');
      await page.fill('#join-name', who.seatName);
      await page.click('[data-action="join"]');
      await page.waitForSelector('.game[data-version]');
      await attachSeats(page, base);
    }
    const seatPages = new Map([[0, annPage], [1, boPage], [2, cyPage]]);
    const people = [ann, bo, cy];
    for (const [seat, page] of seatPages) {
      // My games, in each person's language, lists the table under the heading its state names.
      const words = people[seat].words;
      await page.goto(`${base}/#/my-games`);
      await page.waitForSelector(`.my-games [data-game="${gameId}"]`);
      assert.equal(await textOf(page, '.my-games h1'), words['header.my-games'], `My games is in ${people[seat].language}`);
      const status = await page.locator(`.my-games [data-game="${gameId}"]`).getAttribute('data-status');
      assert.equal(await textOf(page, '.my-games section h2'), words[`my-games.${status}`]);
      const games = await page.evaluate(async () => (await (await fetch('/api/me/games')).json()).games);
      assert.deepEqual(games.map((g) => [g.id, g.seat]), [[gameId, seat]], `seat ${seat + 1} is in its account`);
      await openSeat(page, base, gameId, seat);
      await checkHeader(page, people[seat], seat);
    }

    // A refused clock request changes nothing: no token, a wrong one, a step out of bounds.
    assert.equal((await advanceClock(base, null, HOUR)).status, 403);
    assert.equal((await advanceClock(base, 'not-the-operator-token', HOUR)).status, 403);
    assert.equal((await advanceClock(base, TOKEN, 0)).status, 400);
    assert.equal((await advanceClock(base, TOKEN, 31 * 24 * HOUR)).status, 400);

    // A few turns, every seat answering, until Cy has been told by mail it is their turn.
    const answered = {};
    // Each mail is worded in its account's language (Cy's in Russian).
    const cyTold = (mail) => mail.to.includes(cy.email) && /^Ваш ход в партии/.test(header(mail, 'Subject') || '');
    await playUntil(base, gameId, seatPages, answered, (view) => [0, 1, 2].every((s) => answered[s] >= 2) && sink.mails.some(cyTold) && view.waiting_for.includes(2), 'every seat answered twice and Cy was mailed');
    const turnMail = sink.mails.find(cyTold);
    const link = body(turnMail).match(/http:\/\/127\.0\.0\.1:\d+\/api\/notices\/open\/[0-9a-f]+/);
    assert.ok(link, `the mail carries a sign-in link: ${body(turnMail)}`);
    assert.ok(link[0].startsWith(base), 'the link is on the public address');
    assert.ok(!body(turnMail).includes(PASSWORD), 'no secret in the mail');

    // Cy stops answering (closes the page); Ann and Bo answer until only Cy is owed.
    await cyPage.context().close();
    seatPages.delete(2);
    const before = await playUntil(base, gameId, seatPages, answered, (view) => view.waiting_for.length === 1 && view.waiting_for[0] === 2, 'only Cy is owed an answer');
    const cyClock = before.clocks.seats.find((c) => c.seat === 2);
    assert.ok(cyClock.running && cyClock.remaining_ms > 24 * HOUR * 1000, `Cy's clock runs with more than a day left: ${JSON.stringify(cyClock)}`);
    await annPage.waitForSelector('.player[data-seat="2"].waiting');
    await shot(annPage, 'days-03-waiting-for-cy-1280');

    // Two days later: Cy's day and reserve day are spent; a bot takes the seat.
    const moved = await advanceClock(base, TOKEN, 49 * HOUR);
    assert.equal(moved.status, 200);
    await waitForView(base, gameId, (view) => view.seats[2].bot, 'a bot took the seat out of time');
    for (const [seat, page] of seatPages) {
      const words = people[seat].words;
      await page.waitForFunction((bot) => [...document.querySelectorAll('.player[data-seat="2"] .tag')].some((tag) => tag.textContent === bot), words['game.bot']);
      await page.waitForSelector('.player[data-seat="2"] .seat-clock.timed-out');
    }
    await waitForMail(sink, (mail) => mail.to.includes(ann.email) && /^A bot took seat 3/.test(header(mail, 'Subject') || ''), 'telling Ann a bot took seat 3');
    await shot(annPage, 'days-04-bot-took-cy-1280');

    // Day 2: Ann and Bo play on; the bot answers for Cy.
    const played = { ...answered };
    await playUntil(base, gameId, seatPages, answered, () => answered[0] >= played[0] + 2 && answered[1] >= played[1] + 2, 'Ann and Bo answered twice more');

    // Cy has another game of theirs in which the other player is to move, changed more
    // recently than the table (My games must still list the table first once it waits for Cy).
    const shogun = (await (await fetch(`${base}/api/rulesets`)).json()).find((r) => r.id === 'shogun');
    const map = (shogun.maps.find((m) => m.valid !== false) || shogun.maps[0]).id;
    let other;
    for (const seed of ['01', '02', '03', '04', '05', '06']) {
      const created = await fetch(`${base}/api/games`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ruleset: 'shogun', map, seed: seed.padEnd(64, '0'), seats: [{ kind: 'human' }, { kind: 'human' }, { kind: 'human', creator: true }] }) });
      assert.equal(created.status, 201, await created.clone().text());
      other = await created.json();
      if (!(await spectate(base, other.id)).waiting_for.includes(2)) break;
    }

    // Cy comes back on another device, in Spanish this time, through the mail's link.
    const cyBack = { ...cy, language: 'es', locale: 'es-ES', words: catalogue('es') };
    const cyPhone = await open(cyBack, { width: 390, height: 844 });
    await cyPhone.goto(`${base}/#/account`);
    await cyPhone.waitForSelector('.account-form h1');
    assert.equal(await textOf(cyPhone, '.account-form h1'), cyBack.words['account.title'], 'the sign-in page is in Spanish');
    assert.equal(await textOf(cyPhone, '[data-action="sign-up"]'), cyBack.words['account.sign-up']);
    await cyPhone.goto(link[0]);
    await cyPhone.click('button[type="submit"]');
    // The mail's link opens the game itself, at Cy's seat, signed in.
    await cyPhone.waitForSelector('.game[data-version]');
    assert.ok(cyPhone.url().includes(encodeURIComponent(gameId)) || cyPhone.url().includes(gameId), `the link opened the game: ${cyPhone.url()}`);
    await cyPhone.goto(`${base}/#/my-games`);
    await cyPhone.waitForSelector(`.my-games [data-game="${gameId}"]`);
    assert.equal(await textOf(cyPhone, '.my-games h1'), cyBack.words['header.my-games'], 'My games is in Spanish');
    const attached = await cyPhone.evaluate(async ({ id, token }) => {
      const { csrf_token: csrf } = await (await fetch('/api/me')).json();
      const answer = await fetch('/api/me/seats', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: JSON.stringify({ seats: [{ game: id, token }] }) });
      return (await answer.json()).seats[0].outcome;
    }, { id: other.id, token: other.seats[2].token });
    assert.equal(attached, 'attached');
    await cyPhone.evaluate(() => localStorage.setItem('tenka.pace', 'instant'));
    await cyPhone.goto(`${base}/#/my-games`);
    await cyPhone.click(`[data-play="${gameId}"]`);
    await cyPhone.waitForSelector('.game[data-version]');
    await checkHeader(cyPhone, cyBack, 2);
    // The seat is the bot's: Cy takes it back.
    const takeBack = cyPhone.locator('.players button', { hasText: cyBack.words['game.take-back'] });
    await takeBack.waitFor();
    await shot(cyPhone, 'days-05-back-es-390');
    await takeBack.click();
    await cyPhone.locator('.players button', { hasText: cyBack.words['game.hand-to-bot'] }).waitFor();
    await waitForView(base, gameId, (view) => !view.seats[2].bot, 'Cy has the seat back');
    // "Since your last move": what the bot did for Cy and what the others did, step by step.
    const recapButton = cyPhone.locator('[data-recap="open"]');
    await recapButton.waitFor();
    const missed = Number((await recapButton.innerText()).match(/\d+/)[0]);
    assert.ok(missed >= 4, `Cy missed at least four entries, not ${missed}`);
    assert.ok((await recapButton.innerText()).startsWith(lead(cyBack.words['recap.button'])), 'the recap button is in Spanish');
    await recapButton.click();
    await cyPhone.waitForFunction((step) => document.querySelector('.recap .recap-counter')?.textContent.startsWith(step), lead(cyBack.words['recap.step']));
    let sawBot = false;
    for (let step = 1; step < missed && !sawBot; step += 1) {
      sawBot = (await cyPhone.locator('.recap .recap-log .log-bot').count()) > 0;
      if (!sawBot) await cyPhone.click('[data-recap="next"]');
    }
    sawBot ||= (await cyPhone.locator('.recap .recap-log .log-bot').count()) > 0;
    assert.ok(sawBot, "the recap shows a move the bot made for Cy's seat");
    await shot(cyPhone, 'days-06-recap-es-390');
    await cyPhone.keyboard.press('Escape');
    await cyPhone.waitForSelector('.recap', { state: 'detached' });

    // Ann and Bo answer; the table waits for Cy, who is told by mail again.
    const cyMails = sink.mails.filter(cyTold).length;
    await playUntil(base, gameId, seatPages, answered, (view) => view.waiting_for.includes(2), 'the table waits for Cy');
    await waitForMail(sink, (mail) => cyTold(mail) && sink.mails.filter(cyTold).indexOf(mail) >= cyMails, 'telling Cy again it is their turn');
    await cyPhone.waitForFunction((yourTurn) => (document.querySelector('.game-status')?.textContent || '').includes(yourTurn), cyBack.words['game.your-turn']);
    // My games: the table waiting for Cy first, the other game after it.
    await cyPhone.goto(`${base}/#/my-games`);
    await cyPhone.waitForSelector(`.my-games [data-game="${other.id}"]`);
    const rows = await cyPhone.locator('.my-games [data-game]').evaluateAll((items) => items.map((row) => [row.dataset.game, row.dataset.status]));
    assert.deepEqual(rows, [[gameId, 'waiting'], [other.id, 'running']], 'the game waiting for Cy comes first');
    assert.equal(await textOf(cyPhone, '.my-games section h2'), cyBack.words['my-games.waiting']);
    await shot(cyPhone, 'days-07-my-games-es-390');

    // The end: Ann and Bo leave the table to bots; Cy plays it out.
    await cyPhone.click(`[data-play="${gameId}"]`);
    await cyPhone.waitForSelector('.game[data-version]');
    for (const [page, words] of [[annPage, ann.words], [boPage, bo.words]]) {
      const leave = page.locator('.players button', { hasText: words['game.hand-to-bot'] });
      await leave.click();
      await page.locator('.players button', { hasText: words['game.take-back'] }).waitFor();
    }
    const endStart = Date.now();
    await playUntil(base, gameId, new Map([[2, cyPhone]]), answered, (view) => view.status === 'finished', 'the game ended');
    console.log(`# Cy played the game out in ${Date.now() - endStart} ms; answers per seat: ${JSON.stringify(answered)}`);
    const finished = await spectate(base, gameId);
    assert.equal(finished.result.placings.length, 3);
    // The last winter's scores come first, as a pause to acknowledge; then the end.
    for (let pauses = 0; pauses < 5; pauses += 1) {
      await waitForTurn(cyPhone, 30000);
      if (!(await acknowledgeSummary(cyPhone))) break;
    }
    await cyPhone.waitForFunction((over) => (document.querySelector('.game-status')?.textContent || '').includes(over), cyBack.words['game.finished']);
    await waitForMail(sink, (mail) => mail.to.includes(bo.email) && /ist beendet$/.test(header(mail, 'Subject') || ''), 'telling Bo the game ended');

    // A fifth person, in Romanian: sign-up page, an empty My games, the finished table watched,
    // and the ratings: the three accounts on the three-player Shogun ladder, one game each.
    const ro = person('dan', 'Dan', 'ro', 'ro-RO');
    const roPage = await open(ro);
    await signUp(roPage, base, ro);
    await roPage.goto(`${base}/#/my-games`);
    await roPage.waitForSelector('.my-games h1');
    assert.equal(await textOf(roPage, '.my-games h1'), ro.words['header.my-games']);
    assert.equal(await textOf(roPage, '.my-games .hint'), ro.words['my-games.empty']);
    await roPage.goto(`${base}/#/watch/${encodeURIComponent(gameId)}`);
    await roPage.waitForSelector('.game[data-version]');
    await roPage.waitForFunction(([watching, over]) => {
      const status = document.querySelector('.game-status')?.textContent || '';
      return status.includes(watching) && status.includes(over);
    }, [ro.words['game.spectating'], ro.words['game.finished']]);
    await roPage.goto(`${base}/#/ratings?ruleset=shogun&players=3`);
    await roPage.waitForSelector('table.ratings tbody tr');
    assert.equal(await textOf(roPage, '.ratings-page h1'), ro.words['ratings.title']);
    const ladder = await roPage.locator('table.ratings tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((cell) => cell.textContent.trim())));
    const rowOf = (who) => {
      const row = ladder.find((cells) => cells[1] === who.name);
      assert.ok(row, `${who.name} is on the ladder: ${JSON.stringify(ladder)}`);
      assert.equal(row[4], '1', `${who.name} has one rated game`);
      assert.notEqual(row[3], '± 700', `${who.name}'s rating is less uncertain than a newcomer's`);
      return { place: Number(row[0]), rating: Number(row[2]) };
    };
    const [annRow, boRow, cyRow] = [rowOf(ann), rowOf(bo), rowOf(cy)];
    // Ann and Bo left their seats to bots: they share the last place, below Cy, who played on.
    assert.ok(cyRow.rating > 1500 && cyRow.place < annRow.place && cyRow.place < boRow.place, `Cy ranks above the players who left: ${JSON.stringify(ladder)}`);
    assert.ok(annRow.rating < 1500 && annRow.rating === boRow.rating, `Ann and Bo lost as equals: ${JSON.stringify(ladder)}`);
    await shot(roPage, 'days-08-ratings-ro-1280');

    for (const page of pages) if (!page.isClosed()) page.check();
  } catch (error) {
    // What each page showed when the scenario stopped.
    for (const [index, page] of pages.entries()) if (!page.isClosed()) await shot(page, `days-failed-${index}`).catch(() => {});
    throw error;
  } finally {
    await browser.close();
    sink.close();
    server.child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  assert.ok(!server.log().includes(TOKEN), 'the server never logs the operator token');
});
