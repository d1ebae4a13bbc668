// Shared helpers of the browser tests: launching Debian's Chromium through playwright-core,
// pages that fail the test on any request to a host other than the server, and screenshots.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The repository root. */
export const ROOT = path.resolve(here, '../..');
/** Where screenshots go (kept as test artifacts). */
export const SHOTS = process.env.E2E_SCREENSHOTS || path.join(ROOT, 'artifacts', 'screenshots');
/** The server under test, e.g. http://127.0.0.1:43123 (set by run.sh). */
export const BASE = (process.env.E2E_BASE_URL || 'http://127.0.0.1:8787').replace(/\/$/, '');
const serverOrigin = new URL(BASE).origin;

/**
 * Starts a headless Chromium. Playwright gives every launch a fresh temporary profile (it refuses
 * a --user-data-dir argument), so no state leaks between tests.
 */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The map a test plays on: the ruleset's first valid map, else its first, else none (a ruleset that takes no map). */
export function playableMap(ruleset) {
  const maps = ruleset.maps || [];
  return (maps.find((m) => m.valid !== false) || maps[0] || {}).id;
}

/** The two screens every page is judged at: a laptop's and a phone's. */
export const BOTH_SIZES = [
  [1280, 800],
  [390, 844],
];

/** Runs `body` with a browser of its own, closed whatever happens. */
export async function withBrowser(body) {
  const browser = await launch();
  try {
    return await body(browser);
  } finally {
    await browser.close();
  }
}

/**
 * A new page (in its own context unless `context` is given) that records every request to a
 * host other than the server (`origin`: another server a test started itself) and every page
 * error. `check()` throws if there was any.
 */
export async function openPage(browser, { width = 1280, height = 800, context, locale = 'en-GB', origin = serverOrigin } = {}) {
  const ctx = context || (await browser.newContext({ viewport: { width, height }, locale }));
  const page = await ctx.newPage();
  if (context) await page.setViewportSize({ width, height });
  const foreign = [];
  const errors = [];
  // Every URL the page asked for, so a test can check that no secret was put into one.
  const urls = [];
  page.on('request', (request) => {
    const url = request.url();
    urls.push(url);
    if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return;
    if (new URL(url).origin !== origin) foreign.push(url);
  });
  page.on('pageerror', (error) => errors.push(String(error && error.message ? error.message : error)));
  page.check = () => {
    if (foreign.length) throw new Error(`the page made requests to other hosts: ${foreign.join(', ')}`);
    if (errors.length) throw new Error(`the page threw: ${errors.join(' | ')}`);
  };
  page.foreign = foreign;
  page.urls = urls;
  return page;
}

/** Saves a screenshot as artifacts/screenshots/<name>.png. */
export async function shot(page, name) {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) });
}

/** JSON from the server's API. */
export async function api(pathname, { method = 'GET', body, token } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${BASE}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
  return data;
}

/**
 * The ruleset the tests play: $E2E_RULESET, else the first the server lists that has maps (the
 * shared tests pick and preview maps; a ruleset without maps, such as Honshu, has its own test).
 */
export async function pickRuleset() {
  const rulesets = await api('/api/rulesets');
  const wanted = process.env.E2E_RULESET;
  const ruleset = (wanted && rulesets.find((r) => r.id === wanted)) || rulesets.find((r) => (r.maps || []).length) || rulesets[0];
  if (!ruleset) throw new Error('the server lists no ruleset');
  return ruleset;
}

/** Text of the whole page including the board's shadow root. */
export async function allText(page) {
  return page.evaluate(() => {
    const parts = [document.body.innerText];
    for (const host of document.querySelectorAll('*')) if (host.shadowRoot) parts.push(host.shadowRoot.textContent || '');
    return parts.join('\n');
  });
}

/** Sets a lobby option field to a value, whatever its control. */
export async function setOption(page, name, value) {
  const field = page.locator(`#opt-${name}`);
  if (!(await field.count())) return false;
  const type = await field.evaluate((el) => (el.tagName === 'SELECT' ? 'select' : el.type));
  if (type === 'checkbox') await field.setChecked(Boolean(value));
  else if (type === 'select') await field.selectOption(String(value));
  else await field.fill(String(value));
  return true;
}

/**
 * Picks ruleset `id` in the lobby form and waits until the form is the new ruleset's: its texts
 * arrive first, and the form before is disabled meanwhile.
 */
export async function chooseRuleset(page, id) {
  await page.selectOption('#new-ruleset', id);
  await page.waitForSelector(`.panel.create[data-ruleset="${id}"]:not([aria-busy])`);
}

/**
 * Creates a game through the lobby form by clicking: `seats` is a list of 'human' (played on this
 * device), 'invite' (a person invited by link) or 'bot:<kind>'; `options` maps option names to
 * values. Returns the game id.
 */
export async function createGame(page, { ruleset, map, seats, options = {}, seed }) {
  await page.goto(`${BASE}/#/`);
  await page.waitForSelector('#new-ruleset');
  await chooseRuleset(page, ruleset);
  if (map) await page.selectOption('#new-map', map);
  await page.selectOption('#new-count', String(seats.length));
  for (let i = 0; i < seats.length; i += 1) await page.selectOption(`#seat-${i}-kind`, seats[i]);
  for (const [name, value] of Object.entries(options)) await setOption(page, name, value);
  if (seed) {
    await page.click('.advanced summary');
    await page.fill('#new-seed', seed);
  }
  await page.click('[data-action="create"]');
  // With nobody to invite the lobby goes straight to the game; else it shows the invite links.
  await page.waitForFunction(() => /^#\/(play|hotseat)\//.test(location.hash) || document.querySelector('.created:not([hidden])[data-game-id]'));
  const fromHash = await page.evaluate(() => (location.hash.match(/^#\/(?:play|hotseat)\/([^?]+)/) || [])[1]);
  if (fromHash) return decodeURIComponent(fromHash);
  return page.locator('.created').getAttribute('data-game-id');
}

/** After createGame: the game screen of this device's seat (clicking "Play here" if shown). */
export async function enterGame(page, seat = 0) {
  const link = page.locator(`.created:not([hidden]) [data-play-seat="${seat}"]`);
  if (await link.count()) await link.click();
  await page.waitForSelector('.game[data-version]');
}
