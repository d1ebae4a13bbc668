// The board conventions of docs/sdk.md, in the browser, for any ruleset: a told step marks the
// places its message names (`data-place`) and draws an arrow from `from` to `to`, clears them when
// it ends, and offers a small map of them beside the caption on a phone; a choice's preview
// (`data-preview-of`) shows only while that choice is hovered or focused; a panel too narrow for
// its texts spans the width under the map and is never cut; a translated text longer than its
// drawing grows the drawing instead of being cut.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, BOTH_SIZES, openPage, shot, withBrowser } from './lib.mjs';

const MAP = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 200">
  <g data-place="place.a"><rect x="10" y="10" width="120" height="120" fill="#cde"/><text x="70" y="70" font-size="14">A</text></g>
  <g data-place="place.b"><rect x="260" y="60" width="120" height="120" fill="#edc"/><text x="320" y="120" font-size="14">B</text></g>
  <path data-place="place.c" d="M150,150 h60 v40 h-60 Z" fill="#dec"/>
  <g data-choice="0"><circle cx="200" cy="40" r="14" fill="#fff" stroke="#000"/></g>
  <g data-choice="1"><circle cx="240" cy="40" r="14" fill="#fff" stroke="#000"/></g>
  <rect data-preview-of="0" class="footprint" x="180" y="60" width="40" height="40" fill="#f00"/>
  <rect data-preview-of="1" class="footprint" x="220" y="60" width="40" height="40" fill="#00f"/>
</svg>`;

/** A panel whose texts are 11 units in a 1,200-unit-wide drawing: about 4 px in a 400 px column. */
const WIDE_PANEL = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1200 100">${Array.from({ length: 12 }, (_, i) => `<text x="${i * 100 + 5}" y="50" font-size="11">Space ${i + 1}</text>`).join('')}</svg>`;
/** A panel whose last text runs far past its drawing's right edge (a long translation). */
const SPILLING_PANEL = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 60"><text x="5" y="30" font-size="14">Wasser: nur über einen Seeweg zu queren</text></svg>`;

/** A hand of cards that asks to be drawn 700 px wide (its texts alone would fit a narrow column). */
const ASKING_PANEL = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 300 60" data-part-width="700"><text x="5" y="40" font-size="30">Hand</text></svg>`;

/** Mounts BoardParts with a map and three panels in a page laid out like the game screen. */
async function mount(page) {
  await page.goto(`${BASE}/#/maps`);
  await page.waitForSelector('#topbar a');
  // The Maps page finishes drawing first: else its late answer replaces the board mounted here.
  await page.waitForSelector('.maps-page .map-details h2, .maps-page .no-maps:not([hidden])');
  await page.evaluate(
    async ({ map, wide, spilling, asking }) => {
      const { BoardParts } = await import('/src/board.js');
      const board = new BoardParts();
      const { h } = await import('/src/dom.js');
      const side = document.createElement('aside');
      side.className = 'game-side';
      side.append(board.seatColumn);
      const root = h('div', { class: 'game' }, h('div', { class: 'game-layout' }, h('div', { class: 'game-main' }, board.element, board.tableRow), side));
      document.querySelector('main').replaceChildren(root);
      board.show(
        [
          { id: 'map', kind: 'map', title: null, svg: map },
          { id: 'wide', kind: { seat: 0 }, title: null, svg: wide },
          { id: 'spilling', kind: 'table', title: null, svg: spilling },
          { id: 'asking', kind: { seat: 1 }, title: null, svg: asking },
        ],
        'none',
        (s) => `Seat ${s + 1}`,
      );
      window.testBoard = board;
      await new Promise((resolve) => setTimeout(resolve, 300));
    },
    { map: MAP, wide: WIDE_PANEL, spilling: SPILLING_PANEL, asking: ASKING_PANEL },
  );
}

