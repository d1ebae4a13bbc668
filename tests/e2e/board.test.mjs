// The board's safety and translation, in the browser: a ruleset's SVG loses scripts, handlers and
// anything that would fetch from another host; its data-msg texts are filled from the catalogue;
// the battle tower's balance is dropped minus came out, by owner.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, openPage, withBrowser } from './lib.mjs';

const HOSTILE = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100" onload="window.pwned=1">
  <style>@import url(https://example.com/a.css); .x { fill: url(https://example.com/p.svg#x) }</style>
  <script>window.pwned = 2</script>
  <foreignObject width="10" height="10"><iframe src="https://example.com/"></iframe></foreignObject>
  <image href="https://example.com/i.png" width="5" height="5"/>
  <use xlink:href="https://example.com/s.svg#a"/>
  <a href="javascript:alert(1)"><rect width="5" height="5" onclick="window.pwned=3"/></a>
  <rect class="x" width="10" height="10" fill="url(#local)" style="fill: url(https://example.com/q)"/>
  <g data-choice="0"><circle r="5"/><text data-msg="greet" data-args='{"who":{"seat":1},"n":3,"place":{"key":"place.a"}}'>raw</text></g>
</svg>`;

test('a ruleset SVG is cleaned, translated and fetches nothing', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps`);
    await page.waitForSelector('#topbar a');
    const result = await page.evaluate(async (svgText) => {
      const board = await import('/src/board.js');
      const svg = board.sanitizeSvg(svgText);
      document.body.append(svg);
      const html = svg.outerHTML;
      const catalogue = { greet: '{who} has {n} in {place}', 'place.a': 'Alpha' };
      const i18n = await import('/src/i18n.js');
      const text = i18n.messageText('none', { key: 'greet', args: [['who', { seat: 1 }]] }, () => 'x');
      // Translate with a catalogue injected through the module's own loader cache.
      const original = window.fetch;
      window.fetch = async (url) => ({ ok: true, json: async () => (String(url).includes('/en') ? catalogue : {}) });
      await i18n.loadCatalogue('fixture-ruleset');
      window.fetch = original;
      board.translateSvg(svg, 'fixture-ruleset', (seat) => `Seat ${seat + 1}`);
      await new Promise((r) => setTimeout(r, 300));
      return { html, translated: svg.querySelector('[data-msg]').textContent, untranslated: text, pwned: window.pwned || 0 };
    }, HOSTILE);
    assert.equal(result.pwned, 0, 'no script or handler ran');
    assert.doesNotMatch(result.html, /<script|onload|onclick|foreignObject|iframe|example\.com|javascript:/i);
    assert.match(result.html, /url\(#local\)/, 'local references stay');
    assert.equal(result.translated, 'Seat 2 has 3 in Alpha');
    assert.equal(result.untranslated, 'greet', 'a key missing from the catalogue shows as the key');
    page.check();
  });
});

// The attacks a review got through the first sanitizer, each with a request to a host other than
// the server (127.0.0.2) that page.check() would notice, or a script that would set window.pwned.
const ATTACKS = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
  <a xmlns:x="http://www.w3.org/1999/xlink" x:href="javascript:window.pwned=1"><rect id="bait" width="100" height="100" fill="red"/></a>
  <image xmlns:x="http://www.w3.org/1999/xlink" x:href="http://127.0.0.2/image.png" width="5" height="5"/>
  <style>@\\69mport "http://127.0.0.2/import.css"; .e{fill:\\75 rl(http://127.0.0.2/escaped)}</style>
  <rect width="5" height="5" style="fill:\\75 rl(http://127.0.0.2/escaped-attr)"/>
  <rect width="5" height="5" style="fill:image-set('http://127.0.0.2/set.png' 1x)"/>
  <html:img xmlns:html="http://www.w3.org/1999/xhtml" srcset="http://127.0.0.2/srcset.png 1x"/>
  <style>:host{position:fixed;inset:0;z-index:99999} svg{position:fixed;inset:0;z-index:99999}</style>
</svg>`;

test('the attacks that got past the first sanitizer run nothing, fetch nothing and cover nothing', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps`);
    await page.waitForSelector('#topbar a');
    const headers = (await page.request.get(`${BASE}/`)).headers();
    assert.match(headers['content-security-policy'] || '', /script-src 'self'/, 'the page is served with a CSP');
    const result = await page.evaluate(async (svgText) => {
      const { Board } = await import('/src/board.js');
      const board = new Board();
      board.element.style.width = '300px';
      document.body.append(board.element);
      board.show(svgText, 'none', () => 'x');
      await new Promise((r) => setTimeout(r, 300));
      const bait = board.shadow.querySelector('#bait');
      bait?.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true }));
      await new Promise((r) => setTimeout(r, 300));
      const topLeft = document.elementFromPoint(2, 2);
      return {
        html: board.shadow.querySelector('svg')?.outerHTML || '',
        pwned: window.pwned || 0,
        coversPage: topLeft === board.host || board.host.contains(topLeft),
      };
    }, ATTACKS);
    assert.equal(result.pwned, 0, 'no script ran');
    assert.equal(result.coversPage, false, 'the drawing does not cover the page');
    assert.doesNotMatch(result.html, /127\.0\.0\.2|javascript:|image-set|srcset|:host|position/i);
    page.check();
  });
});

test('the battle tower balance is dropped minus came out, by owner', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps`);
    await page.waitForSelector('#topbar a');
    const rows = await page.evaluate(async () => {
      const tower = await import('/src/tower.js');
      return tower.towerBalance({
        dropped: [{ owner: { seat: 0 }, count: 5 }, { owner: { neutral: 'farmer' }, count: 2 }, { owner: { seat: 0 }, count: 1 }],
        came_out: [{ owner: { seat: 0 }, count: 4 }, { owner: { neutral: 'farmer' }, count: 3 }, { owner: { seat: 2 }, count: 1 }],
      });
    });
    const byKey = Object.fromEntries(rows.map((r) => [r.key, [r.dropped, r.cameOut, r.stayed]]));
    assert.deepEqual(byKey, { 'seat:0': [6, 4, 2], 'neutral:farmer': [2, 3, -1], 'seat:2': [0, 1, -1] });
    page.check();
  });
});
