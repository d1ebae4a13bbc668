// The client's message formatter and catalogues, without a browser: ICU-style plurals follow each
// language's CLDR categories, and every plural of the UI's own catalogue has them all.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib.mjs';

const { formatParts, pluralCaseLists } = await import(path.join(ROOT, 'web-ui', 'src', 'messageformat.js'));
const { LANGUAGES } = await import(path.join(ROOT, 'web-ui', 'src', 'i18n.js'));
const LANGS = LANGUAGES.map(([code]) => code);

function format(template, lang, args) {
  return formatParts(template, lang, { arg: (name) => (args[name] === undefined ? undefined : String(args[name])), number: (name) => Number(args[name]) }).join('');
}

test('plurals pick the CLDR category of the language, exact matches first', () => {
  const armies = '{count, plural, =0 {no army} one {# army} other {# armies}}';
  assert.equal(format(armies, 'en', { count: 0 }), 'no army');
  assert.equal(format(armies, 'en', { count: 1 }), '1 army');
  assert.equal(format(armies, 'en', { count: 1200 }), '1,200 armies');
  const ro = '{n, plural, one {# armată} few {# armate} other {# de armate}}';
  assert.equal(format(ro, 'ro', { n: 1 }), '1 armată');
  assert.equal(format(ro, 'ro', { n: 5 }), '5 armate');
  assert.equal(format(ro, 'ro', { n: 20 }), '20 de armate');
  const es = '{n, plural, one {# ejército} many {# de ejércitos} other {# ejércitos}}';
  assert.equal(format(es, 'es', { n: 1000000 }), '1.000.000 de ejércitos');
  assert.equal(format(es, 'es', { n: 3 }), '3 ejércitos');
  // Russian has four categories: 1 and 21 are `one`, 2-4 and 22 `few`, 0, 5-20 and 11-14 `many`.
  const ru = '{n, plural, one {# армия} few {# армии} many {# армий} other {# армии}}';
  assert.equal(format(ru, 'ru', { n: 1 }), '1 армия');
  assert.equal(format(ru, 'ru', { n: 21 }), '21 армия');
  assert.equal(format(ru, 'ru', { n: 3 }), '3 армии');
  assert.equal(format(ru, 'ru', { n: 22 }), '22 армии');
  assert.equal(format(ru, 'ru', { n: 5 }), '5 армий');
  assert.equal(format(ru, 'ru', { n: 11 }), '11 армий');
  assert.equal(format(ru, 'ru', { n: 0 }), '0 армий');
  // Placeholders inside a branch, text around the plural, a select.
  assert.equal(format('{who} has {n, plural, one {# card in {place}} other {# cards in {place}}}.', 'en', { who: 'Ana', n: 2, place: 'Kai' }), 'Ana has 2 cards in Kai.');
  assert.equal(format('{g, select, a {Alpha} other {Other}}', 'en', { g: 'a' }), 'Alpha');
  // A template that does not parse is shown as it is, never thrown.
  assert.equal(format('{n, plural, one {# x}', 'en', { n: 1 }), '{n, plural, one {# x}');
  assert.equal(format('plain {missing}', 'en', {}), 'plain {missing}');
});

test('the language list offers exactly the UI catalogues there are', () => {
  const files = fs.readdirSync(path.join(ROOT, 'web-ui', 'i18n')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
  assert.deepEqual([...LANGS].sort(), files.sort());
  assert.ok(LANGS.includes('ru'), 'Russian is offered');
  for (const [code, name] of LANGUAGES) assert.ok(name.trim(), `${code} has a name in its own language`);
});

test('every plural of the UI catalogue has the CLDR categories of its language', () => {
  for (const lang of LANGS) {
    const wanted = new Intl.PluralRules(lang).resolvedOptions().pluralCategories;
    const texts = JSON.parse(fs.readFileSync(path.join(ROOT, 'web-ui', 'i18n', `${lang}.json`), 'utf8'));
    let plurals = 0;
    for (const [key, template] of Object.entries(texts)) {
      for (const { cases } of pluralCaseLists(template)) {
        plurals += 1;
        const categories = cases.filter((c) => !c.startsWith('='));
        assert.deepEqual([...categories].sort(), [...wanted].sort(), `${lang}:${key} has the categories ${wanted.join(', ')}`);
      }
    }
    assert.ok(plurals >= 5, `${lang} has plural texts (${plurals})`);
  }
});
