// Texts: the UI's own (i18n/<lang>.json) and the ruleset's (its message catalogue, fetched from
// the server). A missing text falls back to English, then to its key, so a gap shows but never
// breaks the page; every fallback is counted in `window.tenkaI18nFallbacks` (tests assert none).
// Templates may hold ICU-style plurals (see messageformat.js).

import { formatParts } from './messageformat.js';
import { pref, setPref } from './store.js';

/**
 * Each text shown in English for want of a translation, or as its raw key: "ui|ruleset:lang:key:how".
 * A ruleset's are also listed under its id in `window.tenkaI18nRulesetFallbacks`, so a page showing
 * several rulesets (the lobby's game lists) can be judged one ruleset at a time.
 */
const fallbacks = new Set();
if (typeof window !== 'undefined') {
  window.tenkaI18nFallbacks = [];
  window.tenkaI18nRulesetFallbacks = {};
}
function noteFallback(source, key, how, rulesetId = null) {
  const entry = `${source}:${current}:${key}:${how}`;
  const scoped = rulesetId ? `${rulesetId}|${entry}` : entry;
  if (fallbacks.has(scoped)) return;
  fallbacks.add(scoped);
  if (typeof window === 'undefined') return;
  if (!window.tenkaI18nFallbacks.includes(entry)) window.tenkaI18nFallbacks.push(entry);
  if (rulesetId) (window.tenkaI18nRulesetFallbacks[rulesetId] ||= []).push(entry);
}

/** The languages the UI is translated into, with their names in their own language. */
export const LANGUAGES = [
  ['en', 'English'],
  ['es', 'Español'],
  ['de', 'Deutsch'],
  ['ro', 'Română'],
  ['ru', 'Русский'],
];

let current = 'en';
let uiTexts = {};
let uiEnglish = {};
const catalogues = new Map(); // `${ruleset}/${lang}` -> {key: template}
const listeners = new Set();

async function loadJson(path) {
  const response = await fetch(path, { cache: 'no-cache' });
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return response.json();
}

/** The language the browser asks for, if the UI has it. */
function browserLanguage() {
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || 'en'];
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split('-')[0];
    if (LANGUAGES.some(([code]) => code === base)) return base;
  }
  return 'en';
}

/** Loads the UI texts of the stored or browser language. */
export async function initI18n() {
  uiEnglish = await loadJson('i18n/en.json');
  await setLanguage(pref('lang', '') || browserLanguage(), { store: false });
}

/** The current language code. */
export function language() {
  return current;
}

/**
 * The locale for dates and numbers: the browser's own variant of the page's language when it has
 * one (en-GB writes 25/11/2026), else the language itself.
 */
export function locale() {
  const wanted = typeof navigator !== 'undefined' && navigator.languages && navigator.languages.length ? navigator.languages : [];
  return wanted.find((tag) => String(tag).toLowerCase().split('-')[0] === current) || current;
}

/** Switches language; listeners re-render. */
export async function setLanguage(code, { store = true } = {}) {
  if (!LANGUAGES.some(([c]) => c === code)) code = 'en';
  uiTexts = code === 'en' ? uiEnglish : await loadJson(`i18n/${code}.json`).catch(() => uiEnglish);
  // The rulesets' catalogues in use are fetched in the new language before it applies, so nothing
  // drawn meanwhile (a view arriving from the stream) shows English for a moment; again while one
  // came into use during the fetching.
  for (;;) {
    const lacking = [...catalogueVersions].filter(([id]) => !catalogues.has(`${id}/${code}`));
    if (!lacking.length) break;
    await Promise.all(lacking.map(([id, version]) => fetchCatalogues(id, version === 'current' ? undefined : version, [code])));
  }
  current = code;
  document.documentElement.lang = code;
  if (store) setPref('lang', code);
  for (const listener of listeners) await listener(code);
}

/** Calls `listener` after each language switch; returns a function that removes it. */
export function onLanguageChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** A UI text in the current language; `params` fill placeholders and choose plural forms. */
export function t(key, params) {
  let template = uiTexts[key];
  if (template === undefined) {
    template = uiEnglish[key];
    noteFallback('ui', key, template === undefined ? 'raw' : 'english');
    if (template === undefined) template = key;
  }
  const value = (name) => (params && params[name] !== undefined ? params[name] : undefined);
  return formatParts(template, current, {
    arg: (name) => (value(name) === undefined ? undefined : String(value(name))),
    number: (name) => Number(value(name)),
  }).join('');
}

/** Which version of each ruleset the cached catalogues belong to: a content hash, or 'current'. */
const catalogueVersions = new Map();

/**
 * Fetches a ruleset's catalogue in the current language and in English (the fallback). A game
 * passes the ruleset version it runs on (its `ruleset_hash`): a server may offer a newer version
 * to new games, whose texts can differ. Without a version, the version new games get.
 */