test('a told step marks its places and an arrow on the map, and clears them when it ends', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    for (const [width, height] of BOTH_SIZES) {
      const page = await openPage(browser, { width, height });
      await mount(page);
      await page.evaluate(async () => {
        localStorage.setItem('tenka.pace', 'slow');
        // The captions' texts, through the module's own loader (as board.test.mjs does).
        const i18n = await import('/src/i18n.js');
        const catalogue = { 'story.attack': '{from} attacks {to} with {n} armies', 'story.revolt': 'A revolt breaks out in {province}', 'place.a': 'Alpha', 'place.b': 'Beta', 'place.c': 'Gamma' };
        const original = window.fetch;
        window.fetch = async (url) => ({ ok: true, json: async () => (String(url).includes('/en') ? catalogue : {}) });
        await i18n.loadCatalogue('places-fixture');
        window.fetch = original;
        const { Story } = await import('/src/story.js');
        const story = new Story({ rulesetId: 'places-fixture', seats: [], onStep: (step) => window.testBoard.tell(step) });
        document.querySelector('.game-side').prepend(story.element);
        window.testStory = story;
        story.enqueue([
          {
            version: 7,
            seat: 1,
            events: [
              { text: { key: 'story.attack', args: [['from', { key: 'place.a' }], ['to', { key: 'place.b' }], ['n', { number: 3 }]] } },
              { text: { key: 'story.revolt', args: [['province', { key: 'place.c' }]] } },
            ],
            tower: [],
          },
        ]);
      });
      const marks = () =>
        page.evaluate(() => {
          const svg = window.testBoard.map.svg;
          return {
            places: [...svg.querySelectorAll('.tk-place')].map((el) => el.getAttribute('data-place')).sort(),
            from: [...svg.querySelectorAll('.tk-place-from')].map((el) => el.getAttribute('data-place')),
            to: [...svg.querySelectorAll('.tk-place-to')].map((el) => el.getAttribute('data-place')),
            arrows: svg.querySelectorAll('.tk-story .tk-arrow-head').length,
            inset: !!document.querySelector('.story-inset'),
            insetShown: (() => {
              const inset = document.querySelector('.story-inset');
              return !!inset && inset.getBoundingClientRect().width > 0;
            })(),
            caption: document.querySelector('.story-caption')?.textContent || '',
          };
        });
      await page.waitForFunction(() => window.testBoard.map.svg.querySelector('.tk-place'));
      const first = await marks();
      assert.equal(first.caption, 'Alpha attacks Beta with 3 armies');
      assert.deepEqual(first.places, ['place.a', 'place.b'], 'the attack marks both provinces');
      assert.deepEqual(first.from, ['place.a']);
      assert.deepEqual(first.to, ['place.b']);
      assert.equal(first.arrows, 1, 'an arrow from the attacker to the defender');
      assert.ok(first.inset, 'a small map of the places is offered beside the caption');
      assert.equal(first.insetShown, width < 900, 'the small map shows on a phone only');
      await shot(page, `conventions-places-${width}`);
      await page.waitForFunction(() => [...window.testBoard.map.svg.querySelectorAll('.tk-place')].some((el) => el.getAttribute('data-place') === 'place.c'), null, { timeout: 10000 });
      const second = await marks();
      assert.deepEqual(second.places, ['place.c'], 'the next step marks only its own place: the last one is cleared');
      assert.equal(second.arrows, 0, 'no arrow without from and to');
      // A new drawing of the board (the next view arriving mid-step) keeps the step's marks.
      await page.evaluate(() => window.testBoard.map.show(new XMLSerializer().serializeToString(window.testBoard.map.svg).replace(/ class="[^"]*tk-[^"]*"/g, ''), 'none', () => ''));
      assert.deepEqual((await marks()).places, ['place.c'], 'a redrawn board keeps the marks of the step being told');
      await page.waitForFunction(() => !window.testStory.busy, null, { timeout: 10000 });
      const after = await marks();
      assert.deepEqual(after.places, [], 'the marks go when the story ends');
      assert.equal(after.arrows, 0);
      page.check();
      await page.close();
    }
  });
});

test('a choice\'s preview shows only while the choice is hovered or focused', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await mount(page);
    await page.evaluate(async () => {
      const { DecisionController } = await import('/src/decisions.js');
      const panel = document.createElement('section');
      panel.className = 'decision-panel';
      document.querySelector('.game-side').prepend(panel);
      const decision = { prompt: { key: 'prompt' }, kind: { choose: { choices: [{ label: { key: 'first' } }, { label: { key: 'second' } }], min: 1, max: 1 } } };
      window.sent = [];
      const controller = new DecisionController({ decision, board: window.testBoard, panel, rulesetId: 'none', seats: [], send: async (action) => (window.sent.push(action), true) });
      controller.render();
    });
    const shown = () => page.evaluate(() => [...window.testBoard.map.svg.querySelectorAll('[data-preview-of]')].filter((el) => getComputedStyle(el).display !== 'none').map((el) => el.getAttribute('data-preview-of')));
    assert.deepEqual(await shown(), [], 'no preview shows by itself');
    await page.hover('[data-choice-button="1"]');
    assert.deepEqual(await shown(), ['1'], 'hovering choice 1 in the panel shows its preview only');
    await page.mouse.move(0, 0);
    assert.deepEqual(await shown(), []);
    await page.focus('[data-choice-button="0"]');
    assert.deepEqual(await shown(), ['0'], 'focusing choice 0 shows its preview');
    await page.evaluate(() => document.activeElement.blur());
    await page.evaluate(() => window.testBoard.map.svg.querySelector('[data-choice="1"]').dispatchEvent(new MouseEvent('mouseenter')));
    assert.deepEqual(await shown(), ['1'], 'hovering the choice on the board shows its preview');
    await shot(page, 'conventions-preview-1280');
    page.check();
  });
});

