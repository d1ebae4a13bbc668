// The map editor, tried as a new author would: open it from the Maps page on Shogun's sun map,
// move a province, add a border and a sea route, introduce an error and see it on the board and
// in the TOML, fix it (form, undo, redo), add and remove a place, download exactly the panel's
// text, and start a game on the edited map and play a turn. Screenshots at 1280x800 and 390x844
// (docs/authoring.md). Then a deck edited as a table of cards, and a map started from empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, openPage, shot, withBrowser } from './lib.mjs';
import { answer, newStats, rng, waitForTurn } from './play.mjs';

const RULESET = 'shogun';
const MAP = 'sun';

/** The TOML panel's text. */
const panel = (page) => page.locator('#editor-toml').inputValue();

/** The table of place `id` in a map text (from its header to the next header). */
function tableOf(text, id) {
  const at = text.indexOf(`id = "${id}"`);
  assert.ok(at >= 0, `the text has ${id}`);
  const end = text.indexOf('\n[', at);
  return text.slice(at, end < 0 ? undefined : end);
}

/** Waits until the panel's text satisfies `check` and the server has checked that text. */
async function waitForText(page, check, what) {
  const deadline = Date.now() + 20000;
  for (;;) {
    const text = await panel(page);
    if (check(text)) break;
    if (Date.now() > deadline) throw new Error(`the TOML never showed ${what}:\n${text.slice(0, 400)}`);
    await page.waitForTimeout(100);
  }
}