export async function loadCatalogue(rulesetId, version) {
  const wanted = version || 'current';
  if (catalogueVersions.get(rulesetId) === wanted) {
    await fetchCatalogues(rulesetId, version, ['en', current]);
    return;
  }
  // Another version's texts: fetched first, then put in place together, so nothing drawn
  // meanwhile shows English (or a raw key) for want of a catalogue still on its way. A language
  // chosen while they arrive is fetched too.
  const fetched = new Map();
  for (;;) {
    const langs = [...new Set(['en', current])].filter((lang) => !fetched.has(lang));
    if (!langs.length) break;
    const values = await Promise.all(langs.map((lang) => fetchCatalogueValue(rulesetId, version, lang)));
    langs.forEach((lang, i) => fetched.set(lang, values[i]));
  }
  for (const key of [...catalogues.keys()]) if (key.startsWith(`${rulesetId}/`)) catalogues.delete(key);
  for (const [lang, value] of fetched) catalogues.set(`${rulesetId}/${lang}`, value);
  catalogueVersions.set(rulesetId, wanted);
}

/**
 * Fetches the languages of a ruleset's catalogue that are not in the cache yet and puts them there
 * together: English arriving alone first would be drawn as a fallback until the other came.
 */
async function fetchCatalogues(rulesetId, version, langs) {
  const missing = [...new Set(langs)].filter((lang) => !catalogues.has(`${rulesetId}/${lang}`));
  const values = await Promise.all(missing.map((lang) => fetchCatalogueValue(rulesetId, version, lang)));
  missing.forEach((lang, i) => catalogues.set(`${rulesetId}/${lang}`, values[i]));
}

/** One language of a ruleset's catalogue, as the server has it (empty when it has none). */
async function fetchCatalogueValue(rulesetId, version, lang) {
  const base = `/api/rulesets/${encodeURIComponent(rulesetId)}/catalogue/${lang}`;
  let value = null;
  if (version) value = await loadJson(`${base}?version=${encodeURIComponent(version)}`).catch(() => null);
  if (!value) value = await loadJson(base).catch(() => ({}));
  return value && typeof value === 'object' ? value : {};
}

function template(rulesetId, key, { count = false } = {}) {
  const local = catalogues.get(`${rulesetId}/${current}`);
  if (local && typeof local[key] === 'string') return local[key];
  const english = catalogues.get(`${rulesetId}/en`);
  if (english && typeof english[key] === 'string') {
    if (count && current !== 'en') noteFallback('ruleset', key, 'english', rulesetId);
    return english[key];
  }
  if (count) noteFallback('ruleset', key, 'raw', rulesetId);
  return null;
}

/**
 * Counts a ruleset text shown from elsewhere than its catalogue (a variant file's name, an option
 * group's word) because the catalogue lacks `key`: on a page in another language than English
 * that text is English, a gap like any other.
 */
export function noteUntranslated(rulesetId, key) {
  if (current !== 'en') noteFallback('ruleset', key, 'english', rulesetId);
}

/** Whether the ruleset's catalogue has `key`. */
export function hasKey(rulesetId, key) {
  return template(rulesetId, key) !== null;
}

/**
 * Normalises message arguments to [name, {text|number|seat|key}] pairs. The API sends
 * `[["name", {"number": 3}], ...]`; SVG `data-args` holds an object, whose values may also be
 * plain strings or numbers.
 */
export function normaliseArgs(args) {
  const pairs = Array.isArray(args) ? args : args && typeof args === 'object' ? Object.entries(args) : [];
  return pairs.map(([name, value]) => {
    if (value && typeof value === 'object') return [name, value];
    if (typeof value === 'number') return [name, { number: value }];
    return [name, { text: String(value) }];
  });
}

/**
 * Renders a ruleset message as parts: strings, and {seat} objects for seat arguments (so the
 * caller can show a seat chip).
 */
export function messageParts(rulesetId, message) {
  if (!message || typeof message.key !== 'string') return [''];
  const text = template(rulesetId, message.key, { count: true });
  if (text === null) return [message.key];
  const args = new Map(normaliseArgs(message.args));
  return formatParts(text, current, {
    arg: (name) => {
      const arg = args.get(name);
      if (!arg) return undefined;
      if ('text' in arg) return String(arg.text);
      if ('number' in arg) return Number(arg.number).toLocaleString(current);
      if ('seat' in arg) return { seat: Number(arg.seat) };
      if ('key' in arg) return template(rulesetId, arg.key, { count: true }) ?? arg.key;
      return undefined;
    },
    number: (name) => {
      const arg = args.get(name);
      if (!arg) return NaN;
      if ('number' in arg) return Number(arg.number);
      if ('text' in arg) return Number(arg.text);
      return NaN;
    },
    choice: (name) => {
      const arg = args.get(name);
      if (!arg) return '';
      if ('key' in arg) return arg.key;
      if ('seat' in arg) return String(arg.seat);
      return String(arg.text ?? arg.number ?? '');
    },
  });
}

/** A ruleset message as plain text; `seatName(seat)` names seats. */
export function messageText(rulesetId, message, seatName) {
  return messageParts(rulesetId, message)
    .map((part) => (typeof part === 'string' ? part : seatName(part.seat)))
    .join('');
}
