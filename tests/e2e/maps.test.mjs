// The map preview page and the lobby offer every map the server has loaded: a ruleset's own maps
// and the further maps of its examples folder. Each valid map is drawn; its checks are listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, chooseRuleset, openPage, shot, withBrowser } from './lib.mjs';

test('the map preview draws an example map and the lobby offers it', { timeout: 5 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const ruleset = rulesets.find((r) => (r.maps || []).some((m) => m.origin === 'example' && m.valid));
  assert.ok(ruleset, 'a ruleset has a valid example map (the shipped maps folder has one)');
  const example = ruleset.maps.find((m) => m.origin === 'example' && m.valid);
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps?ruleset=${encodeURIComponent(ruleset.id)}&map=${encodeURIComponent(example.id)}`);
    await page.waitForSelector('.map-details h2');
    assert.equal(await page.locator('#maps-map').inputValue(), example.id);
    const groups = await page.locator('#maps-map optgroup').count();
    assert.equal(groups, 2, "the ruleset's own maps and the further maps are grouped apart");
    await page.waitForFunction(() => Boolean(document.querySelector('.board-canvas')?.shadowRoot?.querySelector('svg')));
    const drawn = await page.evaluate(() => document.querySelector('.board-canvas').shadowRoot.querySelector('svg').getBoundingClientRect().width);
    assert.ok(drawn > 200, `the board is drawn (width ${drawn})`);
    assert.ok(await page.locator('.map-details .ok, .map-details table.diagnostics').count(), 'the checks are listed');
    await shot(page, 'maps-01-example');

    // The page leads to a new game on the map: the lobby opens with it chosen.
    await page.click('.map-details a.button[href*="map="]');
    await page.waitForSelector('#new-map');
    assert.equal(await page.locator('#new-ruleset').inputValue(), ruleset.id);
    assert.equal(await page.locator('#new-map').inputValue(), example.id);
    // Every valid map of the ruleset, examples included, can be chosen in the lobby.
    const offered = await page.locator('#new-map option:not([disabled])').evaluateAll((options) => options.map((o) => o.value));
    for (const map of ruleset.maps.filter((m) => m.valid)) assert.ok(offered.includes(map.id), `the lobby offers ${map.id}`);
    const variants = await page.locator('#new-variant option').evaluateAll((options) => options.map((o) => o.value));
    // A variant that changes nothing is the standard game: it names the first entry ('').
    for (const variant of ruleset.variants) {
      const standard = !Object.keys(variant.options || {}).length;
      assert.ok(variants.includes(standard ? '' : variant.id), `the lobby offers variant ${variant.id}`);
    }
    page.check();
  });
});

test('a ruleset that ships no map gets no map picker and its game request names no map', { timeout: 2 * 60 * 1000 }, async () => {
  // The server on main may list no such ruleset: the list is given one more, a copy of the first
  // with an empty `maps`, and the request the lobby sends is caught before it reaches the server.
  // The first ruleset that has maps (Honshu, listed first, has none).
  const first = (await api('/api/rulesets')).find((r) => (r.maps || []).length);
  const mapless = { ...first, id: `${first.id}-nomap`, name: `${first.name} (no map)`, maps: [] };
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.route('**/api/rulesets', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify([first, mapless]) }));
    let sent = null;
    await page.route('**/api/games', (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      sent = route.request().postDataJSON();
      return route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'caught by the test' }) });
    });
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('#new-map');
    await chooseRuleset(page, mapless.id);
    await page.waitForFunction(() => !document.querySelector('#new-map'));
    assert.equal(await page.locator('label[for="new-map"]').count(), 0, 'no map field');
    await page.click('[data-action="create"]');
    await page.waitForFunction(() => document.querySelector('.create .form-error:not([hidden])') || document.querySelector('.toast'), null, { timeout: 10000 }).catch(() => {});
    assert.ok(sent, 'the lobby sent the request (the form found nothing missing)');
    assert.equal(sent.ruleset, mapless.id);
    assert.ok(!('map' in sent) && !('map_toml' in sent), `the request names no map: ${JSON.stringify(sent)}`);
    // Back on a ruleset with maps, the picker returns and the request names one.
    await chooseRuleset(page, first.id);
    await page.waitForSelector('#new-map');
  });
});

test('the Maps page says when a ruleset uses no maps instead of an empty frame', { timeout: 2 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const mapless = rulesets.find((r) => !(r.maps || []).length);
  assert.ok(mapless, 'a shipped ruleset takes no map');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/maps?ruleset=${encodeURIComponent(mapless.id)}`);
    await page.waitForSelector('#maps-ruleset');
    if ((await page.inputValue('#maps-ruleset')) !== mapless.id) await page.selectOption('#maps-ruleset', mapless.id);
    const note = page.locator(`[data-no-maps="${mapless.id}"]`);
    await note.waitFor();
    assert.match(await note.innerText(), new RegExp(mapless.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'the note names the ruleset');
    assert.equal(await page.isVisible('#maps-map'), false, 'no empty map picker');
    const frames = await page.evaluate(() => [...document.querySelectorAll('.maps-page .game-main > :not(.no-maps)')].filter((el) => el.getClientRects().length).map((el) => el.outerHTML.slice(0, 120)));
    assert.deepEqual(frames, [], 'no empty frame');
    await shot(page, 'maps-no-maps');
    // Back on a ruleset with maps, a map is drawn again and the note is gone.
    const withMaps = rulesets.find((r) => (r.maps || []).length);
    await page.selectOption('#maps-ruleset', withMaps.id);
    await page.waitForSelector('.map-details h2');
    assert.equal(await page.locator('[data-no-maps]').count(), 0);
  });
});