/** The centre of place `id`'s handle on screen. */
async function handle(page, id) {
  const box = await page.locator(`[data-editor-board] [data-handle="${id}"] circle`).last().boundingBox();
  assert.ok(box, `the board has a handle for ${id}`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

async function status(page) {
  return page.locator('[data-editor-status]').getAttribute('class');
}

test('the map editor: move, connect, an error shown and fixed, download, and a game on the map', { timeout: 6 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const shogun = rulesets.find((r) => r.id === RULESET);
  assert.ok(shogun && shogun.editor, 'the ruleset describes what its maps may change');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps?ruleset=${RULESET}&map=${MAP}`);
    await page.click('[data-action="edit-map"]');
    await page.waitForSelector('[data-editor-board] [data-handle="mutsu"]');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'));
    const original = await panel(page);
    const shipped = await api(`/api/rulesets/${RULESET}/maps/${MAP}`);
    assert.equal(original, shipped.toml, 'the editor starts from the shipped text');

    // Move a province by dragging its handle.
    const from = await handle(page, 'mutsu');
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x - 20, from.y + 10, { steps: 3 });
    await page.mouse.move(from.x - 45, from.y + 30, { steps: 5 });
    await page.mouse.up();
    await waitForText(page, (text) => tableOf(text, 'mutsu') !== tableOf(original, 'mutsu'), 'mutsu moved');
    const moved = tableOf(await panel(page), 'mutsu');
    assert.match(moved, /x = \d+\ny = \d+/, 'the position stays whole numbers');
    assert.ok(Number(/x = (\d+)/.exec(moved)[1]) < 940, `mutsu moved west: ${moved}`);

    // Add a border, then a sea route, by picking two places.
    await page.selectOption('#editor-kind', 'border');
    await page.mouse.click(...Object.values(await handle(page, 'kazusa')));
    await page.mouse.click(...Object.values(await handle(page, 'musashi')));
    await waitForText(page, (text) => /borders = \[[^\]]*"musashi"/.test(tableOf(text, 'kazusa')) && /"kazusa"/.test(tableOf(text, 'musashi')), 'the border on both provinces');
    await page.selectOption('#editor-kind', 'sea-route');
    await page.mouse.click(...Object.values(await handle(page, 'harima')));
    await page.mouse.click(...Object.values(await handle(page, 'kii')));
    await waitForText(page, (text) => /sea-routes = \[[^\]]*"kii"/.test(tableOf(text, 'harima')) && /sea-routes = \[[^\]]*"harima"/.test(tableOf(text, 'kii')), 'the sea route on both provinces');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'));
    const edited = await panel(page);

    // An error typed in the text: shown at its place on the board and at its line in the TOML.
    const broken = edited.replace(/(id = "kai"[\s\S]*?region = )"yellow"/, '$1"nowhere"');
    assert.notEqual(broken, edited);
    await page.fill('#editor-toml', broken);
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('error'), null, { timeout: 20000 });
    await page.waitForSelector('[data-editor-board] [data-finding="kai"]');
    const line = broken.split('\n').findIndex((l) => l.includes('"nowhere"')) + 1;
    await page.waitForSelector(`.editor-gutter .gutter-error[data-line="${line}"]`);
    assert.ok(await page.locator(`.editor-diagnostics li.severity-error[data-line="${line}"][data-place="kai"]`).count(), 'the finding is listed with its line and place');
    // The finding's line link selects that line of the text.
    await page.click(`.editor-diagnostics li.severity-error[data-line="${line}"] button`);
    const selected = await page.locator('#editor-toml').evaluate((el) => el.value.slice(el.selectionStart, el.selectionEnd));
    assert.match(selected, /"nowhere"/, 'the line of the finding is selected in the text');
    assert.ok(await page.locator('[data-action="download"]').isDisabled(), 'a map with errors cannot be saved');
    assert.ok(await page.locator('[data-action="try"]').isDisabled(), 'nor played');
    await shot(page, 'editor-error-1280');

    // Fixed in the place's form; undo brings the error back, redo the fix.
    await page.selectOption('#editor-kind', '');
    await page.mouse.click(...Object.values(await handle(page, 'kai')));
    await page.waitForSelector('[data-editor-form] select[data-field="region"]');
    await page.selectOption('[data-editor-form] select[data-field="region"]', 'yellow');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 20000 });
    assert.equal(await panel(page), edited, 'the fix gives back the text byte for byte');
    await page.click('[data-action="undo"]');
    await waitForText(page, (text) => text === broken, 'the error again after undo');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('error'));
    await page.click('[data-action="redo"]');
    await waitForText(page, (text) => text === edited, 'the fix again after redo');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'));
    await page.waitForFunction(() => !document.querySelector('[data-action="download"]').disabled);
    // Add a place, then remove it again: the text is as it was.
    await page.fill('#editor-new-id', 'new-isle');
    await page.click('[data-action="add-place"]');
    await waitForText(page, (text) => text.includes('id = "new-isle"'), 'the new place');
    await page.waitForSelector('[data-editor-board] [data-handle="new-isle"]');
    await page.click('[data-editor-form] [data-action="remove-place"]');
    await waitForText(page, (text) => text === edited, 'the text as before after the removal');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'));
    await page.mouse.click(...Object.values(await handle(page, 'mutsu')));
    await page.waitForSelector('[data-editor-form] [data-field="tax"]');
    await shot(page, 'editor-1280');

    // Download: exactly the panel's text, which the ruleset finds clean.
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-action="download"]')]);
    const saved = await new Promise((resolve, reject) => {
      download.createReadStream().then((stream) => {
        const chunks = [];
        stream.on('data', (c) => chunks.push(c));
        stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        stream.on('error', reject);
      }, reject);
    });
    assert.equal(saved, await panel(page), 'the file is byte for byte the panel');
    const check = await api(`/api/rulesets/${RULESET}/editor`, { method: 'POST', body: { toml: saved } });
    assert.equal(check.valid, true, JSON.stringify(check.diagnostics));
    assert.equal(check.toml, saved);

    // The same screen on a phone: the TOML under the board.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    const [boardBox, textBox] = await Promise.all([page.locator('[data-editor-board]').boundingBox(), page.locator('#editor-toml').boundingBox()]);
    assert.ok(textBox.y >= boardBox.y + boardBox.height - 1, 'on a phone the text is under the board');
    assert.ok(boardBox.width <= 390, `the board fits the phone (${boardBox.width})`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `nothing runs past the phone's width (${overflow} px)`);
    await shot(page, 'editor-390');
    await page.setViewportSize({ width: 1280, height: 800 });

    // Try it: a game on the edited map, bots in the other seats; play a turn.
    await page.click('[data-action="try"]');
    await page.waitForURL(/#\/play\//, { timeout: 20000 });
    await waitForTurn(page);
    const stats = newStats();
    const sent = await answer(page, rng(26), stats);
    assert.ok(['sent', 'summary'].includes(sent), `a turn was played (${sent})`);
    const gameId = /#\/play\/([^?]+)/.exec(page.url())[1];
    const record = await api(`/api/games/${gameId}`);
    assert.equal(record.map, 'custom', 'the game is on the edited text');
    page.check();
  });
});

test('the map editor on a board whose connections are tables: move, a road, an error shown and fixed, a highway, and a game', { timeout: 6 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  // The ruleset whose schema keeps its connections in tables of their own (two kinds on one table).
  const withTables = [];
  for (const ruleset of rulesets.filter((r) => r.editor && (r.maps || []).some((m) => m.valid))) {
    const map = ruleset.maps.find((m) => m.valid);
    const answer = await api(`/api/rulesets/${ruleset.id}/editor`, { method: 'POST', body: { toml: (await api(`/api/rulesets/${ruleset.id}/maps/${map.id}`)).toml } });
    const kinds = answer.schema.connection.filter((k) => k.table);
    if (kinds.length >= 2) withTables.push({ ruleset, map, answer, kinds });
  }
  if (!withTables.length) return; // no such ruleset on this server
  const { ruleset, map, answer: start, kinds } = withTables[0];
  const plain = kinds.find((k) => !k.flag);
  const flagged = kinds.find((k) => k.flag);
  const road = start.connections.find((c) => c.kind === plain.kind);
  // Two places no connection joins yet, for a new road.
  const joined = new Set(start.connections.map((c) => [c.from, c.to].sort().join('|')));
  const places = start.places.map((p) => p.id);
  let pair = null;
  for (const a of places) {
    pair = pair || places.filter((b) => b !== a).map((b) => [a, b]).find(([x, y]) => !joined.has([x, y].sort().join('|')));
  }
  assert.ok(pair, 'two places with no connection');
  // A place field with a fixed list of values, to break.
  const field = (start.schema.places.field || []).find((f) => Array.isArray(f.values) && f.values.length && !f.optional);
  assert.ok(field, 'a place field with allowed values');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/editor?ruleset=${ruleset.id}&map=${map.id}`);
    await page.waitForSelector(`[data-editor-board] [data-handle="${road.from}"]`);
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'));
    const original = await panel(page);

    // Move a place by dragging its handle.
    const mover = places[0];
    const from = await handle(page, mover);
    await page.mouse.move(from.x, from.y);
    await page.mouse.down();
    await page.mouse.move(from.x + 10, from.y + 10, { steps: 3 });
    await page.mouse.move(from.x + 25, from.y + 20, { steps: 5 });
    await page.mouse.up();
    await waitForText(page, (text) => tableOf(text, mover) !== tableOf(original, mover), `${mover} moved`);
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 20000 });

    // A new road between two places nothing joined.
    await page.selectOption('#editor-kind', plain.kind);
    await page.mouse.click(...Object.values(await handle(page, pair[0])));
    await page.mouse.click(...Object.values(await handle(page, pair[1])));
    const roadPattern = new RegExp(`${plain.endpoints} = \\[("${pair[0]}", "${pair[1]}"|"${pair[1]}", "${pair[0]}")\\]`);
    await waitForText(page, (text) => roadPattern.test(text), `the ${plain.kind} between ${pair.join(' and ')}`);
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 20000 });
    const edited = await panel(page);

    // An error typed in the text: a place's field given a value it may not have, shown at the
    // place on the board and at its line in the TOML; undo takes it back.
    const victim = places[1];
    const table = tableOf(edited, victim);
    const fieldLine = new RegExp(`${field.name} = "[^"]*"`);
    assert.match(table, fieldLine, `${victim} has a ${field.name}`);
    const broken = edited.replace(table, table.replace(fieldLine, `${field.name} = "nowhere"`));
    // As a paste would: the whole text at once (typing 30 KiB through `fill` is slow).
    await page.locator('#editor-toml').evaluate((el, text) => {
      el.value = text;
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, broken);
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('error'), null, { timeout: 20000 });
    await page.waitForSelector(`[data-editor-board] [data-finding="${victim}"]`);
    const line = broken.split('\n').findIndex((l) => l.includes('"nowhere"')) + 1;
    await page.waitForSelector(`.editor-gutter .gutter-error[data-line="${line}"]`);
    assert.ok(await page.locator('[data-action="try"]').isDisabled(), 'a map with errors cannot be played');
    await shot(page, 'editor-tables-error-1280');
    await page.click('[data-action="undo"]');
    await waitForText(page, (text) => text === edited, 'the text as before the error');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 20000 });

    // The shipped road made a highway (a flag on its table), then parted and brought back.
    await page.selectOption('#editor-kind', flagged.kind);
    await page.mouse.click(...Object.values(await handle(page, road.from)));
    await page.mouse.click(...Object.values(await handle(page, road.to)));
    await waitForText(page, (text) => text.length > edited.length, `the ${flagged.kind} flag`);
    const flaggedText = await panel(page);
    assert.ok(flaggedText.includes(`${flagged.flag} = true`), 'the flag is written on the connection');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'));
    await shot(page, 'editor-tables-1280');
    // Parting them by the flagged kind removes the connection's table; undo brings it back.
    await page.mouse.click(...Object.values(await handle(page, road.from)));
    await page.mouse.click(...Object.values(await handle(page, road.to)));
    await waitForText(page, (text) => text.length < flaggedText.length, 'the connection removed');
    await page.click('[data-action="undo"]');
    await waitForText(page, (text) => text === flaggedText, 'the connection back after undo');
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('ok'), null, { timeout: 20000 });

    // Try it: a game on the edited board, a bot in the other seats; play a turn.
    await page.waitForFunction(() => !document.querySelector('[data-action="try"]').disabled);
    await page.click('[data-action="try"]');
    await page.waitForURL(/#\/play\//, { timeout: 20000 });
    await waitForTurn(page);
    const sent = await answer(page, rng(27), newStats());
    assert.ok(['sent', 'summary'].includes(sent), `a turn was played (${sent})`);
    const gameId = /#\/play\/([^?]+)/.exec(page.url())[1];
    assert.equal((await api(`/api/games/${gameId}`)).map, 'custom', 'the game is on the edited text');
    page.check();
  });
});

