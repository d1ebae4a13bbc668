// axe-core on every screen: the lobby, Maps, the variant lab, the map editor, Account (signed out
// and in), My games, and each ruleset's game at its first decision as its seat, a spectator and
// a replay see it, at 1280x800 and 390x844. No screen may have a serious or critical violation;
// every finding (of any impact) is written to artifacts/axe/report.md, which docs/accessibility.md
// quotes. On the phone every visible text of every screen, boards and panels included, is drawn at
// 11 CSS px or more at the default zoom.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, BASE, launch, openPage, playableMap, ROOT } from './lib.mjs';

const AXE = path.join(ROOT, 'tests', 'e2e', 'node_modules', 'axe-core', 'axe.min.js');
const AXE_SOURCE = fs.readFileSync(AXE, 'utf8');
const OUT = path.join(ROOT, 'artifacts', 'axe');
const SIZES = [[1280, 800], [390, 844]];

/** axe's violations on the page as it stands, with the nodes' targets. */
async function violations(page) {
  // Evaluated through the debugging protocol: the page's own policy rightly allows no inline script.
  if (!(await page.evaluate(() => Boolean(window.axe)))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')), why: (v.nodes[0] && v.nodes[0].failureSummary || '').split('\n').slice(1, 2).join(' ').trim(), count: v.nodes.length }));
  });
}

/**
 * Every visible text on the page (the boards' shadow roots included) drawn under 11 CSS px at the
 * default zoom: a text node's element by its computed size, an SVG text by its size on screen.
 */
async function tinyTexts(page) {
  return page.evaluate(() => {
    const tiny = [];
    const look = (root) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = node.nodeValue.trim();
        const el = node.parentElement;
        if (!text || !el || el.closest('title, style, script, option, [hidden], [aria-hidden="true"] title')) continue;
        const rects = el.getClientRects();
        if (!rects.length || [...rects].every((r) => r.width === 0 || r.height === 0)) continue;
        const style = getComputedStyle(el);
        if (style.visibility === 'hidden' || style.display === 'none' || Number(style.opacity) === 0) continue;
        let px = parseFloat(style.fontSize);
        if (el instanceof SVGElement && el.getScreenCTM()) {
          const ctm = el.getScreenCTM();
          px *= Math.hypot(ctm.a, ctm.b);
        }
        if (px < 11 - 0.05) tiny.push(`"${text.slice(0, 24)}" ${px.toFixed(1)} px (${el.tagName.toLowerCase()}.${String(el.className?.baseVal ?? el.className).split(' ')[0]})`);
      }
      for (const host of root.querySelectorAll('*')) if (host.shadowRoot) look(host.shadowRoot);
    };
    look(document.body);
    return tiny;
  });
}

/**
 * The tiny texts once the page has settled: a board fits its parts to the phone (zoomed labels,
 * panels drawn at their readable size) after its drawing arrives and a resize observer fires,
 * later on a loaded machine than the screen's ready mark (regression_axe_phone_texts_measured_
 * before_the_board_fitted: the suite's browser tests now run beside the Rust tests). Measures
 * again for up to 5 s while anything is tiny; what is still tiny then is reported.
 */
async function settledTinyTexts(page) {
  let tiny = await tinyTexts(page);
  for (let i = 0; tiny.length && i < 20; i += 1) {
    await page.waitForTimeout(250);
    tiny = await tinyTexts(page);
  }
  return tiny;
}

/** A game with the first seat played here and bots elsewhere, created through the API. */
async function gameFor(ruleset) {
  const map = playableMap(ruleset);
  const seats = [{ kind: 'human', name: 'Ana', creator: true }, ...Array(Math.max(1, ruleset.min_seats) - 1).fill(0).map(() => ({ kind: 'bot', bot: 'random' }))];
  const body = { ruleset: ruleset.id, seats };
  if (map) body.map = map;
  const game = await api('/api/games', { method: 'POST', body });
  const token = (game.seats.find((s) => s.seat === 0) || {}).token;
  return { id: game.id, token };
}

