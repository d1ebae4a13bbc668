// The web UI knows no game: its source names no ruleset-specific thing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from './lib.mjs';

function files(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : [full];
  });
}

/**
 * The names of the shipped rulesets: every folder of rulesets/ with a crate, but the test fixtures
 * (`*-for-tests`). Letters may be joined by a hyphen, underscore or space ("tic-tac-toe").
 */
function shippedRulesetNames() {
  const dir = path.join(ROOT, 'rulesets');
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.endsWith('-for-tests') && fs.existsSync(path.join(dir, entry.name, 'Cargo.toml')))
    .map((entry) => entry.name);
}

test('the shipped rulesets are found, so the next test bans their names', () => {
  const names = shippedRulesetNames();
  for (const name of ['shogun', 'honshu', 'tictactoe']) assert.ok(names.includes(name), `${name} in ${names}`);
});

test('web-ui contains no game-specific names', () => {
  const loose = (name) => [...name.replace(/[-_ ]/g, '')].join('[-_ ]?');
  const banned = new RegExp([...shippedRulesetNames().map(loose), 'daimyo', 'sekigahara', 'tokugawa'].join('|'), 'i');
  const offenders = files(path.join(ROOT, 'web-ui')).filter((file) => banned.test(fs.readFileSync(file, 'utf8')) || banned.test(file));
  assert.deepEqual(offenders, []);
});

test('web-ui loads nothing from another host', () => {
  const external = /(src|href)\s*=\s*["'](https?:)?\/\/|@import\s+url\(\s*["']?https?:|from\s+["']https?:/i;
  const offenders = files(path.join(ROOT, 'web-ui')).filter((file) => /\.(html|js|css)$/.test(file) && external.test(fs.readFileSync(file, 'utf8')));
  assert.deepEqual(offenders, []);
});