/** The squares of the `n`-th `[[card]]` of a deck text (0-based), or null. */
function squaresOf(text, n) {
  const tables = text.split(/^\[\[card\]\]$/m).slice(1);
  const match = tables[n] && /squares = \[([^\]]*)\]/.exec(tables[n]);
  return match ? match[1].split(',').map((s) => s.trim().replace(/^"|"$/g, '')) : null;
}

const cards = (text) => text.split(/^\[\[card\]\]$/m).length - 1;

test('the map editor on a deck: a table of cards, a square changed, cards added and removed', { timeout: 4 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const deck = rulesets.find((r) => r.id === 'honshu');
  assert.ok(deck && deck.editor && deck.blank_map, 'the ruleset describes its deck and an empty one');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    // A ruleset without maps: the Maps page says so and offers the editor on an empty deck.
    await page.goto(`${BASE}/#/maps?ruleset=honshu`);
    await page.click('.no-maps [data-action="blank-map"]');
    await page.waitForSelector('[data-editor-table="card"]');
    const blank = await panel(page);
    assert.equal(cards(blank), 0, 'the empty deck has no card');
    assert.ok(await page.locator('[data-editor-board]').isHidden(), 'a deck has no board to place things on');

    // Add cards: each comes with the next number and first values, at the end of the text.
    for (let n = 1; n <= 6; n += 1) {
      await page.click('[data-action="add-row"][data-table="card"]');
      await waitForText(page, (text) => cards(text) === n, `${n} cards`);
      await page.waitForSelector(`[data-editor-table="card"] tr[data-row="${n - 1}"]`);
    }
    let text = await panel(page);
    assert.ok(text.startsWith(blank), 'the empty deck is kept as it was');
    assert.match(text, /\[\[card\]\]\nnumber = 6\nsquares = \[("[a-z-]+", ){5}"[a-z-]+"\]/, text);
    assert.equal(await page.locator('[data-editor-table="card"] tbody tr').count(), 6);
    const selects = page.locator('[data-editor-table="card"] tr[data-row="0"] select[data-field="squares"]');
    assert.equal(await selects.count(), 6, 'one select per square');

    // Change a square: only that item of that card changes in the text.
    const before = squaresOf(text, 1);
    const first = squaresOf(text, 0);
    const square = '[data-table="card"][data-row="1"][data-field="squares"][data-index="2"]';
    const other = (await page.locator(`${square} option`).allTextContents()).find((v) => v !== before[2]);
    await page.selectOption(square, other);
    await waitForText(page, (t) => squaresOf(t, 1)[2] === other, `square 3 of card 2 as ${other}`);
    text = await panel(page);
    assert.deepEqual(squaresOf(text, 1), [...before.slice(0, 2), other, ...before.slice(3)]);
    assert.deepEqual(squaresOf(text, 0), first, 'the other cards are as they were');
    assert.equal(await page.locator(square).inputValue(), other, 'the select shows the new square');

    // A number typed in.
    await page.fill('[data-table="card"][data-row="5"][data-field="number"]', '42');
    await page.press('[data-table="card"][data-row="5"][data-field="number"]', 'Tab');
    await waitForText(page, (t) => /number = 42\n/.test(t) && !/number = 6\n/.test(t), 'card 6 numbered 42');

    // The ruleset's findings still show at their line of the TOML (a deck of six cards is short).
    await page.waitForSelector('[data-editor-diagnostics] li.severity-error');
    const line = Number(await page.locator('[data-editor-diagnostics] li.severity-error').first().getAttribute('data-line'));
    assert.ok(line >= 0, 'a finding has its line');

    // Remove the first card: its table goes, the rest stays.
    const second = squaresOf(await panel(page), 1);
    await page.click('[data-action="remove-row"][data-table="card"][data-row="0"]');
    await waitForText(page, (t) => cards(t) === 5, '5 cards');
    text = await panel(page);
    assert.ok(!/number = 1\n/.test(text), 'card 1 is gone');
    assert.deepEqual(squaresOf(text, 0), second, 'the next card moved up unchanged');
    assert.equal(await page.locator('[data-editor-table="card"] tbody tr').count(), 5);
    await shot(page, 'editor-deck-1280');

    // On a phone: the table fits the width, the squares two by two.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 1, `nothing runs past the phone's width (${overflow} px)`);
    const table = await page.locator('[data-editor-table="card"] .editor-rows-scroll').boundingBox();
    const inner = await page.locator('[data-editor-table="card"] table').boundingBox();
    assert.ok(inner.width <= table.width + 1, `the table fits its frame (${inner.width} > ${table.width})`);
    await page.locator('[data-editor-table="card"]').scrollIntoViewIfNeeded();
    await shot(page, 'editor-deck-390');
    page.check();
  });
});

