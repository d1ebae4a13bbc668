// The lobby as a new player meets it: it opens on the operator's default ruleset, names games
// without version numbers, offers one "standard" entry and explains each variant, shows a chance
// as a percentage and folds options that belong together (variants and groups named in the
// reader's language from the ruleset's catalogue), keeps "Create game" in sight, goes from
// "Create game" straight into the game, writes dates the reader's way, and a variant never
// silently overrides an option set back by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, BOTH_SIZES, chooseRuleset, launch, openPage, shot, withBrowser } from './lib.mjs';
import { answer, newStats, rng, waitForTurn } from './play.mjs';

const plain = (value) => (value && typeof value === 'object' ? Object.values(value)[0] : value);
const kindOf = (option) => Object.keys(typeof option.kind === 'object' ? option.kind : { [option.kind]: null })[0];

/** Opens the lobby on ruleset `id`, in `lang`. */
async function lobby(page, id, lang = 'en') {
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('#new-ruleset');
  if (lang !== (await page.evaluate(() => document.documentElement.lang))) {
    await page.selectOption('#language', lang);
    await page.waitForFunction((l) => document.documentElement.lang === l, lang);
  }
  if (id) {
    await chooseRuleset(page, id);
    await page.waitForSelector('[data-seat-kind]');
  }
}

// The review chose the variant "Open war", set the event deck back to the standard one by hand,
// and got a game with the Open war deck: the form sent only values that differ from the default,
// and the server started from the variant's.
test('regression_option_set_back_to_default_is_replaced_by_variant', { timeout: 2 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  // Any ruleset with a variant that changes a choice option will do.
  const found = rulesets
    .flatMap((ruleset) => (ruleset.variants || []).map((variant) => ({ ruleset, variant })))
    .map(({ ruleset, variant }) => ({ ruleset, variant, option: (ruleset.options || []).find((o) => kindOf(o) === 'choice' && variant.options && o.name in variant.options && variant.options[o.name] !== plain(o.default)) }))
    .find((x) => x.option);
  assert.ok(found, 'a shipped variant changes a choice option');
  const { ruleset, variant, option } = found;
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await lobby(page, ruleset.id);
    await page.selectOption('#new-variant', variant.id);
    const values = kindOf(option) === 'choice' ? option.kind.choice : [];
    const group = page.locator(`details.option-group:has([id^="opt-${option.name}"])`);
    if (await group.count()) await group.locator('summary').click();
    const index = values.indexOf(plain(option.default));
    // The option's control shows the variant's value, then is set back to the default by hand.
    if (await page.locator(`#opt-${option.name}-${index}`).count()) await page.locator(`#opt-${option.name}-${index}`).check();
    else await page.selectOption(`#opt-${option.name}`, String(plain(option.default)));
    const request = page.waitForRequest((r) => r.url().endsWith('/api/games') && r.method() === 'POST');
    await page.click('[data-action="create"]');
    const body = (await request).postDataJSON();
    assert.equal(body.variant, variant.id);
    assert.equal(body.options && body.options[option.name], plain(option.default), `${option.name} set back to its default by hand is sent, so the variant's ${variant.options[option.name]} does not win`);
    page.check();
  });
});

// CI played Honshu with four seats where the test had picked three: the lobby kept the previous
// ruleset's form on screen while the new one's texts arrived, the seat count was picked on that
// form, and the new ruleset's form then came with its default count.
test('regression_seat_count_picked_while_a_ruleset_loads_was_lost', { timeout: 2 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  await withBrowser(async (browser) => {
    const page = await openPage(browser);
    await page.goto(`${BASE}/#/`);
    await page.waitForSelector('.panel.create[data-ruleset]:not([aria-busy])');
    const first = await page.getAttribute('.panel.create', 'data-ruleset');
    // Another ruleset where three seats is not the lobby's default count (four).
    const other = rulesets.find((r) => r.id !== first && r.min_seats <= 3 && r.max_seats >= 4);
    assert.ok(other, 'another ruleset seats three and four');
    // The other ruleset's texts are slow to come.
    let release;
    const held = new Promise((resolve) => (release = resolve));
    await page.route(`**/api/rulesets/${other.id}/catalogue/**`, async (route) => {
      await held;
      await route.continue();
    });
    await page.selectOption('#new-ruleset', other.id);
    const picked = page.selectOption('#new-count', '3');
    await page.waitForTimeout(300);
    release();
    await picked;
    await page.waitForSelector(`.panel.create[data-ruleset="${other.id}"]:not([aria-busy])`);
    assert.equal(await page.inputValue('#new-count'), '3', 'the count picked while the texts came is kept');
    assert.equal(await page.locator('[data-seat-kind]').count(), 3, 'three seat rows');
  });
});

