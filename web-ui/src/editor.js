// The map editor: a ruleset's board (drawn by the ruleset, as in a game) beside the map's TOML.
// Drag a place's handle to move it, pick two places to join or part them by a kind of connection,
// edit a place's fields in a form; each change is sent to the server as an edit
// (POST /api/rulesets/{id}/editor), which rewrites the TOML keeping everything else, checks it with
// the ruleset's own validate-map and draws it again. Editing the text redraws too (debounced).
// Arrays of tables the schema edits as tables of rows (a deck of cards) are shown as HTML tables,
// one row per entry, each change sent as an edit like the others. A ruleset whose schema has an
// empty map can start from it (`blank`). What can be edited comes from the ruleset's schema in the
// answer: this module knows no game.

import { ApiError, get, post } from './api.js';
import { MIN_TEXT_PX, PHONE_WIDTH, sanitizeSvg, smallestTextPx, translateSvg } from './board.js';
import { errorText, h, replace, toast } from './dom.js';
import { exampleSaveButton } from './examplesave.js';
import { loadCatalogue, messageText, t } from './i18n.js';
import { saveHost, saveSeat } from './store.js';

const SVG_NS = 'http://www.w3.org/2000/svg';
/** How long the text must rest before it is checked and drawn again. */
const TYPING_PAUSE_MS = 300;
/** The most versions undo keeps. */
const HISTORY = 100;