test('axe-core finds no serious or critical violation on any screen, and a phone no text under 11 px', { timeout: 15 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const games = [];
  for (const ruleset of rulesets) games.push({ ruleset, ...(await gameFor(ruleset)) });
  const editable = rulesets.find((r) => r.editor && (r.maps || []).length);
  const screens = [
    ['lobby', '#/', '#new-ruleset'],
    ['maps', '#/maps', 'main'],
    ['lab', '#/lab', 'main'],
    ['account, signed out', '#/account', '#account-name'],
  ];
  if (editable) screens.push(['editor', `#/editor?ruleset=${editable.id}&map=${editable.maps[0].id}`, '[data-editor-board]']);
  for (const game of games) {
    screens.push([`${game.ruleset.id}: play`, `#/play/${game.id}?seat=0`, '.game[data-version]', game]);
    screens.push([`${game.ruleset.id}: watch`, `#/watch/${game.id}`, '.game[data-version]']);
    screens.push([`${game.ruleset.id}: replay`, `#/replay/${game.id}`, 'main']);
  }
  // Both files below go here; a fresh clone has no artifacts/ folder yet (stop 38's CI failed
  // writing tiny-texts.txt before the report had made it).
  fs.mkdirSync(OUT, { recursive: true });
  const findings = [];
  const small = [];
  const browser = await launch();
  try {
    for (const [width, height] of SIZES) {
      const page = await openPage(browser, { width, height });
      await page.goto(`${BASE}/#/`);
      await page.waitForSelector('#new-ruleset');
      await page.evaluate((held) => {
        const store = JSON.parse(localStorage.getItem('tenka.games.v1') || '{}');
        for (const [id, token] of held) store[id] = { seats: { 0: token } };
        localStorage.setItem('tenka.games.v1', JSON.stringify(store));
      }, games.map((g) => [g.id, g.token]));
      const visit = async (name, hash, ready) => {
        await page.goto(`${BASE}/${hash}`);
        await page.waitForSelector(ready, { timeout: 30000 });
        await page.waitForTimeout(300);
        for (const v of await violations(page)) findings.push({ screen: name, size: `${width}x${height}`, ...v });
        if (width < 500) for (const text of await settledTinyTexts(page)) small.push(`${name}: ${text}`);
      };
      for (const [name, hash, ready] of screens) await visit(name, hash, ready);
      // Signed in: the account page and My games with the games above attached.
      await page.goto(`${BASE}/#/account`);
      await page.waitForSelector('#account-name');
      await page.fill('#account-name', `axe-${width}-${Date.now().toString(36)}`);
      await page.fill('#account-password', 'a long enough passphrase');
      await page.click('[data-action="sign-up"]');
      await page.waitForSelector('[data-action="attach-seats"]');
      await page.click('[data-action="attach-seats"]');
      await page.waitForFunction(() => (document.querySelector('.form-status')?.textContent || '').trim().length > 0);
      for (const v of await violations(page)) findings.push({ screen: 'account, signed in', size: `${width}x${height}`, ...v });
      await visit('my games', '#/my-games', '.my-games');
      if (width < 500) fs.writeFileSync(path.join(OUT, 'tiny-texts.txt'), small.join('\n'));
      page.check();
      await page.context().close();
    }
  } finally {
    await browser.close();
  }
  const lines = ['| screen | size | rule | impact | nodes | first targets | why (first node) |', '| --- | --- | --- | --- | --- | --- | --- |'];
  for (const f of findings) lines.push(`| ${f.screen} | ${f.size} | ${f.id} | ${f.impact} | ${f.count} | ${f.targets.slice(0, 2).join('; ').replaceAll('|', '\\|')} | ${f.why.replaceAll('|', '\\|')} |`);
  const checked = screens.map(([name]) => name).concat(['account, signed in', 'my games']);
  fs.writeFileSync(path.join(OUT, 'report.md'), `# axe-core findings\n\nScreens checked at ${SIZES.map((s) => s.join('x')).join(' and ')}: ${checked.join(', ')}.\n\n${findings.length ? lines.join('\n') : 'No violation of any impact.'}\n`);
  assert.deepEqual(small.slice(0, 20), [], 'no text on any screen is drawn under 11 px on a phone at the default zoom');
  const serious = findings.filter((f) => f.impact === 'serious' || f.impact === 'critical');
  assert.deepEqual(serious.map((f) => `${f.screen} ${f.size}: ${f.id} (${f.impact}, ${f.count}): ${f.targets[0]}`), [], 'no serious or critical violation');
});