test('the lobby opens on the default ruleset, explains variants, shows chances as percentages and keeps "Create game" in sight', { timeout: 5 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  await withBrowser(async (browser) => {
    for (const [width, height] of BOTH_SIZES) {
      const page = await openPage(browser, { width, height });
      await lobby(page, null);
      // The server lists the operator's default ruleset first (--default-ruleset); the lobby opens on it.
      assert.equal(await page.locator('#new-ruleset').inputValue(), rulesets[0].id, 'the lobby opens on the first listed ruleset');
      const names = await page.locator('#new-ruleset option').allInnerTexts();
      for (const name of names) assert.doesNotMatch(name, /\d+\.\d+/, `no version number in "${name}"`);
      for (const ruleset of rulesets) {
        await chooseRuleset(page, ruleset.id);
        await page.waitForSelector('[data-seat-kind]');
        await page.evaluate(() => window.scrollTo(0, 0));
        // "Create game" is in sight without scrolling, however many options the game has.
        const button = await page.locator('[data-action="create"]').boundingBox();
        assert.ok(button && button.y >= 0 && button.y + button.height <= height + 0.5, `${ruleset.id} at ${width}: "Create game" is in sight (at y ${button && Math.round(button.y)})`);
        const entries = await page.locator('#new-variant option').allInnerTexts();
        assert.equal(new Set(entries).size, entries.length, 'every variant entry is named once');
        assert.ok(!entries.some((e) => /^standard/i.test(e)) || entries.filter((e) => /standard/i.test(e)).length === 1, `one "standard" entry: ${entries}`);
        for (const variant of ruleset.variants || []) {
          if (!Object.keys(variant.options || {}).length) continue;
          await page.selectOption('#new-variant', variant.id);
          const hint = page.locator('#new-variant-hint');
          if (variant.description) assert.equal((await hint.innerText()).trim(), variant.description, `the description of ${variant.id} shows when it is picked`);
        }
        await page.selectOption('#new-variant', '');
        // Chances (decimals from 0 to 1) as percentages with a slider.
        for (const option of (ruleset.options || []).filter((o) => kindOf(o) === 'decimal' && o.kind.decimal.min === 0 && o.kind.decimal.max === 1)) {
          const slider = page.locator(`[data-option-slider="${option.name}"]`);
          assert.equal(await slider.count(), 1, `${option.name} has a slider`);
          assert.equal(Number(await page.locator(`#opt-${option.name}`).inputValue()), Math.round(plain(option.default) * 1000) / 10, `${option.name} reads as a percentage`);
        }
        // Many numeric options fold into disclosures, closed at first.
        const groups = await page.locator('details.option-group').count();
        if ((ruleset.options || []).length > 8) assert.ok(groups >= 1, `${ruleset.id}: its ${ruleset.options.length} options are grouped`);
        await shot(page, `lobby-${ruleset.id}-${width}`);
      }
      // A percentage set by hand is sent as the chance it stands for.
      const withChance = rulesets.find((r) => (r.options || []).some((o) => kindOf(o) === 'decimal' && o.kind.decimal.max === 1));
      if (withChance) {
        const option = withChance.options.find((o) => kindOf(o) === 'decimal' && o.kind.decimal.max === 1);
        await chooseRuleset(page, withChance.id);
        await page.waitForSelector('[data-seat-kind]');
        const group = page.locator(`details.option-group:has(#opt-${option.name})`);
        if (await group.count()) await group.locator('summary').click();
        await page.fill(`#opt-${option.name}`, '40');
        await shot(page, `lobby-percent-${width}`);
        const request = page.waitForRequest((r) => r.url().endsWith('/api/games') && r.method() === 'POST');
        await page.click('[data-action="create"]');
        assert.equal((await request).postDataJSON().options[option.name], 0.4, '40 % is sent as 0.4');
        // One click from "Create game" to playing: nobody to invite, so straight into the game.
        await page.waitForSelector('.game[data-version]');
        assert.match(await page.evaluate(() => location.hash), /^#\/play\//);
        // The name prompt asks once; after the first move it folds into one small button.
        await waitForTurn(page);
        assert.ok(await page.locator('.claim:not([hidden]) .claim-form').isVisible(), 'the name prompt is asked');
        await answer(page, rng(1), newStats());
        await page.waitForSelector('.claim.folded [data-action="claim-unfold"]');
        await page.reload();
        await page.waitForSelector('.game[data-version]');
        assert.equal(await page.locator('.claim:not([hidden]) .claim-form').count(), 0, 'it stays folded when the game is opened again');
      }
      page.check();
      await page.close();
    }
  });
});

test('the lobby in German: seat kinds whole at 1280, dates and default names in the reader\'s language', { timeout: 3 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  await withBrowser(async (browser) => {
    const page = await openPage(browser, { locale: 'de-DE' });
    await lobby(page, rulesets[0].id, 'de');
    const cut = await page.evaluate(() => {
      const context = document.createElement('canvas').getContext('2d');
      const out = [];
      for (const select of document.querySelectorAll('[data-seat-kind]')) {
        const style = getComputedStyle(select);
        context.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
        for (const option of select.options) if (context.measureText(option.text).width > room) out.push(option.text);
      }
      return [...new Set(out)];
    });
    assert.deepEqual(cut, [], 'every seat kind shows whole at 1280 px in German');
    // A game with default names, then the lobby's list: the date in German, the bots' names too.
    const ruleset = rulesets[0];
    const map = ((ruleset.maps || []).find((m) => m.valid !== false) || {}).id;
    await api('/api/games', { method: 'POST', body: { ruleset: ruleset.id, ...(map ? { map } : {}), seats: [{ kind: 'human', creator: true }, ...Array(Math.max(1, ruleset.min_seats - 1)).fill({ kind: 'bot', bot: 'search' })] } });
    await page.reload();
    await page.waitForSelector('.all-games .game-row');
    const when = await page.locator('.all-games .game-when').first().innerText();
    assert.match(when, /\d{1,2}\.\d{1,2}\.\d{4}/, `the date is written the German way: ${when}`);
    const labels = await page.locator('.all-games .game-row').first().locator('.seat-chip').evaluateAll((chips) => chips.map((c) => c.getAttribute('aria-label')));
    assert.ok(labels.includes('Spieler 1'), `the default seat name is translated: ${labels}`);
    assert.ok(labels.some((l) => /^Bot \d \(stark\)$/.test(l)), `the bot's name is translated: ${labels}`);
    await shot(page, 'lobby-de-1280');
    page.check();
  });
});

// A German player met the variant files' English names and descriptions, and raw group words
// ("Points") as headings: the lobby takes them from the ruleset's catalogue in the reader's
// language wherever the catalogue has them.
test('the lobby names variants and option groups in the reader\'s language', { timeout: 3 * 60 * 1000 }, async () => {
  const rulesets = await api('/api/rulesets');
  const browser = await launch();
  let seen = 0;
  try {
    const page = await openPage(browser, { locale: 'de-DE' });
    await lobby(page, null, 'de');
    for (const ruleset of rulesets) {
      const texts = await api(`/api/rulesets/${encodeURIComponent(ruleset.id)}/catalogue/de`);
      await chooseRuleset(page, ruleset.id);
      await page.waitForSelector('[data-seat-kind]');
      for (const variant of ruleset.variants || []) {
        const name = texts[`variant.${variant.id}`];
        if (name === undefined) continue;
        seen += 1;
        // The variant that changes nothing is the first entry, which has no value.
        const value = Object.keys(variant.options || {}).length ? variant.id : '';
        await page.selectOption('#new-variant', value);
        const entry = await page.locator(`#new-variant option[value="${value}"]`).innerText();
        assert.equal(entry.trim(), name, `${ruleset.id}: the variant ${variant.id} is named in German`);
        const description = texts[`variant.${variant.id}.description`];
        if (description !== undefined) assert.equal((await page.locator('#new-variant-hint').innerText()).trim(), description, `${ruleset.id}: ${variant.id} is described in German`);
      }
      await page.selectOption('#new-variant', '');
      for (const group of await page.locator('details.option-group').all()) {
        const word = await group.getAttribute('data-option-group');
        const heading = texts[`option-group.${word}`];
        if (heading === undefined) continue;
        seen += 1;
        assert.ok((await group.locator('summary').innerText()).trim().startsWith(heading), `${ruleset.id}: the group ${word} is headed "${heading}"`);
        await group.locator('summary').click();
      }
      const picked = (ruleset.variants || []).find((v) => Object.keys(v.options || {}).length && texts[`variant.${v.id}`] !== undefined);
      if (picked) await page.selectOption('#new-variant', picked.id);
      await shot(page, `lobby-de-names-${ruleset.id}`);
      const firstGroup = page.locator('details.option-group summary').first();
      if (await firstGroup.count()) {
        await firstGroup.scrollIntoViewIfNeeded();
        await shot(page, `lobby-de-groups-${ruleset.id}`);
      }
    }
    page.check();
  } finally {
    await browser.close();
  }
  assert.ok(seen > 0, 'some ruleset names its variants or option groups in German');
});

test('options that belong together are grouped from their names alone', async () => {
  const { optionGroups } = await import('../../web-ui/src/lobby.js');
  const integer = { integer: { min: 0, max: 20 } };
  const chance = { decimal: { min: 0, max: 1 } };
  const option = (name, kind = integer) => ({ name, kind, default: { integer: 1 } });
  const summary = (entries) => entries.map((e) => (e.group ? `${e.group}:${e.options.map((o) => o.name).join(',')}` : e.option.name));
  // Endings: a long run of "-points" and two "-bonus" of the same kind and range make one group.
  assert.deepEqual(
    summary(optionGroups([option('side', { choice: ['a', 'b'] }), option('forest-points'), option('forest-line-points'), option('factory-blue-points'), option('lake-points'), option('blue-yellow-bonus'), option('grey-brown-bonus')])),
    ['side', 'points:forest-points,forest-line-points,factory-blue-points,lake-points,blue-yellow-bonus,grey-brown-bonus'],
  );
  // Beginnings, when as large as an ending; single options stay as they are.
  assert.deepEqual(summary(optionGroups([option('years'), option('tower-lodge-chance', chance), option('tower-release-chance', chance), option('rice-cap'), option('event-deck', { choice: ['a'] })])), ['years', 'tower:tower-lodge-chance,tower-release-chance', 'rice-cap', 'event-deck']);
  assert.deepEqual(summary(optionGroups([option('rounds')])), ['rounds']);
});
