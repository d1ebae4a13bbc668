// The map preview: pick a ruleset and one of its maps (the ruleset's own or an example); see the
// map drawn and every diagnostic the ruleset's validation reports, with its line and column. The
// server rereads map files when they change, so reopening a map shows the file as saved.

import { get } from './api.js';
import { Board } from './board.js';
import { errorText, h, replace, loadOrExplain } from './dom.js';
import { loadCatalogue, messageText, t } from './i18n.js';

/**
 * The <option>s of a map picker: the ruleset's own maps, then further maps (examples) in a group
 * of their own. A map with errors is marked; `disableInvalid` also makes it unselectable.
 */
export function mapOptions(ruleset, selected, { disableInvalid = false } = {}) {
  const name = (m) => (m.name && m.name.key ? messageText(ruleset.id, m.name, (s) => t('seat.default', { n: s + 1 })) : String(m.name || m.id));
  const option = (m) =>
    h('option', { value: m.id, selected: m.id === selected, disabled: disableInvalid && m.valid === false }, name(m) + (m.valid === false ? ` (${t('lobby.map-invalid')})` : ''));
  const maps = ruleset.maps || [];
  const examples = maps.filter((m) => m.origin === 'example');
  if (!examples.length) return maps.map(option);
  return [
    h('optgroup', { label: t('maps.listed') }, maps.filter((m) => m.origin !== 'example').map(option)),
    h('optgroup', { label: t('maps.examples') }, examples.map(option)),
  ];
}

/** The way into the editor on the ruleset's empty map. */
function blankLink(ruleset) {
  return h('a', { class: 'button secondary', href: `#/editor?ruleset=${encodeURIComponent(ruleset.id)}&blank=1`, 'data-action': 'blank-map' }, t('editor.blank-map'));
}

