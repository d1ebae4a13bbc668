// The map editor's "Save as example": the server's operator stores the edited map as an example
// the lobby offers (PUT /api/rulesets/{id}/examples/{name}, with the operator token). Shown only
// when the server says it may (`save_examples` of the ruleset in GET /api/rulesets: the server
// was given an operator token). The token is kept in this tab's sessionStorage only, never in
// localStorage or a URL. Like the editor, this module knows no game.

import { ApiError, api } from './api.js';
import { errorText, h, replace, toast } from './dom.js';
import { t } from './i18n.js';

/** Where this tab keeps the operator token (sessionStorage: gone when the tab closes). */
const TOKEN_KEY = 'tenka.operator-token';
/** What the server takes as an example's name. */
const NAME = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

function storedToken() {
  try {
    return sessionStorage.getItem(TOKEN_KEY) || '';
  } catch {
    return '';
  }
}

function storeToken(token) {
  try {
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
  } catch {
    // A page without storage asks again next time.
  }
}

/** A name to start from: the map's id, as a name the server takes. */
function suggestedName(mapId) {
  const base = String(mapId || 'map')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50);
  return `${base || 'map'}-edited`;
}

/**
 * The "Save as example" button and its dialog, for the editor's bar. `ruleset` is the ruleset as
 * GET /api/rulesets lists it; `checkedText()` resolves to the panel's text once the server has
 * checked it and found no error, else null. The element is null when saving is off; its
 * `setEnabled(bool)` follows the editor's checks as the download button does.
 */
export function exampleSaveButton(ruleset, mapId, checkedText) {
  if (!ruleset || !ruleset.save_examples) return null;
  const nameInput = h('input', { id: 'example-name', type: 'text', required: true, maxlength: 64, pattern: NAME.source, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'example-name-hint' });
  const tokenInput = h('input', { id: 'example-token', type: 'password', required: true, autocomplete: 'off', spellcheck: 'false', 'aria-describedby': 'example-token-hint' });
  const replaceBox = h('input', { id: 'example-replace', type: 'checkbox' });
  const statusLine = h('p', { class: 'example-status', 'aria-live': 'polite', 'data-example-status': '' });
  const submit = h('button', { type: 'submit', class: 'primary', 'data-action': 'save-example-submit' }, t('examples.submit'));
  const close = h('button', { type: 'button', class: 'secondary', 'data-action': 'save-example-close', onclick: () => dialog.close() }, t('examples.close'));
  const form = h(
    'form',
    { class: 'example-form', method: 'dialog', novalidate: true, onsubmit: (event) => (event.preventDefault(), save()) },
    h('h2', {}, t('examples.title')),
    h('p', { class: 'hint' }, t('examples.hint')),
    h('label', { for: 'example-name' }, t('examples.name')),
    nameInput,
    h('small', { id: 'example-name-hint', class: 'hint' }, t('examples.name-hint')),
    h('label', { for: 'example-token' }, t('examples.token')),
    tokenInput,
    h('small', { id: 'example-token-hint', class: 'hint' }, t('examples.token-hint')),
    h('label', { class: 'example-replace' }, replaceBox, ' ', t('examples.replace')),
    statusLine,
    h('div', { class: 'example-actions' }, submit, close),
  );
  const dialog = h('dialog', { class: 'example-dialog', 'data-example-dialog': '' }, form);
  const button = h('button', { type: 'button', class: 'secondary small', 'data-action': 'save-example', onclick: open }, t('examples.save'));
  const wrapper = h('span', { class: 'example-save' }, button, dialog);
  wrapper.setEnabled = (enabled) => {
    button.disabled = !enabled;
  };

  function say(text, kind, link) {
    statusLine.className = `example-status ${kind}`;
    replace(statusLine, text, link ? [' ', link] : null);
  }

  function open() {
    if (!nameInput.value) nameInput.value = suggestedName(mapId);
    tokenInput.value = storedToken();
    replaceBox.checked = false;
    say('', '');
    dialog.showModal();
    (tokenInput.value ? nameInput : tokenInput).focus();
  }

  async function save() {
    const name = nameInput.value.trim();
    const token = tokenInput.value.trim();
    if (!NAME.test(name)) {
      say(t('examples.bad-name'), 'error');
      nameInput.focus();
      return;
    }
    if (!token) {
      say(t('examples.need-token'), 'error');
      tokenInput.focus();
      return;
    }
    submit.disabled = true;
    say(t('examples.saving'), 'busy');
    try {
      const text = await checkedText();
      if (text === null) {
        say(t('editor.fix-first'), 'error');
        return;
      }
      const saved = await api('PUT', `/api/rulesets/${encodeURIComponent(ruleset.id)}/examples/${encodeURIComponent(name)}`, { token, body: { toml: text, replace: replaceBox.checked } });
      storeToken(token);
      const link = h('a', { href: `#/maps?ruleset=${encodeURIComponent(ruleset.id)}&map=${encodeURIComponent(saved.id)}`, 'data-example-link': '', onclick: () => dialog.close() }, t('examples.see'));
      say(t(saved.replaced ? 'examples.replaced' : 'examples.saved', { name: saved.id }), 'ok', link);
      toast(t(saved.replaced ? 'examples.replaced' : 'examples.saved', { name: saved.id }), 'ok');
    } catch (err) {
      say(refusal(err), 'error');
      if (err instanceof ApiError && err.status === 403) {
        storeToken('');
        tokenInput.select();
      }
    } finally {
      submit.disabled = false;
    }
  }

  return wrapper;
}

/** Why a save was refused, in the reader's words. */
function refusal(err) {
  if (!(err instanceof ApiError)) return errorText(err);
  if (err.status === 403) return `${t('examples.refused-token')} (${err.message})`;
  if (err.status === 409) return `${t('examples.conflict')} (${err.message})`;
  if (err.status === 422) {
    const first = ((err.body && err.body.diagnostics) || []).find((d) => d.severity === 'error');
    return first ? `${t('examples.invalid')} ${first.line ? `${first.line}: ` : ''}${first.text}` : t('examples.invalid');
  }
  return errorText(err);
}