test('regression_panel_cut_off: a panel too narrow for its texts spans the width under the map, and a spilling text grows its drawing', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    for (const [width, height] of BOTH_SIZES) {
      const page = await openPage(browser, { width, height });
      await mount(page);
      const report = await page.evaluate(() => {
        const out = {};
        for (const board of window.testBoard.panels.values()) {
          const frame = board.host.getBoundingClientRect();
          const svg = board.svg.getBoundingClientRect();
          const texts = [...board.svg.querySelectorAll('text')].map((el) => el.getBoundingClientRect());
          out[board.partId] = {
            wide: board.element.classList.contains('wide-part'),
            underMap: board.element.parentElement === window.testBoard.tableRow,
            // On a phone a panel too wide to read in its frame scrolls sideways instead (every
            // text at 11 px or more): whole, a swipe at a time.
            scrolls: board.host.classList.contains('part-scrolls') && board.host.scrollWidth >= svg.width - 1,
            fits: svg.right <= frame.right + 1 && svg.left >= frame.left - 1,
            textsInside: texts.every((r) => r.right <= svg.right + 1 && r.left >= svg.left - 1) && (board.host.classList.contains('part-scrolls') || texts.every((r) => r.right <= frame.right + 1 && r.left >= frame.left - 1)),
            scroll: board.host.scrollWidth <= board.host.clientWidth + 1,
          };
        }
        return out;
      });
      for (const [id, part] of Object.entries(report)) {
        const phoneScroll = width < 600 && part.scrolls;
        assert.ok(part.fits || phoneScroll, `${id} fits its frame at ${width}`);
        assert.ok(part.textsInside, `every text of ${id} is inside its frame at ${width}`);
        assert.ok(part.scroll || phoneScroll, `${id} does not scroll sideways at ${width}`);
      }
      if (width === 1280) {
        assert.ok(report.wide.wide && report.wide.underMap, 'the seat panel needing more than the side column spans the width under the map');
        assert.ok(report.asking.wide && report.asking.underMap, 'a panel asking for 700 px (data-part-width) spans the width under the map');
        assert.ok(!report.spilling.wide, 'a panel that fits its place stays there');
      }
      await shot(page, `conventions-panels-${width}`);
      page.check();
      await page.close();
    }
  });
});

// The review saw "null" after the question in the banner over the map whenever a decision's
// choices were not drawn on the board (a special card, a resource, over or under).
test('regression_null_in_prompt_banner: a decision whose choices are not on the board shows no "null"', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await mount(page);
    const banner = await page.evaluate(async () => {
      const { DecisionController } = await import('/src/decisions.js');
      const panel = document.createElement('section');
      document.querySelector('.game-side').prepend(panel);
      // The drawing marks no choice: this decision is answered in the panel only.
      const decision = { prompt: { key: 'prompt' }, kind: { choose: { choices: [{ label: { key: 'yes' } }, { label: { key: 'no' } }], min: 1, max: 1 } } };
      for (const el of window.testBoard.all('[data-choice]')) el.removeAttribute('data-choice');
      new DecisionController({ decision, board: window.testBoard, panel, rulesetId: 'none', seats: [], send: async () => true }).render();
      return document.querySelector('.board-banner').textContent;
    });
    assert.equal(banner, 'prompt', 'the banner holds the question and nothing else');
    page.check();
  });
});

test('on a touch screen the first tap on a choice shows its preview and the second answers', { timeout: 60000 }, async () => {
  await withBrowser(async (browser) => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await openPage(browser, { width: 390, height: 844, context });
    await mount(page);
    assert.ok(await page.evaluate(() => matchMedia('(hover: none)').matches), 'the page knows it has no hover');
    await page.evaluate(async () => {
      const { DecisionController } = await import('/src/decisions.js');
      const panel = document.createElement('section');
      panel.className = 'decision-panel';
      document.querySelector('.game-side').prepend(panel);
      const decision = { prompt: { key: 'prompt' }, kind: { choose: { choices: [{ label: { key: 'first' } }, { label: { key: 'second' } }], min: 1, max: 1 } } };
      window.sent = [];
      new DecisionController({ decision, board: window.testBoard, panel, rulesetId: 'none', seats: [], send: async (action) => (window.sent.push(action), true) }).render();
    });
    const shown = () => page.evaluate(() => [...window.testBoard.map.svg.querySelectorAll('[data-preview-of]')].filter((el) => getComputedStyle(el).display !== 'none').map((el) => el.getAttribute('data-preview-of')));
    await page.tap('[data-choice-button="1"]');
    assert.deepEqual(await shown(), ['1'], 'the first tap shows the preview');
    assert.deepEqual(await page.evaluate(() => window.sent), [], 'and answers nothing');
    await shot(page, 'conventions-preview-tap-390');
    await page.tap('[data-choice-button="1"]');
    assert.deepEqual(await page.evaluate(() => window.sent), [{ choose: [1] }], 'the second tap answers');
    page.check();
  });
});