/** Mounts the map preview page. */
export async function mountMaps(root, { ruleset: wantedRuleset, map: wantedMap } = {}) {
  let shownHash = null;
  let rulesets = await loadOrExplain(root, () => get('/api/rulesets'));
  if (rulesets === undefined) return { destroy() {} };
  const board = new Board();
  const rulesetSelect = h('select', { id: 'maps-ruleset' }, rulesets.map((r) => h('option', { value: r.id, selected: r.id === wantedRuleset }, r.name)));
  const mapSelect = h('select', { id: 'maps-map' });
  const details = h('div', { class: 'map-details' });
  const mapLabel = h('label', { for: 'maps-map' }, t('lobby.map'));
  const noMaps = h('div', { class: 'panel no-maps', hidden: true });
  const show = async () => {
    const ruleset = rulesets.find((r) => r.id === rulesetSelect.value);
    if (!ruleset) return;
    // A ruleset whose board comes with the game: say so where the map would be, rather than an
    // empty frame and an empty picker.
    const mapless = !(ruleset.maps || []).length;
    mapLabel.hidden = mapless;
    mapSelect.hidden = mapless;
    board.element.hidden = false;
    if (mapless) {
      board.show('', ruleset.id, () => '');
      board.element.hidden = true;
      shownHash = null;
      replace(noMaps, h('p', { 'data-no-maps': ruleset.id }, t(ruleset.blank_map ? 'maps.none-editable' : 'maps.none', { ruleset: ruleset.name })), ruleset.blank_map ? h('p', { class: 'map-actions' }, blankLink(ruleset)) : null);
      noMaps.hidden = false;
      details.replaceChildren();
      return;
    }
    noMaps.hidden = true;
    noMaps.replaceChildren();
    if (!mapSelect.value) return;
    replace(details, h('p', { class: 'loading' }, t('common.loading')));
    try {
      const map = await get(`/api/rulesets/${encodeURIComponent(ruleset.id)}/maps/${encodeURIComponent(mapSelect.value)}`);
      shownHash = map.hash;
      const diagnostics = map.diagnostics || [];
      board.show(map.svg || '', ruleset.id, (s) => t('seat.default', { n: s + 1 }));
      replace(
        details,
        h('h2', {}, t('maps.diagnostics')),
        diagnostics.length
          ? h(
              'table',
              { class: 'diagnostics' },
              h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('maps.severity')), h('th', { scope: 'col' }, t('maps.where')), h('th', { scope: 'col' }, t('maps.finding')))),
              h('tbody', {}, diagnostics.map((d) => h('tr', { class: `severity-${d.severity}` }, h('td', {}, d.severity === 'error' ? `✖ ${t('maps.error')}` : `⚠ ${t('maps.warning')}`), h('td', {}, d.line ? `${d.line}:${d.column || 0}` : t('maps.whole-file')), h('td', {}, d.text)))),
            )
          : h('p', { class: 'ok' }, `✔ ${t('maps.no-diagnostics')}`),
        map.svg ? null : h('p', { class: 'hint' }, map.board_error ? t('maps.no-drawing-because', { why: map.board_error }) : t('maps.no-drawing')),
        h(
          'p',
          { class: 'map-actions' },
          map.valid
            ? [
                h('a', { class: 'button', href: `#/?ruleset=${encodeURIComponent(ruleset.id)}&map=${encodeURIComponent(map.id)}` }, t('maps.play-here')),
                ' ',
                h('a', { class: 'button secondary', href: `#/lab?ruleset=${encodeURIComponent(ruleset.id)}&map=${encodeURIComponent(map.id)}`, 'data-action': 'lab' }, t('maps.try-in-lab')),
                ' ',
              ]
            : null,
          h('a', { class: 'button secondary', href: `#/editor?ruleset=${encodeURIComponent(ruleset.id)}&map=${encodeURIComponent(map.id)}`, 'data-action': 'edit-map' }, t('maps.edit')),
          ruleset.blank_map ? [' ', blankLink(ruleset)] : null,
        ),
        h('details', {}, h('summary', {}, t('maps.source'), map.hash ? ` · ${String(map.hash).slice(0, 12)}` : ''), h('pre', { class: 'map-source' }, map.toml || '')),
      );
    } catch (err) {
      board.show('', ruleset.id, () => '');
      replace(details, h('p', { class: 'error' }, errorText(err)));
    }
  };
  const fillMaps = async () => {
    const ruleset = rulesets.find((r) => r.id === rulesetSelect.value);
    if (!ruleset) return;
    await loadCatalogue(ruleset.id);
    const keep = mapSelect.value || wantedMap;
    replace(mapSelect, mapOptions(ruleset, keep));
    await show();
  };
  rulesetSelect.addEventListener('change', fillMaps);
  mapSelect.addEventListener('change', show);
  replace(
    root,
    h(
      'div',
      { class: 'maps-page' },
      h('h1', {}, t('maps.title')),
      h('div', { class: 'maps-pickers' }, h('label', { for: 'maps-ruleset' }, t('lobby.ruleset')), rulesetSelect, mapLabel, mapSelect),
      h('div', { class: 'game-layout' }, h('div', { class: 'game-main' }, noMaps, board.element), h('aside', { class: 'game-side' }, details)),
    ),
  );
  if (rulesets.length) await fillMaps();
  else {
    board.element.hidden = true;
    replace(noMaps, h('p', {}, t('lobby.no-rulesets')));
    noMaps.hidden = false;
  }
  // The server rereads map files when they change: look for a new version of the shown map, or
  // maps added or removed, every few seconds, so an author sees each save without reloading.
  const mapList = (list) => JSON.stringify(list.map((r) => [r.id, (r.maps || []).map((m) => [m.id, m.valid])]));
  const timer = setInterval(async () => {
    let fresh;
    try {
      fresh = await get('/api/rulesets');
    } catch {
      return;
    }
    const listChanged = mapList(fresh) !== mapList(rulesets);
    rulesets = fresh;
    const ruleset = rulesets.find((r) => r.id === rulesetSelect.value);
    const map = ruleset && (ruleset.maps || []).find((m) => m.id === mapSelect.value);
    if (listChanged) await fillMaps();
    else if (map && map.hash !== shownHash) await show();
  }, 3000);
  return {
    destroy() {
      clearInterval(timer);
    },
  };
}
