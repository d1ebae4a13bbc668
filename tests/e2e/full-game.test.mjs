// A whole game in the browser, as the "play experience" asks: a 4-seat game with 3 bots, created
// in the lobby and played by clicking through to the final results, with screenshots at 1280x800
// and 390x844 of planning, a battle caption mid-animation, a summary pause and the results. It
// measures the map's smallest text and the smallest control, checks that two battles of one
// update are told as two captions in order, that the phone page never scrolls sideways and that
// a plan the ruleset warns about is flagged before sending; it counts the clicks. Then the replay.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, createGame, enterGame, openPage, pickRuleset, playableMap, shot, withBrowser } from './lib.mjs';
import { acknowledgeSummary, answer, checkPreview, newStats, rng, screenState, setPace, waitForTurn, toldPlacesProblems } from './play.mjs';

// What a finished game of each known ruleset must have gone through, checked on the log by
// catalogue key (the UI itself knows no game). Options that keep the game short.
const EXPECT = {
  shogun: { options: { years: 1 }, keys: [/^log\.bid-/, /^log\.winter/], tower: true },
  toy: { options: { rounds: 2 }, keys: [/^log\.attack/], tower: true },
};
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Counts the person's clicks (trusted events only), across the single page's routes. */
async function countClicks(context) {
  await context.addInitScript(() => {
    document.addEventListener('click', (event) => {
      if (event.isTrusted) sessionStorage.setItem('tenka.test.clicks', String(Number(sessionStorage.getItem('tenka.test.clicks') || 0) + 1));
    }, true);
  });
}
const clicks = (page) => page.evaluate(() => Number(sessionStorage.getItem('tenka.test.clicks') || 0));

/** The smallest rendered text of the map part and the smallest visible control, in CSS px. */
async function measure(page) {
  return page.evaluate(() => {
    const map = document.querySelector('.board .board-canvas')?.shadowRoot?.querySelector('svg');
    let smallestText = Infinity;
    let smallestTextWhat = '';
    if (map) {
      for (const el of map.querySelectorAll('text')) {
        if (!el.textContent.trim()) continue;
        const rect = el.getBoundingClientRect();
        if (!rect.width) continue;
        const ctm = el.getScreenCTM();
        const px = parseFloat(getComputedStyle(el).fontSize) * Math.hypot(ctm.a, ctm.b);
        if (px < smallestText) [smallestText, smallestTextWhat] = [px, el.textContent.trim().slice(0, 40)];
      }
    }
    const visible = (el) => {
      const rect = el.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0 && getComputedStyle(el).visibility !== 'hidden' && rect.left > -50;
    };
    const controls = [...document.querySelectorAll('#app button, #app select, #app input, #app a.button, #topbar select')];
    for (const host of document.querySelectorAll('.board-canvas, .part-canvas')) if (host.shadowRoot) controls.push(...host.shadowRoot.querySelectorAll('.tk-interactive'));
    let smallestControl = { size: Infinity, what: '' };
    for (const el of controls.filter(visible)) {
      const rect = el.getBoundingClientRect();
      const size = Math.min(rect.width, rect.height);
      if (size < smallestControl.size) smallestControl = { size, what: `${el.tagName} ${el.className?.baseVal ?? el.className} ${(el.textContent || el.getAttribute('aria-label') || '').trim().slice(0, 30)}` };
    }
    return { smallestText, smallestTextWhat, smallestControl };
  });
}