test('the map editor from an empty map: the skeleton, then a first place', { timeout: 3 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  for (const id of [RULESET, 'sekigahara']) {
    const ruleset = rulesets.find((r) => r.id === id);
    if (ruleset) assert.ok(ruleset.blank_map, `${id} offers an empty map`);
  }
  const blank = (await api(`/api/rulesets/${RULESET}/editor`, { method: 'POST', body: { toml: '' } })).schema['blank-map'];
  assert.ok(blank && blank.includes('[map]'), 'the schema carries the empty map');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps?ruleset=${RULESET}&map=${MAP}`);
    await page.click('[data-action="blank-map"]');
    await page.waitForURL(/blank=1/);
    await waitForText(page, (text) => text === blank, 'the empty map');
    // No province yet: the ruleset says so, and nothing can be downloaded or tried.
    await page.waitForFunction(() => document.querySelector('[data-editor-status]')?.classList.contains('error'));
    assert.ok(await page.locator('[data-action="download"]').isDisabled());

    // A first province, placed in the middle of the board, with first values for its fields.
    await page.fill('#editor-new-id', 'first-province');
    await page.click('[data-action="add-place"]');
    await waitForText(page, (text) => text.startsWith(blank) && text.includes('[[province]]\nid = "first-province"'), 'the first province');
    const text = await panel(page);
    assert.match(text, /region = "first"/, 'its region is the only one there is');
    await page.waitForSelector('[data-editor-board] [data-handle="first-province"]');
    await page.waitForSelector('[data-editor-form] [data-field="tax"]');
    page.check();
  });
});