/** Least squares fit of `to = a * from + b` (null with fewer than two distinct points). */
function fitLine(pairs) {
  const n = pairs.length;
  if (n < 2) return null;
  const mx = pairs.reduce((s, [f]) => s + f, 0) / n;
  const my = pairs.reduce((s, [, v]) => s + v, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (const [f, v] of pairs) {
    sxx += (f - mx) * (f - mx);
    sxy += (f - mx) * (v - my);
  }
  if (!sxx) return null;
  const a = sxy / sxx;
  return { a, b: my - a * mx };
}

/**
 * Mounts the editor on a map of a ruleset (`map`: a map id of the ruleset to start from; `blank`:
 * start from the ruleset's empty map instead, as a ruleset without maps always does).
 */
export async function mountEditor(root, { ruleset: rulesetId, map: mapId, blank = false } = {}) {
  replace(root, h('p', { class: 'loading' }, t('common.loading')));
  let rulesets;
  let start;
  try {
    rulesets = await get('/api/rulesets');
    const ruleset =
      rulesets.find((r) => r.id === rulesetId) || rulesets.find((r) => (r.maps || []).length) || rulesets.find((r) => r.blank_map);
    if (!ruleset) throw new Error(t('editor.no-maps'));
    rulesetId = ruleset.id;
    await loadCatalogue(rulesetId);
    if (!mapId && !(ruleset.maps || []).length) blank = true;
    if (blank) {
      if (!ruleset.blank_map) throw new Error(t('editor.no-blank-map', { ruleset: ruleset.name }));
      // The empty map is part of the ruleset's schema, which comes with any answer.
      const answer = await post(`/api/rulesets/${encodeURIComponent(rulesetId)}/editor`, { toml: '', edits: [] });
      start = { id: 'new', toml: (answer.schema && answer.schema['blank-map']) || '' };
      mapId = 'new';
    } else {
      mapId = mapId || ((ruleset.maps || [])[0] || {}).id;
      start = await get(`/api/rulesets/${encodeURIComponent(rulesetId)}/maps/${encodeURIComponent(mapId)}`);
    }
  } catch (err) {
    replace(root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
    return { destroy() {} };
  }
  const ruleset = rulesets.find((r) => r.id === rulesetId);
  const seatName = (s) => t('seat.default', { n: s + 1 });

  // --- state ---
  let text = start.toml || '';
  let answer = null; // the server's last answer, for `answeredText`
  let answeredText = null;
  const undo = [];
  const redo = [];
  let selected = null; // place id
  let picked = null; // first place picked for a connection
  let fit = null; // {x: {a, b}, y: {a, b}}: TOML position to drawing position
  let lastSvg = null; // the last drawing the server made, shown faded while the map has errors
  let chain = Promise.resolve();
  let typingTimer = null;
  let typingFrom = null; // the text before a burst of typing, for undo
  let destroyed = false;

  // --- elements ---
  const boardHost = h('div', { class: 'editor-canvas', 'data-editor-board': '' });
  const shadow = boardHost.attachShadow({ mode: 'open' });
  shadow.append(h('link', { rel: 'stylesheet', href: 'board.css' }), h('style', {}, EDITOR_BOARD_CSS));
  const boardMessage = h('p', { class: 'hint', hidden: true });
  const textarea = h('textarea', { id: 'editor-toml', class: 'editor-toml', spellcheck: 'false', wrap: 'off', 'aria-label': t('editor.toml'), autocomplete: 'off' });
  textarea.value = text;
  const gutter = h('div', { class: 'editor-gutter', 'aria-hidden': 'true' });
  const status = h('p', { class: 'editor-status', 'aria-live': 'polite', 'data-editor-status': '' });
  const diagnosticsList = h('ul', { class: 'editor-diagnostics', 'data-editor-diagnostics': '' });
  const form = h('div', { class: 'editor-form', 'data-editor-form': '' });
  const kindSelect = h('select', { id: 'editor-kind', 'data-editor-kind': '' });
  const pickHint = h('p', { class: 'hint', 'data-editor-pick': '' });
  const newId = h('input', { id: 'editor-new-id', type: 'text', size: 12, placeholder: t('editor.new-id'), 'aria-label': t('editor.new-id'), autocomplete: 'off', spellcheck: 'false' });
  const addButton = h('button', { type: 'button', class: 'secondary small', 'data-action': 'add-place', onclick: addPlace }, t('editor.add-place'));
  const adding = h('span', { class: 'editor-add' }, newId, addButton);
  const undoButton = h('button', { type: 'button', class: 'secondary small', 'data-action': 'undo', onclick: () => back(undo, redo) }, t('editor.undo'));
  const redoButton = h('button', { type: 'button', class: 'secondary small', 'data-action': 'redo', onclick: () => back(redo, undo) }, t('editor.redo'));
  const downloadButton = h('button', { type: 'button', class: 'secondary small', 'data-action': 'download', onclick: download }, t('editor.download'));
  const tryButton = h('button', { type: 'button', class: 'small', 'data-action': 'try', onclick: tryIt }, t('editor.try'));
  const saveExample = exampleSaveButton(ruleset, mapId, checkedText); // null unless the server allows it

  const tablesHost = h('div', { class: 'editor-tables', 'data-editor-tables': '' });
  const tools = h('div', { class: 'editor-tools' }, h('label', { for: 'editor-kind' }, t('editor.connect')), kindSelect, adding, pickHint);

  const mapName = start.name && start.name.key ? messageText(rulesetId, start.name, seatName) : String(start.name || start.id);
  const startedFrom = blank ? t('editor.started-blank', { ruleset: ruleset.name }) : t('editor.started-from', { ruleset: ruleset.name, map: mapName });
  const backTo = blank ? `#/maps?ruleset=${encodeURIComponent(rulesetId)}` : `#/maps?ruleset=${encodeURIComponent(rulesetId)}&map=${encodeURIComponent(mapId)}`;
  replace(
    root,
    h(
      'div',
      { class: 'editor-page' },
      h('h1', {}, t('editor.title')),
      h('p', { class: 'hint' }, startedFrom, ' ', h('a', { href: backTo }, t('editor.back-to-maps'))),
      h('div', { class: 'editor-bar' }, undoButton, redoButton, downloadButton, saveExample, tryButton, status),
      h(
        'div',
        { class: 'editor-layout' },
        h('div', { class: 'editor-main' }, tools, tablesHost, boardHost, boardMessage, form),
        h('div', { class: 'editor-side' }, h('h2', {}, t('editor.toml')), h('div', { class: 'editor-text' }, gutter, textarea), h('h2', {}, t('maps.diagnostics')), diagnosticsList),
      ),
    ),
  );

  // --- talking to the server: one call at a time, in order ---
  function send(edits, { from } = {}) {
    chain = chain.then(async () => {
      if (destroyed) return;
      const before = from !== undefined ? from : text;
      let result;
      for (let tries = 0; ; tries += 1) {
        try {
          result = await post(`/api/rulesets/${encodeURIComponent(rulesetId)}/editor`, { toml: text, edits });
          break;
        } catch (err) {
          // Another tab of this address is checking a map, or the server is busy: a moment.
          if (err instanceof ApiError && (err.status === 429 || err.status === 503) && tries < 20) {
            await new Promise((resolve) => setTimeout(resolve, 250));
            continue;
          }
          status.textContent = errorText(err);
          status.className = 'editor-status error';
          return;
        }
      }
      if (destroyed) return;
      if (edits.length && result.toml !== text) {
        remember(before);
        text = result.toml;
        if (textarea.value !== text) textarea.value = text;
      }
      if (textarea.value !== text) return; // typed since: the next check follows
      answer = result;
      answeredText = text;
      show();
    });
    return chain;
  }

  function remember(previous) {
    undo.push(previous);
    if (undo.length > HISTORY) undo.shift();
    redo.length = 0;
  }

  function back(from, to) {
    flushTyping();
    if (!from.length) return;
    to.push(text);
    text = from.pop();
    textarea.value = text;
    send([]);
  }

  function flushTyping() {
    if (typingTimer) {
      clearTimeout(typingTimer);
      typingTimer = null;
    }
    if (typingFrom !== null && typingFrom !== textarea.value) {
      remember(typingFrom);
      text = textarea.value;
    }
    typingFrom = null;
  }

  textarea.addEventListener('input', () => {
    if (typingFrom === null) typingFrom = text;
    text = textarea.value;
    renderGutter();
    clearTimeout(typingTimer);
    typingTimer = setTimeout(() => {
      typingTimer = null;
      if (typingFrom !== null && typingFrom !== textarea.value) remember(typingFrom);
      typingFrom = null;
      text = textarea.value;
      send([]);
    }, TYPING_PAUSE_MS);
  });
  textarea.addEventListener('scroll', () => {
    gutter.scrollTop = textarea.scrollTop;
  });

  // --- drawing ---
  function renderGutter() {
    const lines = textarea.value.split('\n').length;
    const marks = new Map();
    if (answer && answeredText === textarea.value) {
      for (const d of answer.diagnostics || []) if (d.line) marks.set(d.line, d.severity === 'error' || marks.get(d.line) === true ? true : false);
    }
    const rows = [];
    for (let line = 1; line <= lines; line += 1) {
      const mark = marks.get(line);
      rows.push(h('div', mark === undefined ? {} : { class: mark ? 'gutter-error' : 'gutter-warning', 'data-line': line }, String(line)));
    }
    replace(gutter, rows);
    gutter.scrollTop = textarea.scrollTop;
  }

  function selectLine(line) {
    const lines = textarea.value.split('\n');
    const startAt = lines.slice(0, line - 1).reduce((s, l) => s + l.length + 1, 0);
    textarea.focus();
    textarea.setSelectionRange(startAt, startAt + (lines[line - 1] || '').length);
    const lineHeight = textarea.scrollHeight / Math.max(lines.length, 1);
    textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
  }

  function show() {
    const diagnostics = answer.diagnostics || [];
    const errors = diagnostics.filter((d) => d.severity === 'error').length;
    status.className = `editor-status ${errors ? 'error' : 'ok'}`;
    status.textContent = errors ? t('editor.errors', { count: errors }) : t('editor.valid');
    downloadButton.disabled = !answer.valid;
    saveExample?.setEnabled(answer.valid);
    tryButton.disabled = !answer.valid;
    undoButton.disabled = !undo.length;
    redoButton.disabled = !redo.length;
    replace(
      diagnosticsList,
      diagnostics.length
        ? diagnostics.map((d) =>
            h(
              'li',
              { class: `severity-${d.severity}`, 'data-line': d.line || 0, 'data-place': d.place || '' },
              h('button', { type: 'button', class: 'link', onclick: () => (d.line ? selectLine(d.line) : null) }, d.line ? `${d.line}:${d.column || 0}` : t('maps.whole-file')),
              ' ',
              d.severity === 'error' ? `✖ ${d.text}` : `⚠ ${d.text}`,
            ),
          )
        : h('li', { class: 'ok' }, `✔ ${t('maps.no-diagnostics')}`),
    );
    renderGutter();
    // A schema with tables of rows but no places (a deck): the tables are the editor, and there is
    // nothing to place on a board.
    const rowsOnly = !!(answer.schema && !answer.schema.places && (answer.schema.table || []).length);
    tools.hidden = rowsOnly;
    boardHost.hidden = rowsOnly;
    renderKinds();
    if (rowsOnly) boardMessage.hidden = true;
    else drawBoard();
    renderForm();
    renderTables();
  }

  function renderKinds() {
    const kinds = (answer.schema && answer.schema.connection) || [];
    const keep = kindSelect.value;
    replace(kindSelect, h('option', { value: '' }, t('editor.no-connection')), kinds.map((k) => h('option', { value: k.kind, selected: k.kind === keep, title: k.description || '' }, k.kind)));
    kindSelect.disabled = !kinds.length;
    adding.hidden = !(answer.schema && answer.schema.places);
    renderPickHint();
  }

  function renderPickHint() {
    if (!answer || !answer.schema || !answer.schema.places) pickHint.textContent = t('editor.text-only');
    else if (!kindSelect.value) pickHint.textContent = t('editor.drag-hint');
    else if (!picked) pickHint.textContent = t('editor.pick-first', { kind: kindSelect.value });
    else pickHint.textContent = t('editor.pick-second', { kind: kindSelect.value, place: picked });
  }
  kindSelect.addEventListener('change', () => {
    picked = null;
    renderPickHint();
    drawBoard();
  });

  function placeName(place) {
    return place.name || place.id;
  }

  function drawBoard() {
    if (answer.svg) lastSvg = answer.svg;
    // A map with errors has no drawing: the last one stays under the handles, faded, so each
    // finding still shows at its place.
    const svg = sanitizeSvg(answer.svg || lastSvg || '');
    for (const old of shadow.querySelectorAll('svg')) old.remove();
    boardMessage.hidden = !!answer.svg;
    if (!answer.svg) boardMessage.textContent = answer.board_error ? t('maps.no-drawing-because', { why: answer.board_error }) : t('maps.no-drawing');
    const board = svg || blankBoard();
    board.classList.toggle('editor-stale', !answer.svg);
    if (svg) translateSvg(svg, rulesetId, seatName);
    board.removeAttribute('width');
    board.removeAttribute('height');
    board.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    board.classList.add('tk-board', 'editor-svg');
    shadow.append(board);
    legibleOnPhone(board);
    const places = (answer.places || []).filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (!places.length) return;
    // Where the ruleset drew each place: the centre of its `data-place` element.
    const rootInverse = board.getCTM() ? board.getCTM().inverse() : null;
    const xs = [];
    const ys = [];
    if (svg && rootInverse) {
      for (const place of places) {
        const el = board.querySelector(`[data-place="${CSS.escape(place.key)}"]`);
        if (!el) continue;
        let box;
        try {
          box = el.getBBox();
        } catch {
          continue;
        }
        const m = rootInverse.multiply(el.getCTM());
        const point = new DOMPoint(box.x + box.width / 2, box.y + box.height / 2).matrixTransform(m);
        xs.push([place.x, point.x]);
        ys.push([place.y, point.y]);
      }
    }
    const fx = fitLine(xs);
    const fy = fitLine(ys);
    if (fx && fy && fx.a > 0 && fy.a > 0) fit = { x: fx, y: fy };
    else if (!fit || !svg) {
      const minX = Math.min(...places.map((p) => p.x));
      const minY = Math.min(...places.map((p) => p.y));
      fit = { x: { a: 1, b: 20 - minX }, y: { a: 1, b: 20 - minY } };
      if (!svg) {
        const maxX = Math.max(...places.map((p) => p.x));
        const maxY = Math.max(...places.map((p) => p.y));
        board.setAttribute('viewBox', `0 0 ${maxX - minX + 40} ${maxY - minY + 40}`);
      }
    }
    const view = (board.getAttribute('viewBox') || '0 0 1000 700').split(/[\s,]+/).map(Number);
    // Under a finger (a touch screen, a phone's width) a handle is at least 24 CSS px across,
    // whatever the scale; under a mouse it stays small enough to leave the names readable.
    const ctm = board.getScreenCTM();
    const perUnit = ctm ? Math.hypot(ctm.a, ctm.b) : 0;
    const finger = matchMedia('(pointer: coarse)').matches || window.innerWidth <= PHONE_WIDTH;
    const radius = Math.max(Math.max(view[2], view[3]) / 110, finger && perUnit ? 12 / perUnit : 0);
    const marked = new Map();
    for (const d of answer.diagnostics || []) if (d.place && (d.severity === 'error' || !marked.has(d.place))) marked.set(d.place, d);
    const overlay = document.createElementNS(SVG_NS, 'g');
    overlay.setAttribute('class', 'editor-overlay');
    for (const place of places) {
      const cx = fit.x.a * place.x + fit.x.b;
      const cy = fit.y.a * place.y + fit.y.b;
      const g = document.createElementNS(SVG_NS, 'g');
      g.setAttribute('class', `editor-handle${place.id === selected ? ' selected' : ''}${place.id === picked ? ' picked' : ''}`);
      g.setAttribute('data-handle', place.id);
      g.setAttribute('transform', `translate(${cx} ${cy})`);
      const title = document.createElementNS(SVG_NS, 'title');
      title.textContent = placeName(place);
      const circle = document.createElementNS(SVG_NS, 'circle');
      circle.setAttribute('r', radius);
      g.append(title, circle);
      const finding = marked.get(place.id);
      if (finding) {
        const ring = document.createElementNS(SVG_NS, 'circle');
        ring.setAttribute('r', radius * 1.9);
        ring.setAttribute('class', `editor-finding severity-${finding.severity}`);
        ring.setAttribute('data-finding', place.id);
        const sign = document.createElementNS(SVG_NS, 'text');
        sign.setAttribute('class', 'editor-finding-sign');
        sign.setAttribute('y', -radius * 2.2);
        sign.setAttribute('font-size', radius * 2.4);
        sign.setAttribute('text-anchor', 'middle');
        sign.textContent = '!';
        title.textContent = `${placeName(place)}: ${finding.text}`;
        g.prepend(ring);
        g.append(sign);
      }
      bindHandle(g, place, board);
      overlay.append(g);
    }
    board.append(overlay);
  }

  /**
   * On a phone the whole map in the screen's width shows its names at 5 px: there the map is
   * drawn with its smallest text at MIN_TEXT_PX (at most four screens wide) and its frame
   * scrolls, a swipe on the map moving it and a drag on a handle moving the place.
   */
  function legibleOnPhone(board) {
    board.style.width = '';
    boardHost.classList.remove('editor-scrolls');
    boardHost.removeAttribute('tabindex');
    const width = board.getBoundingClientRect().width;
    if (window.innerWidth > PHONE_WIDTH || !width) return;
    const smallest = smallestTextPx(board);
    if (!(smallest < MIN_TEXT_PX)) return;
    board.style.width = `${Math.ceil(Math.min((width * MIN_TEXT_PX) / smallest, width * 4))}px`;
    boardHost.classList.add('editor-scrolls');
    boardHost.setAttribute('tabindex', '0');
  }

  function blankBoard() {
    const svg = document.createElementNS(SVG_NS, 'svg');
    svg.setAttribute('viewBox', '0 0 1000 700');
    return svg;
  }

  function bindHandle(g, place, board) {
    g.addEventListener('pointerdown', (event) => {
      event.preventDefault();
      g.setPointerCapture(event.pointerId);
      const toBoard = (e) => new DOMPoint(e.clientX, e.clientY).matrixTransform(board.getScreenCTM().inverse());
      const origin = toBoard(event);
      const startX = event.clientX;
      const startY = event.clientY;
      const base = { x: fit.x.a * place.x + fit.x.b, y: fit.y.a * place.y + fit.y.b };
      let dragging = false;
      const move = (e) => {
        if (!dragging && Math.hypot(e.clientX - startX, e.clientY - startY) < 4) return;
        dragging = true;
        const p = toBoard(e);
        g.setAttribute('transform', `translate(${base.x + p.x - origin.x} ${base.y + p.y - origin.y})`);
        g.classList.add('dragging');
      };
      const up = (e) => {
        g.removeEventListener('pointermove', move);
        g.removeEventListener('pointerup', up);
        g.removeEventListener('pointercancel', up);
        if (e.type === 'pointercancel') return drawBoard();
        if (dragging) {
          const p = toBoard(e);
          const x = (base.x + p.x - origin.x - fit.x.b) / fit.x.a;
          const y = (base.y + p.y - origin.y - fit.y.b) / fit.y.a;
          send([{ op: 'move', place: place.id, x, y }]);
        } else choose(place);
      };
      g.addEventListener('pointermove', move);
      g.addEventListener('pointerup', up);
      g.addEventListener('pointercancel', up);
    });
  }

  function choose(place) {
    const kind = kindSelect.value;
    if (kind && picked && picked !== place.id) {
      const from = picked;
      const joined = (answer.connections || []).some((c) => c.kind === kind && ((c.from === from && c.to === place.id) || (c.from === place.id && c.to === from)));
      picked = null;
      renderPickHint();
      send([{ op: joined ? 'disconnect' : 'connect', kind, from, to: place.id }]);
      toast(t(joined ? 'editor.disconnected' : 'editor.connected', { kind, from, to: place.id }));
      return;
    }
    selected = place.id;
    picked = kind ? place.id : null;
    renderPickHint();
    drawBoard();
    renderForm();
  }

  /** Adds a place with the id typed, in the middle of the board; it is then dragged into place. */
  function addPlace() {
    const id = newId.value.trim();
    if (!id) {
      newId.focus();
      return;
    }
    const board = shadow.querySelector('svg');
    const view = ((board && board.getAttribute('viewBox')) || '0 0 1000 700').split(/[\s,]+/).map(Number);
    const toMap = (value, axis) => (fit ? (value - fit[axis].b) / fit[axis].a : value);
    const x = toMap(view[0] + view[2] / 2, 'x');
    const y = toMap(view[1] + view[3] / 2, 'y');
    newId.value = '';
    selected = id;
    send([{ op: 'add-place', id, name: id, x, y }]);
  }

  // --- the place's form, from the schema ---
  function renderForm() {
    const schema = answer.schema;
    const place = schema && schema.places && (answer.places || []).find((p) => p.id === selected);
    if (!place) {
      replace(form, schema && schema.places ? h('p', { class: 'hint' }, t('editor.pick-place')) : null);
      return;
    }
    const set = (field, value) => send([{ op: 'set', place: place.id, field, value }]);
    const fields = (schema.places && schema.places.field) || [];
    const row = (name, description, input) =>
      h('div', { class: 'editor-field' }, h('label', { for: `editor-field-${name}` }, name), input, description ? h('small', { class: 'hint' }, description) : null);
    const inputFor = (field) => {
      const id = `editor-field-${field.name}`;
      const value = place.fields ? place.fields[field.name] : undefined;
      const common = { id, 'data-field': field.name };
      if (field.type === 'boolean') {
        return h('input', { ...common, type: 'checkbox', checked: value === true, onchange: (e) => set(field.name, e.target.checked ? true : field.optional ? null : false) });
      }
      if (field.type === 'integer' || field.type === 'number') {
        return h('input', {
          ...common,
          type: 'number',
          step: field.type === 'integer' ? 1 : 'any',
          min: field.min ?? undefined,
          max: field.max ?? undefined,
          value: value ?? '',
          onchange: (e) => {
            if (e.target.value === '') return set(field.name, null);
            const n = Number(e.target.value);
            if (Number.isFinite(n)) set(field.name, field.type === 'integer' ? Math.round(n) : n);
          },
        });
      }
      if (field.type === 'list') {
        return h('input', {
          ...common,
          type: 'text',
          value: Array.isArray(value) ? value.join(', ') : '',
          placeholder: (field.values || []).join(', '),
          onchange: (e) => {
            const items = e.target.value.split(',').map((s) => s.trim()).filter(Boolean);
            set(field.name, items.length || !field.optional ? items : null);
          },
        });
      }
      if ((field.values || []).length) {
        return h(
          'select',
          { ...common, onchange: (e) => set(field.name, e.target.value === '' ? null : e.target.value) },
          field.optional || value === undefined ? h('option', { value: '' }, '—') : null,
          field.values.map((v) => h('option', { value: v, selected: v === value }, v)),
        );
      }
      return h('input', { ...common, type: 'text', value: value ?? '', onchange: (e) => set(field.name, e.target.value === '' && field.optional ? null : e.target.value) });
    };
    const nameField = schema.places.name;
    replace(
      form,
      h('h2', {}, t('editor.place', { place: placeName(place) })),
      h('p', { class: 'hint' }, t('editor.place-id', { id: place.id })),
      row(nameField, '', h('input', { id: `editor-field-${nameField}`, 'data-field': nameField, type: 'text', value: place.name || '', onchange: (e) => set(nameField, e.target.value) })),
      fields.map((field) => row(field.name, field.description, inputFor(field))),
      h(
        'p',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            'data-action': 'remove-place',
            onclick: () => {
              selected = null;
              send([{ op: 'remove-place', place: place.id }]);
            },
          },
          t('editor.remove-place'),
        ),
      ),
    );
  }

  // --- tables of rows, from the schema ---
  function renderTables() {
    const tables = (answer.schema && answer.schema.table) || [];
    // The control that had the focus is found again in the new rows, so the keyboard stays put.
    const focused = tablesHost.contains(document.activeElement) ? document.activeElement : null;
    const focusKey = focused ? ['table', 'row', 'field', 'index', 'action'].map((k) => focused.getAttribute(`data-${k}`) || '').join('|') : null;
    replace(tablesHost, tables.map(renderTable));
    if (focusKey) {
      for (const el of tablesHost.querySelectorAll('select, input, button')) {
        if (['table', 'row', 'field', 'index', 'action'].map((k) => el.getAttribute(`data-${k}`) || '').join('|') === focusKey) {
          el.focus();
          break;
        }
      }
    }
  }

  function renderTable(table) {
    const rows = (answer.rows && answer.rows[table.table]) || [];
    const fields = table.field || [];
    const findings = new Map();
    for (const d of answer.diagnostics || []) {
      if (d.row && d.row.table === table.table && (d.severity === 'error' || !findings.has(d.row.index))) findings.set(d.row.index, d);
    }
    const common = (row, field, extra = {}) => ({ 'data-table': table.table, 'data-row': row, 'data-field': field.name, ...extra });
    const setCell = (row, field, value) => send([{ op: 'set-cell', table: table.table, row, field: field.name, value }]);
    const label = (row, values) => {
      const key = values[table.key];
      return key === undefined ? String(row + 1) : String(key);
    };
    const cellFor = (row, values, field) => {
      const value = values[field.name];
      const name = t('editor.row-field', { row: label(row, values), field: field.name });
      if (field.type === 'list' && field.length) {
        const items = Array.isArray(value) ? value : [];
        const selects = [];
        for (let i = 0; i < field.length; i += 1) {
          const item = items[i];
          const itemName = t('editor.row-item', { row: label(row, values), field: field.name, n: i + 1 });
          const input = (field.values || []).length
            ? h(
                'select',
                { ...common(row, field, { 'data-index': i }), 'aria-label': itemName, title: itemName, onchange: (e) => send([{ op: 'set-item', table: table.table, row, field: field.name, index: i, value: e.target.value }]) },
                item === undefined || !field.values.includes(item) ? h('option', { value: item ?? '', disabled: true, selected: true }, item ?? '—') : null,
                field.values.map((v) => h('option', { value: v, selected: v === item }, v)),
              )
            : h('input', { ...common(row, field, { 'data-index': i }), type: 'text', value: item ?? '', 'aria-label': itemName, onchange: (e) => send([{ op: 'set-item', table: table.table, row, field: field.name, index: i, value: e.target.value }]) });
          selects.push(input);
        }
        // Lines of at most three items, all of the same length (six: two lines of three).
        const perLine = Math.ceil(field.length / Math.ceil(field.length / 3));
        return h('div', { class: 'editor-items', style: `--per-line: ${perLine}` }, selects);
      }
      if (field.type === 'boolean') {
        return h('input', { ...common(row, field), type: 'checkbox', 'aria-label': name, checked: value === true, onchange: (e) => setCell(row, field, e.target.checked ? true : field.optional ? null : false) });
      }
      if (field.type === 'integer' || field.type === 'number') {
        return h('input', {
          ...common(row, field),
          type: 'number',
          class: 'editor-number',
          'aria-label': name,
          step: field.type === 'integer' ? 1 : 'any',
          min: field.min ?? undefined,
          max: field.max ?? undefined,
          value: value ?? '',
          onchange: (e) => {
            if (e.target.value === '') return field.optional ? setCell(row, field, null) : null;
            const n = Number(e.target.value);
            if (Number.isFinite(n)) setCell(row, field, field.type === 'integer' ? Math.round(n) : n);
          },
        });
      }
      if (field.type === 'list') {
        return h('input', {
          ...common(row, field),
          type: 'text',
          'aria-label': name,
          value: Array.isArray(value) ? value.join(', ') : '',
          onchange: (e) => {
            const items = e.target.value.split(',').map((x) => x.trim()).filter(Boolean);
            setCell(row, field, items.length || !field.optional ? items : null);
          },
        });
      }
      if ((field.values || []).length) {
        return h(
          'select',
          { ...common(row, field), 'aria-label': name, onchange: (e) => setCell(row, field, e.target.value === '' ? null : e.target.value) },
          field.optional || value === undefined ? h('option', { value: '' }, '—') : null,
          field.values.map((v) => h('option', { value: v, selected: v === value }, v)),
        );
      }
      return h('input', { ...common(row, field), type: 'text', 'aria-label': name, value: value ?? '', onchange: (e) => setCell(row, field, e.target.value === '' && field.optional ? null : e.target.value) });
    };
    const head = h(
      'tr',
      {},
      fields.map((field) => h('th', { scope: 'col', title: field.description || '' }, field.name)),
      h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, t('editor.remove-row-column'))),
    );
    const body = rows.map((values, row) => {
      const finding = findings.get(row);
      return h(
        'tr',
        { 'data-row': row, class: finding ? `severity-${finding.severity}` : '', title: finding ? finding.text : undefined },
        fields.map((field) => h('td', { 'data-column': field.name }, cellFor(row, values, field))),
        h(
          'td',
          { class: 'editor-row-actions' },
          finding ? h('span', { class: 'editor-row-finding', 'aria-label': finding.text }, '!') : null,
          h(
            'button',
            {
              type: 'button',
              class: 'secondary small',
              'data-table': table.table,
              'data-row': row,
              'data-action': 'remove-row',
              'aria-label': t('editor.remove-row', { row: label(row, values) }),
              title: t('editor.remove-row', { row: label(row, values) }),
              onclick: () => send([{ op: 'remove-row', table: table.table, row }]),
            },
            '✕',
          ),
        ),
      );
    });
    return h(
      'section',
      { class: 'editor-rows', 'data-editor-table': table.table },
      h('h2', {}, t('editor.table', { table: table.table, count: rows.length })),
      table.description ? h('p', { class: 'hint' }, table.description) : null,
      rows.length
        ? h('div', { class: 'editor-rows-scroll' }, h('table', { class: 'editor-rows-table' }, h('thead', {}, head), h('tbody', {}, body)))
        : h('p', { class: 'hint' }, t('editor.no-rows')),
      h('p', {}, h('button', { type: 'button', class: 'secondary small', 'data-table': table.table, 'data-action': 'add-row', onclick: () => send([{ op: 'add-row', table: table.table }]) }, t('editor.add-row'))),
    );
  }

  // --- saving and trying ---
  function download() {
    flushTyping();
    if (!answer || !answer.valid || answeredText !== textarea.value) {
      toast(t('editor.fix-first'), 'error');
      return;
    }
    const blob = new Blob([textarea.value], { type: 'application/toml' });
    const link = h('a', { href: URL.createObjectURL(blob), download: `${mapId}-edited.toml`, hidden: true });
    document.body.append(link);
    link.click();
    setTimeout(() => {
      URL.revokeObjectURL(link.href);
      link.remove();
    }, 1000);
  }

  /** The panel's text once the server has checked it and found no error, else null. */
  async function checkedText() {
    flushTyping();
    await send([]);
    return answer && answer.valid && answeredText === textarea.value ? textarea.value : null;
  }

  async function tryIt() {
    flushTyping();
    await send([]);
    if (!answer || !answer.valid || answeredText !== textarea.value) {
      toast(t('editor.fix-first'), 'error');
      return;
    }
    const seats = [{ kind: 'human', creator: true }];
    for (let i = 1; i < ruleset.min_seats; i += 1) seats.push({ kind: 'bot', bot: 'random' });
    try {
      const created = await post('/api/games', { ruleset: rulesetId, map_toml: textarea.value, seats });
      saveHost(created.id, created.host_token, { ruleset: rulesetId });
      for (const seat of created.seats || []) if (seat.token) saveSeat(created.id, seat.seat, seat.token, { ruleset: rulesetId });
      location.hash = `#/play/${encodeURIComponent(created.id)}?seat=0`;
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }

  downloadButton.disabled = true;
  saveExample?.setEnabled(false);
  tryButton.disabled = true;
  undoButton.disabled = true;
  redoButton.disabled = true;
  await send([]);
  return {
    destroy() {
      destroyed = true;
      clearTimeout(typingTimer);
    },
  };
}

/** The editor's marks on the board, inside the board's own shadow root. */
const EDITOR_BOARD_CSS = `
.editor-svg { width: 100%; height: auto; display: block; touch-action: pan-x pan-y; }
.editor-handle { touch-action: none; }
.editor-svg.editor-stale > :not(.editor-overlay) { opacity: 0.45; }
.editor-handle { cursor: grab; }
.editor-handle circle { fill: #ffffff; fill-opacity: 0.55; stroke: #1f2933; stroke-width: 2; vector-effect: non-scaling-stroke; }
.editor-handle.selected > circle:not(.editor-finding) { fill: #2563eb; fill-opacity: 0.9; }
.editor-handle.picked > circle:not(.editor-finding) { fill: #f59e0b; fill-opacity: 0.95; }
.editor-handle.dragging { cursor: grabbing; opacity: 0.85; }
.editor-handle circle.editor-finding { fill: none; stroke-width: 4; pointer-events: none; }
.editor-finding.severity-error { stroke: #c81e1e; }
.editor-finding.severity-warning { stroke: #b45309; }
.editor-finding-sign { fill: #c81e1e; font-weight: 700; pointer-events: none; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
`;