/** Whether the page scrolls sideways. */
const sideways = (page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

/** Screenshots at both sizes; the phone page must not scroll sideways. */
async function bothShots(page, name, phoneScrolls) {
  await shot(page, `play-${name}-1280`);
  await page.setViewportSize(PHONE);
  await page.waitForTimeout(150);
  phoneScrolls.push([name, await sideways(page)]);
  await shot(page, `play-${name}-390`);
  await page.setViewportSize(DESKTOP);
  await page.waitForTimeout(100);
}

test('a 4-seat game with 3 bots is played by clicking to the final results', { timeout: 30 * 60 * 1000 }, async () => {
  const ruleset = await pickRuleset();
  const expect = EXPECT[ruleset.id] || { options: JSON.parse(process.env.E2E_OPTIONS || '{}'), keys: [], tower: false };
  const map = playableMap(ruleset); // none for a ruleset that takes no map
  await withBrowser(async (browser) => {
    const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
    await countClicks(context);
    const page = await openPage(browser, { ...DESKTOP, context });
    const gameId = await createGame(page, {
      ruleset: ruleset.id,
      map,
      seats: ['human', 'bot:random', 'bot:random', 'bot:random'],
      options: expect.options,
      seed: '5eed0001'.padEnd(64, '0'),
    });
    await shot(page, 'play-01-created');
    await setPace(page, 'normal');
    await enterGame(page);
    await page.waitForSelector('.game[data-version]');
    const token = await page.evaluate((id) => JSON.parse(localStorage.getItem('tenka.games.v1'))[id].seats['0'], gameId);
    const random = rng(12345);
    const stats = newStats();
    const shots = new Set();
    const phoneScrolls = [];
    const measured = [];
    let attempt = 0;
    let steps = 0;
    while (steps < 800) {
      await waitForTurn(page, 300000);
      if (await page.locator('dialog.summary-dialog[open]').count()) {
        if (!shots.has('summary')) {
          shots.add('summary');
          await bothShots(page, '04-summary', phoneScrolls);
        }
        // Shogun's winter scoring, the pause the issue asks to see (its title key names it).
        const key = await page.locator('dialog.summary-dialog[open]').getAttribute('data-summary');
        if (key && key.includes('winter') && !shots.has('winter')) {
          shots.add('winter');
          await bothShots(page, '04-winter-summary', phoneScrolls);
        }
        await acknowledgeSummary(page, stats);
        continue;
      }
      const state = await screenState(page);
      if (state.status === 'finished') break;
      if (!(await page.locator('.handover:not([hidden])').count()) && measured.length < 40) measured.push(await measure(page));
      const outcome = await answer(page, random, stats, attempt, {
        beforeSend: async (kind) => {
          if (kind !== 'assign') return;
          await checkPreview(page, stats, token, gameId);
          if (!shots.has('planning')) {
            shots.add('planning');
            await bothShots(page, '02-planning', phoneScrolls);
            // The end of the plan: the ruleset's preview and the send button.
            await page.locator('.decision-panel [data-action="send"]').last().scrollIntoViewIfNeeded();
            await shot(page, 'play-02-planning-preview-1280');
          }
        },
      });
      if (outcome === 'rejected') {
        attempt += 1;
        assert.ok(attempt < 25, 'the same decision was refused 25 times in a row');
        assert.ok((await page.locator('.decision-error').innerText()).length > 0, 'a refused answer is explained on screen');
      } else attempt = 0;
      steps += 1;
      // The first battle told after a move: caught mid-animation, then the rest plays fast.
      if (!shots.has('battle')) {
        const playing = await page
          .waitForSelector('.story:not(.idle) .story-stage .tower-figure', { timeout: 2500 })
          .then(() => true, () => false);
        if (playing) {
          shots.add('battle');
          await page.waitForTimeout(500);
          await bothShots(page, '03-battle', phoneScrolls);
          await setPace(page, 'instant');
        }
      }
    }
    await page.waitForSelector('.results');
    await page.waitForTimeout(300);
    await bothShots(page, '05-results', phoneScrolls);
    const totalClicks = await clicks(page);
    console.log(`# clicks for the whole game (lobby to results): ${totalClicks}; decisions ${steps}; ${JSON.stringify({ ...stats, placements: stats.placements.length, warningTexts: (stats.warningTexts || []).slice(0, 3) })}`);

    // Readable and reachable at 1280x800.
    const smallestText = Math.min(...measured.map((m) => m.smallestText));
    const smallestControl = measured.map((m) => m.smallestControl).sort((a, b) => a.size - b.size)[0];
    console.log(`# smallest map text ${smallestText.toFixed(1)} px (${measured.find((m) => m.smallestText === smallestText)?.smallestTextWhat}); smallest control ${smallestControl.size.toFixed(1)} px (${smallestControl.what})`);
    // What the ruleset itself must draw or say is gathered and checked at the end, so one run lists
    // everything the ruleset lacks; the UI's own failures stop the test at once.
    const lacks = [];
    if (!(smallestText >= 11 - 0.01)) {
      lacks.push(`readable map text: the ruleset's map part draws text at ${smallestText.toFixed(1)} px at 1280x800 ("${measured.find((m) => m.smallestText === smallestText)?.smallestTextWhat}"); every map text must be at least 11 px (the UI does not enlarge a ruleset's drawing)`);
    }
    if (!(smallestControl.size >= 32 - 0.01)) {
      const mark = /tk-interactive/.test(smallestControl.what);
      const what = `${smallestControl.size.toFixed(1)} px (${smallestControl.what})`;
      if (mark) lacks.push(`32 px targets: a board mark the ruleset draws is ${what}, and the UI may pad it only where that covers no other mark`);
      else assert.fail(`a control of the UI is under 32x32 px: ${what}`);
    }
    // The phone page never scrolls sideways.
    for (const [name, overflow] of phoneScrolls) assert.ok(overflow <= 1, `${name} at 390 px scrolls sideways by ${overflow} px`);

    // Everything on the results page: one ranking row per seat, a breakdown with totals.
    assert.equal(await page.locator('.results-table tbody tr').count(), 4);
    assert.ok((await page.locator('.breakdown-table tr.total').count()) === 1 || (await page.locator('.breakdown-table').count()) === 0);
    assert.ok(stats.assign + stats.choose + stats.number > 0, 'the human seat took decisions');
    if (ruleset.id === 'shogun') assert.ok(stats.assign >= 1, 'the human seat planned at least once');
    if (ruleset.id === 'shogun') assert.ok(shots.has('winter'), "the winter's scoring paused the game before the results");

    // Two battles in one update are told as two captions, in order.
    const log = await api(`/api/games/${gameId}/log?since=0`, { token });
    const captions = await page.evaluate(() => window.tenkaCaptions || []);
    const told = new Set(captions.map((c) => c.version));
    const battleSteps = (entry) => {
      const events = entry.events || [];
      const named = events.map((event, index) => ({ index, drops: (event.drops || []).length })).filter((s) => s.drops > 0);
      return named.length || events.some((e) => Array.isArray(e.drops)) ? named : [];
    };
    const doubles = log.filter((entry) => told.has(entry.version) && battleSteps(entry).length >= 2);
    for (const entry of doubles) {
      const shown = captions.filter((c) => c.version === entry.version && c.drops > 0).map((c) => c.step);
      assert.deepEqual(shown, battleSteps(entry).map((s) => s.index), `version ${entry.version}: each battle has its own caption, in order`);
    }
    if (expect.tower) assert.ok(log.some((entry) => (entry.tower || []).length), 'a battle dropped cubes through the tower');
    // Shogun, with this seed: updates with two battles happen, and a plan costing more than the
    // chests held is warned about by name before it is sent.
    if (ruleset.id === 'shogun') {
      assert.ok(doubles.length >= 1, 'an update with two battles was told');
      assert.ok((stats.warningNotes || []).includes('preview.over-budget'), `a plan over the chests held was flagged: ${JSON.stringify(stats.warningNotes)}`);
    }
    // Each battle is told under its own caption only if the ruleset ties its events to their drops.
    const dropped = log.filter((entry) => (entry.tower || []).length);
    if (expect.tower && !dropped.some((entry) => (entry.events || []).some((event) => (event.drops || []).length))) {
      lacks.push(`captions: ${dropped.length} log entries dropped cubes through the tower, but no event names its drops (\`drops\` is empty everywhere), so no battle gets its own caption`);
    }
    const keys = log.flatMap((entry) => (entry.events || []).map((event) => event.text.key));
    for (const pattern of expect.keys) assert.ok(keys.some((key) => pattern.test(key)), `the log has an event matching ${pattern}`);

    // A plan the ruleset warns about (a cost above the chests held) was flagged before sending.
    if (EXPECT[ruleset.id] && !(stats.previews > 0 && stats.previewWarnings > 0)) {
      lacks.push(`previews: ${stats.previews || 0} plans were previewed (POST /preview) and the ruleset warned about none (${stats.previewNotes || 0} notes in all): a plan costing more than the chests held is not flagged before sending`);
    }
    const game = await api(`/api/games/${gameId}`);
    assert.equal(game.status, 'finished');
    console.log(`# two-battle updates told in order: ${doubles.length}`);

    // The replay steps through the finished game and tells each step's battles too.
    await page.click('.results a[href^="#/replay/"]');
    await page.waitForSelector('.replay-controls');
    await page.click('[data-replay="next"]');
    await page.click('[data-replay="next"]');
    assert.match(await page.locator('.replay-counter').innerText(), /2/);
    assert.ok((await page.locator('.replay-log > li').count()) >= 2);
    const withDrops = log.findIndex((entry) => (entry.tower || []).length);
    if (withDrops >= 0) {
      // At the normal pace the step's drop is animated as in the game (the game above ended at
      // the instant pace)...
      await setPace(page, 'normal');
      await page.locator('.replay-slider').fill(String(withDrops));
      await page.click('[data-replay="next"]');
      await page.waitForSelector('.replay .story:not([hidden]):not(.idle) .tower-figure:not(.no-motion)', { timeout: 60000 });
      await page.waitForTimeout(500);
      await shot(page, 'play-06-replay-tower');
      // ...and once the step has played, its last drop stays shown, at every pace.
      const settled = async (selector) => {
        // A summary in the step pauses the story until it is acknowledged, as in the game.
        for (let i = 0; i < 20; i += 1) {
          await page.waitForFunction((sel) => document.querySelector(sel) || document.querySelector('dialog.summary-dialog[open]'), selector, { timeout: 60000 });
          if (!(await acknowledgeSummary(page))) break;
        }
        await page.waitForSelector(selector);
      };
      await settled('.replay .story.idle .tower-figure');
      await setPace(page, 'instant');
      await page.click('[data-replay="previous"]');
      await page.click('[data-replay="next"]');
      await settled('.replay .story.idle .tower-figure.no-motion');
    }
    await page.click('[data-replay="last"]');
    await page.waitForSelector('.replay .results');
    page.check();
    assert.ok(BASE);
    // Nothing cut, nothing saying "null" on any screen of the game; every told battle marked its
    // places on the map (convention 1), once the ruleset emits data-place.
    assert.deepEqual(stats.screenProblems || [], [], 'every screen of the game shows everything, and no "null"');
    const toldPlaces = await toldPlacesProblems(page);
    if (toldPlaces.skipped) console.log(`# skipped the told-places check: ${toldPlaces.skipped}`);
    else assert.deepEqual(toldPlaces.problems, [], 'every told step marks its places on the map');
    assert.deepEqual(lacks, [], `the ruleset ${ruleset.id} lacks:\n- ${lacks.join('\n- ')}`);
  });
});
