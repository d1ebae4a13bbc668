// Measures a whole game as a person plays it at the normal pace, as the third review did: the
// clicks from the lobby to the results and the time spent waiting for the bots and the story
// (from each answer sent until the next question can be answered). Not a test (it asserts
// nothing and takes minutes); run it against a server with the usual bot pace:
//
//   tenka serve --addr 127.0.0.1:8790 --bot-pace-ms 300 --allow-fixed-seeds ... &
//   E2E_BASE_URL=http://127.0.0.1:8790 node tests/e2e/measure-pace.mjs [ruleset] [years]
//
// It prints one line: clicks, decisions, summaries, waiting seconds, wall-clock seconds.
import { createGame, enterGame, launch, openPage } from './lib.mjs';
import { acknowledgeSummary, answer, newStats, rng, screenState, waitForTurn } from './play.mjs';

const rulesetId = process.argv[2] || 'shogun';
const years = Number(process.argv[3] || 2);
const browser = await launch();
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' });
  await context.addInitScript(() => {
    document.addEventListener('click', (event) => {
      if (event.isTrusted) sessionStorage.setItem('tenka.test.clicks', String(Number(sessionStorage.getItem('tenka.test.clicks') || 0) + 1));
    }, true);
    localStorage.setItem('tenka.pace', 'normal');
  });
  const page = await openPage(browser, { context });
  const started = Date.now();
  await createGame(page, { ruleset: rulesetId, seats: ['human', 'bot:hard', 'bot:hard', 'bot:hard'], options: rulesetId === 'shogun' ? { years } : {}, seed: '5eed0021'.padEnd(64, '0') });
  await enterGame(page);
  const random = rng(21);
  const stats = newStats();
  let waiting = 0;
  let decisions = 0;
  for (let step = 0; step < 1000; step += 1) {
    const before = Date.now();
    await waitForTurn(page, 600000);
    waiting += Date.now() - before;
    if (await acknowledgeSummary(page, stats)) continue;
    if ((await screenState(page)).status === 'finished') break;
    const outcome = await answer(page, random, stats);
    if (outcome !== 'none' && outcome !== 'summary') decisions += 1;
  }
  await page.waitForSelector('.results');
  const clicks = await page.evaluate(() => Number(sessionStorage.getItem('tenka.test.clicks') || 0));
  console.log(`# ${rulesetId}, ${years} year(s), normal pace: ${clicks} clicks, ${decisions} decisions, ${stats.summaries} summary pauses, ${(waiting / 1000).toFixed(0)} s waiting for bots and story, ${((Date.now() - started) / 1000).toFixed(0)} s in all`);
} finally {
  await browser.close();
}
