// Small DOM helpers shared by every screen.

import { messageParts, t } from './i18n.js';
import { seatChip } from './seats.js';

/** Creates an element: h('button', {class: 'x', onclick: fn}, 'text', child). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A ruleset message as an element, seats shown as chips. */
export function messageNode(rulesetId, message, seats, tag = 'span') {
  const el = document.createElement(tag);
  for (const part of messageParts(rulesetId, message)) {
    if (typeof part === 'string') el.append(part);
    else el.append(seatChip(seats, part.seat));
  }
  return el;
}

/** Shows a short notice at the bottom of the page; `kind` is info, ok or error. */
export function toast(text, kind = 'info') {
  const box = document.getElementById('toasts');
  if (!box) return;
  // One notice of a kind at a time: a newer one replaces the older.
  for (const old of box.querySelectorAll(`.toast-${kind}`)) old.remove();
  const item = h('div', { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text);
  box.append(item);
  const life = kind === 'error' ? 6000 : 2500;
  setTimeout(() => item.classList.add('toast-leaving'), life - 400);
  setTimeout(() => item.remove(), life);
}

/** The user-facing text of an API or network error. */
export function errorText(err) {
  if (err && err.code === 'network') return t('error.network');
  if (err && err.status === 404) return t('error.not-found');
  return t('error.generic', { message: (err && err.message) || String(err) });
}

/**
 * Shows "Loading…" in `root` while `load()` runs; if it fails, shows why in `root` and answers
 * `undefined`, so that a screen's start is `const x = await loadOrExplain(root, () => get(…));
 * if (x === undefined) return;`.
 */
export async function loadOrExplain(root, load) {
  replace(root, h('p', { class: 'loading' }, t('common.loading')));
  try {
    return await load();
  } catch (err) {
    replace(root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
    return undefined;
  }
}

/** Copies text to the clipboard, with a fallback for pages without clipboard access. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h('textarea', { 'aria-hidden': 'true', style: 'position:fixed;left:-9999px' });
    area.value = text;
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}
