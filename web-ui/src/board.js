// The board: the ruleset's SVG parts (the map, one panel per seat, shared panels), each made safe,
// translated and laid out for the screen; the map zooms and pans. Each part lives in a shadow
// root so the ruleset's own <style> cannot restyle the page and the page's styles cannot break
// the drawing; board.css (seat colours, patterns, focus rings) is loaded into it.

import { messageText, normaliseArgs, t } from './i18n.js';
import { h } from './dom.js';

/** The smallest text a part is shown with, in CSS px; a panel too narrow for it scrolls instead. */
export const MIN_TEXT_PX = 11;
/** Up to this window width (CSS px) the page is laid out for a phone. */
export const PHONE_WIDTH = 600;
/** The smallest target a finger or pointer is given, in CSS px. */
export const MIN_TARGET_PX = 32;

/** The smallest rendered font size among the drawing's visible texts, in CSS px (Infinity if none). */
export function smallestTextPx(svg) {
  let smallest = Infinity;
  for (const el of svg.querySelectorAll('text')) {
    if (!el.textContent.trim()) continue;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const ctm = el.getScreenCTM();
    if (!size || !ctm) continue;
    const px = size * Math.hypot(ctm.a, ctm.b);
    if (px > 0 && px < smallest) smallest = px;
  }
  return smallest;
}

/**
 * What a told step is about on the map (convention 1, docs/sdk.md): the `key` arguments of its
 * message, and those named `from` and `to`. Null for a step without a message.
 */
export function toldPlaces(message) {
  if (!message || typeof message !== 'object') return null;
  const keys = [];
  const named = {};
  for (const [name, value] of normaliseArgs(message.args)) {
    if (value && typeof value.key === 'string') {
      keys.push(value.key);
      named[name] = value.key;
    }
  }
  return { keys, from: named.from || null, to: named.to || null };
}

const SVG_NS = 'http://www.w3.org/2000/svg';
const XLINK_NS = 'http://www.w3.org/1999/xlink';
// The second wall: the server already rebuilt the drawing from an allowlist
// (host/runtime/src/svg_sanitizer.rs); this check repeats the essentials, compared by namespace and local
// name, so a drawing that reaches the page some other way is held to the same rules.
const ALLOWED_ELEMENTS = new Set(['svg', 'g', 'defs', 'symbol', 'use', 'switch', 'title', 'desc', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'path', 'text', 'tspan', 'textPath', 'marker', 'pattern', 'linearGradient', 'radialGradient', 'stop', 'clipPath', 'mask', 'style', 'filter', 'feBlend', 'feColorMatrix', 'feComposite', 'feDropShadow', 'feFlood', 'feGaussianBlur', 'feMerge', 'feMergeNode', 'feMorphology', 'feOffset']);
const FRAGMENT = /^#[\w.:-]+$/;
const ALLOWED_FUNCTIONS = new Set(['rgb', 'rgba', 'hsl', 'hsla', 'url', 'translate', 'translatex', 'translatey', 'rotate', 'scale', 'scalex', 'scaley', 'matrix', 'skewx', 'skewy']);
// Escapes spell words past a filter, at-rules import, and these properties place a box over the page.
const UNSAFE_CSS = /\\|@|:host|position\s*:|inset\s*:|z-index\s*:|expression|javascript:/i;

/** Whether a value calls only colour and transform functions, and url() only for a fragment. */
function safeValue(value) {
  if (UNSAFE_CSS.test(value)) return false;
  for (const match of value.matchAll(/([\w-]*)\s*\(([^()]*)\)?/g)) {
    const name = match[1].toLowerCase();
    if (!ALLOWED_FUNCTIONS.has(name)) return false;
    if (name === 'url' && !FRAGMENT.test((match[2] || '').trim().replace(/^['"]|['"]$/g, ''))) return false;
  }
  return true;
}

/**
 * Parses and cleans an SVG document: only drawing elements of the SVG namespace, no scripts, no
 * event handlers, no link or resource that leaves the document. Returns an <svg> element or null.
 */
export function sanitizeSvg(text) {
  if (typeof text !== 'string' || !text.trim()) return null;
  const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
  const root = doc.documentElement;
  if (!root || root.namespaceURI !== SVG_NS || root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length) return null;
  for (const el of [root, ...root.querySelectorAll('*')]) {
    if (!el.isConnected && el !== root) continue; // inside an element already removed
    if (el.namespaceURI !== SVG_NS || !ALLOWED_ELEMENTS.has(el.localName)) {
      el.remove();
      continue;
    }
    for (const attr of [...el.attributes]) {
      const name = attr.localName;
      const value = attr.value.trim();
      const isHref = name === 'href' && (attr.namespaceURI === null || attr.namespaceURI === XLINK_NS);
      let keep;
      if (isHref) keep = FRAGMENT.test(value);
      else if (attr.namespaceURI !== null) keep = false;
      else if (name.startsWith('on')) keep = false;
      else if (name.startsWith('data-') || name.startsWith('aria-')) keep = true;
      else keep = safeValue(value);
      if (!keep) el.removeAttributeNode(attr);
    }
    if (el.localName === 'style' && !safeValue(el.textContent)) el.remove();
  }
  return document.importNode(root, true);
}

/** Fills every `data-msg` text of an SVG from the ruleset's catalogue. */
export function translateSvg(svg, rulesetId, seatName) {
  for (const el of svg.querySelectorAll('[data-msg]')) {
    let args = [];
    const raw = el.getAttribute('data-args');
    if (raw) {
      try {
        args = normaliseArgs(JSON.parse(raw));
      } catch {
        args = [];
      }
    }
    el.textContent = messageText(rulesetId, { key: el.getAttribute('data-msg'), args }, seatName);
  }
}

const SEAT_COLOURS = ['#d55e00', '#0072b2', '#009e73', '#e69f00', '#cc79a7', '#56b4e9', '#f0e442', '#000000'];
// One mark per seat, drawn over the seat's colour in a 8x8 tile, so owners differ by pattern too.
const SEAT_MARKS = [
  '',
  '<path d="M-2,2 l4,-4 M0,8 l8,-8 M6,10 l4,-4" stroke="#fff" stroke-width="1.6"/>',
  '<circle cx="4" cy="4" r="1.7" fill="#fff"/>',
  '<path d="M0,4 h8" stroke="#fff" stroke-width="1.8"/>',
  '<path d="M0,0 l8,8 M8,0 l-8,8" stroke="#fff" stroke-width="1.2"/>',
  '<path d="M4,0 v8" stroke="#000" stroke-opacity=".5" stroke-width="1.8"/>',
  '<rect width="4" height="4" fill="#000" fill-opacity=".35"/><rect x="4" y="4" width="4" height="4" fill="#000" fill-opacity=".35"/>',
  '<path d="M-2,6 l4,4 M0,0 l8,8 M6,-2 l4,4" stroke="#fff" stroke-width="1.6"/>',
];

/** The UI's seat patterns (ids tenka-pattern-0 ...), for the class seat-pattern-N. */
function seatPatternDefs() {
  const tiles = SEAT_COLOURS.map(
    (colour, seat) => `<pattern id="tenka-pattern-${seat}" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="${colour}"/>${SEAT_MARKS[seat]}</pattern>`,
  ).join('');
  const doc = new DOMParser().parseFromString(`<svg xmlns="${SVG_NS}"><defs class="tk-defs">${tiles}</defs></svg>`, 'image/svg+xml');
  return document.importNode(doc.documentElement.firstChild, true);
}

/** A view box as numbers, from the SVG's viewBox or its width and height. */
function viewBoxOf(svg) {
  const raw = (svg.getAttribute('viewBox') || '').trim().split(/[\s,]+/).map(Number);
  if (raw.length === 4 && raw.every(Number.isFinite) && raw[2] > 0 && raw[3] > 0) return raw;
  const width = parseFloat(svg.getAttribute('width')) || 800;
  const height = parseFloat(svg.getAttribute('height')) || 600;
  return [0, 0, width, height];
}

/**
 * One drawing: the map (`zoomable`: a toolbar, wheel, pinch and keys zoom and pan) or a panel
 * (scaled to its column's width, never below MIN_TEXT_PX: a panel that would be smaller scrolls
 * sideways inside its own frame).
 */
export class Board {
  constructor({ zoomable = true, partId = 'board' } = {}) {
    this.zoomable = zoomable;
    this.partId = partId;
    // The board is a region named "Board"; a panel beside it is named by its own heading (one
    // region per name, so a screen reader's list of regions tells them apart).
    this.element = h('section', zoomable ? { class: 'board', 'aria-label': t('game.board'), 'data-part': partId } : { class: 'board-part', 'data-part': partId });
    this.toolbar = h('div', { class: 'board-tools' });
    // Focusable, so + and − zoom and Shift+arrows pan from the keyboard.
    this.host = h('div', zoomable ? { class: 'board-canvas', tabindex: '0', role: 'group', 'aria-label': t('board.keys') } : { class: 'part-canvas' });
    // The decision asked on the board itself: its prompt, and for numbers the picker.
    this.banner = h('div', { class: 'board-banner', hidden: true, 'aria-live': 'polite' });
    this.heading = h('h2', { class: 'part-title', hidden: true, id: `part-title-${partId}` });
    this.shadow = this.host.attachShadow({ mode: 'open' });
    this.style = h('link', { rel: 'stylesheet', href: 'board.css' });
    this.shadow.append(this.style);
    if (zoomable) this.element.append(h('div', { class: 'board-head' }, this.banner, this.toolbar), this.host);
    else {
      // Shown when the panel's texts are under MIN_TEXT_PX at its width (a phone): opens the
      // panel at a readable size, to be scrolled in a dialog.
      this.enlargeButton = h('button', { type: 'button', class: 'secondary small part-enlarge', hidden: true, 'data-action': 'enlarge-part', onclick: () => this.enlarge() }, '⤢');
      this.element.append(h('div', { class: 'part-head' }, this.heading, this.enlargeButton), this.host);
    }
    this.svg = null;
    this.home = null; // the drawing's own view box
    this.box = null; // the current view box
    this.pointers = new Map();
    this.moved = false;
    this.renderToolbar();
    if (zoomable) this.bindGestures();
    // Sizes depend on the layout: fit again when the frame changes width.
    if (typeof ResizeObserver === 'function') {
      let lastWidth = 0;
      this.resizeObserver = new ResizeObserver(() => {
        const width = this.element.clientWidth;
        if (width && Math.abs(width - lastWidth) > 1) {
          lastWidth = width;
          this.fitSoon();
        }
      });
      this.resizeObserver.observe(this.element);
    }
  }

  /** Sets the heading shown above a panel (null: none). */
  setTitle(text) {
    this.heading.textContent = text || '';
    this.heading.hidden = !text;
    if (!this.zoomable) {
      if (text) this.element.setAttribute('aria-labelledby', this.heading.id);
      else this.element.removeAttribute('aria-labelledby');
    }
  }

  /** After the layout settles: the panel's readable width, and large enough targets. */
  fitSoon() {
    if (this.fitFrame) return;
    this.fitFrame = requestAnimationFrame(() => {
      this.fitFrame = null;
      this.fit();
    });
  }

  fit() {
    if (!this.svg || !this.svg.isConnected || !this.element.clientWidth) return;
    if (this.zoomable) this.legibleLabels();
    if (!this.zoomable) {
      this.containDrawing();
      // A panel first fits its frame's width: nothing of it is ever cut off. How wide it would
      // like to be (for MIN_TEXT_PX text, or the width its drawing asks for) decides where it
      // goes (BoardParts.place): a frame too narrow for it makes it span the width under the map.
      this.svg.style.width = '100%';
      this.host.classList.remove('part-scrolls');
      this.host.removeAttribute('tabindex');
      const width = this.svg.getBoundingClientRect().width;
      const smallest = smallestTextPx(this.svg);
      const forText = smallest < Infinity && width ? Math.ceil((width * MIN_TEXT_PX) / smallest) : 0;
      const asked = Number(this.svg.getAttribute('data-part-width')) || 0;
      const wanted = Math.max(forText, Number.isFinite(asked) ? asked : 0);
      this.wantedWidth = wanted;
      if (this.onWanted) this.onWanted(this);
      // On a phone, where no frame is wide enough, the panel is drawn at its readable size and
      // its frame scrolls sideways: every text at MIN_TEXT_PX at the default zoom, nothing cut.
      // A wider screen keeps it whole in its frame, with the enlarge button.
      if (forText > this.host.clientWidth + 1 && window.innerWidth <= PHONE_WIDTH) {
        this.svg.style.width = `${forText}px`;
        this.host.classList.add('part-scrolls');
        // Reachable from the keyboard too: arrow keys scroll a focused frame.
        this.host.setAttribute('tabindex', '0');
      }
      const shownWidth = this.svg.getBoundingClientRect().width;
      this.enlargeButton.hidden = !(forText > shownWidth + 1);
      this.enlargeButton.setAttribute('aria-label', t('board.enlarge'));
      this.enlargeButton.title = t('board.enlarge');
    }
    this.padTargets();
  }

  /**
   * Grows a panel's view box to hold everything drawn in it: a translated text longer than the
   * English it was laid out for ("… zu queren") would otherwise run past the drawing's edge and
   * be cut. Runs once per drawing, after its texts are filled in.
   */
  containDrawing() {
    if (!this.svg || this.contained === this.svg) return;
    let content;
    try {
      content = this.svg.getBBox();
    } catch {
      return;
    }
    this.contained = this.svg;
    if (!content || !content.width) return;
    const [x, y, w, hgt] = this.home;
    const pad = Math.max(w, hgt) * 0.005;
    const left = Math.min(x, content.x - pad);
    const top = Math.min(y, content.y - pad);
    const right = Math.max(x + w, content.x + content.width + pad);
    const bottom = Math.max(y + hgt, content.y + content.height + pad);
    // Only what spills out counts (a tiny rounding past the edge is left alone).
    if (left > x - pad * 0.5 && top > y - pad * 0.5 && right < x + w + pad * 1.5 && bottom < y + hgt + pad * 1.5) return;
    const grown = [x - Math.max(0, x - left), y - Math.max(0, y - top), 0, 0];
    grown[2] = Math.max(x + w, right > x + w + pad * 1.5 ? right : x + w) - grown[0];
    grown[3] = Math.max(y + hgt, bottom > y + hgt + pad * 1.5 ? bottom : y + hgt) - grown[1];
    this.home = grown;
    this.box = [...grown];
    this.svg.style.aspectRatio = `${grown[2]} / ${grown[3]}`;
    this.apply();
  }

  /**
   * Gives every interactive element of the drawing a target of at least MIN_TARGET_PX where there
   * is room: a transparent rectangle behind its shapes, sized for the current zoom, that never
   * covers another interactive element (so a click on an element always reaches that element).
   */
  padTargets() {
    if (!this.svg) return;
    const elements = [...this.svg.querySelectorAll('.tk-interactive')];
    for (const el of elements) el.querySelector(':scope > rect.tk-hit')?.remove();
    const rects = elements.map((el) => el.getBoundingClientRect());
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    elements.forEach((el, i) => {
      const own = rects[i];
      if (!own.width || (own.width >= MIN_TARGET_PX && own.height >= MIN_TARGET_PX)) return;
      const ctm = el.getScreenCTM();
      let box;
      try {
        box = el.getBBox();
      } catch {
        return;
      }
      if (!ctm || !box) return;
      const grown = (k) => {
        const width = own.width + (Math.max(own.width, MIN_TARGET_PX + 0.5) - own.width) * k;
        const height = own.height + (Math.max(own.height, MIN_TARGET_PX + 0.5) - own.height) * k;
        const cx = own.left + own.width / 2;
        const cy = own.top + own.height / 2;
        return { left: cx - width / 2, right: cx + width / 2, top: cy - height / 2, bottom: cy + height / 2, width, height };
      };
      const others = rects.filter((r, j) => j !== i && r.width);
      let k = 1;
      for (let tries = 0; tries < 6 && others.some((r) => overlaps(grown(k), r)); tries += 1) k /= 2;
      if (others.some((r) => overlaps(grown(k), r))) return;
      const target = grown(k);
      const scale = Math.hypot(ctm.a, ctm.b) || 1;
      const width = target.width / scale;
      const height = target.height / scale;
      const hit = document.createElementNS(SVG_NS, 'rect');
      hit.setAttribute('class', 'tk-hit');
      hit.setAttribute('x', box.x + box.width / 2 - width / 2);
      hit.setAttribute('y', box.y + box.height / 2 - height / 2);
      hit.setAttribute('width', width);
      hit.setAttribute('height', height);
      hit.setAttribute('fill', 'transparent');
      hit.setAttribute('pointer-events', 'all');
      el.prepend(hit);
    });
  }

  renderToolbar() {
    if (this.zoomable) this.host.setAttribute('aria-label', t('board.keys'));
    const button = (label, symbol, action, name) =>
      h('button', { type: 'button', class: 'icon-button', 'aria-label': label, title: label, 'data-zoom': name, onclick: action }, symbol);
    this.toolbar.replaceChildren(
      button(t('board.zoom-in'), '+', () => this.zoomIn(), 'in'),
      button(t('board.zoom-out'), '−', () => this.zoomBy(1.25), 'out'),
      button(t('board.zoom-reset'), '⟲', () => this.reset(), 'reset'),
    );
  }

  /** Shows a new drawing (SVG text), keeping the zoom when the drawing keeps its size. */
  show(svgText, rulesetId, seatName) {
    const svg = sanitizeSvg(svgText);
    if (this.svg) this.svg.remove();
    this.svg = svg;
    if (!svg) {
      this.host.hidden = true;
      this.toolbar.hidden = true;
      return null;
    }
    this.host.hidden = false;
    this.toolbar.hidden = !this.zoomable;
    this.labelScale = null;
    translateSvg(svg, rulesetId, seatName);
    const home = viewBoxOf(svg);
    const sameSize = this.home && this.home.every((v, i) => v === home[i]);
    this.home = home;
    if (!sameSize || !this.box) this.box = [...home];
    // The canvas takes the drawing's proportions, so no screen space is lost around it.
    if (this.zoomable) this.host.style.aspectRatio = `${home[2]} / ${home[3]}`;
    else svg.style.aspectRatio = `${home[2]} / ${home[3]}`;
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('preserveAspectRatio', 'xMidYMid meet');
    svg.setAttribute('role', 'img');
    if (!svg.getAttribute('aria-label')) svg.setAttribute('aria-label', t('game.board'));
    svg.classList.add('tk-board');
    svg.prepend(seatPatternDefs());
    this.shadow.append(svg);
    this.hidePreviews();
    if (this.told) this.markPlaces(this.told);
    this.apply();
    this.fitSoon();
    return svg;
  }

  /** The panel at the width where its texts read at MIN_TEXT_PX, in a dialog that scrolls. */
  enlarge() {
    if (!this.svg) return;
    const copy = this.svg.cloneNode(true);
    copy.style.width = `${Math.max(this.wantedWidth || 0, 320)}px`;
    copy.style.height = 'auto';
    for (const el of copy.querySelectorAll('[tabindex]')) el.removeAttribute('tabindex');
    const frame = h('div', { class: 'part-zoom-canvas' });
    frame.attachShadow({ mode: 'open' }).append(h('link', { rel: 'stylesheet', href: 'board.css' }), copy);
    const close = h('button', { type: 'submit', class: 'primary', 'data-action': 'close-enlarged' }, t('board.close'));
    const dialog = h('dialog', { class: 'part-zoom', 'aria-label': this.heading.textContent || t('game.board') }, h('form', { method: 'dialog' }, this.heading.textContent ? h('h2', {}, this.heading.textContent) : null, frame, h('p', { class: 'summary-actions' }, close)));
    dialog.addEventListener('close', () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
  }

  /**
   * Convention 2 of the board (docs/sdk.md): an element with `data-preview-of="<i>"` shows only
   * while choice i of the viewer's decision is hovered, focused or tapped.
   */
  hidePreviews() {
    for (const el of this.all('[data-preview-of]')) el.classList.add('tk-preview');
  }

  /** Shows the previews of choice `index` (null: none). */
  showPreview(index) {
    for (const el of this.all('[data-preview-of]')) el.classList.toggle('tk-preview-on', index !== null && el.getAttribute('data-preview-of') === String(index));
  }

  /**
   * Convention 1 of the board (docs/sdk.md): marks the places a told step is about, every element
   * whose `data-place` is one of `told.keys`, and draws an arrow from `told.from` to `told.to`
   * when both are places. `null` clears the marks. Returns the marked elements.
   */
  markPlaces(told) {
    this.told = told && told.keys.length ? told : null;
    if (!this.svg) return [];
    for (const el of this.all('.tk-place')) el.classList.remove('tk-place', 'tk-place-from', 'tk-place-to');
    this.svg.querySelector(':scope > g.tk-story')?.remove();
    if (!this.told) {
      this.svg.classList.remove('tk-telling');
      return [];
    }
    const byKey = (key) => this.all('[data-place]').filter((el) => el.getAttribute('data-place') === key);
    const marked = this.told.keys.flatMap(byKey);
    for (const el of marked) el.classList.add('tk-place');
    const from = told.from ? byKey(told.from) : [];
    const to = told.to ? byKey(told.to) : [];
    for (const el of from) el.classList.add('tk-place-from');
    for (const el of to) el.classList.add('tk-place-to');
    this.svg.classList.toggle('tk-telling', marked.length > 0);
    if (from.length && to.length && told.from !== told.to) this.drawArrow(from[0], to[0]);
    return marked;
  }

  /** An arrow in the drawing's units from the centre of one element towards another's. */
  drawArrow(fromEl, toEl) {
    const a = this.boxOf(fromEl);
    const b = this.boxOf(toEl);
    if (!a || !b) return;
    const [ax, ay] = [a.x + a.width / 2, a.y + a.height / 2];
    const [bx, by] = [b.x + b.width / 2, b.y + b.height / 2];
    const length = Math.hypot(bx - ax, by - ay);
    if (length < 1) return;
    const [ux, uy] = [(bx - ax) / length, (by - ay) / length];
    // Sized by the drawing, so it reads at any zoom; it stops short of both centres' labels.
    const unit = (this.home ? this.home[2] : 800) / 160;
    const head = unit * 4.5;
    const start = [ax + ux * unit * 2, ay + uy * unit * 2];
    const tip = [bx - ux * unit * 2, by - uy * unit * 2];
    const base = [tip[0] - ux * head, tip[1] - uy * head];
    const layer = document.createElementNS(SVG_NS, 'g');
    layer.setAttribute('class', 'tk-story');
    layer.setAttribute('pointer-events', 'none');
    const line = document.createElementNS(SVG_NS, 'line');
    line.setAttribute('class', 'tk-arrow-line');
    line.setAttribute('x1', start[0]);
    line.setAttribute('y1', start[1]);
    line.setAttribute('x2', base[0]);
    line.setAttribute('y2', base[1]);
    line.setAttribute('stroke-width', unit * 1.4);
    // A light casing under the line, so it reads over dark and light land alike.
    const casing = line.cloneNode();
    casing.setAttribute('class', 'tk-arrow-casing');
    casing.setAttribute('stroke-width', unit * 2.6);
    const headEl = document.createElementNS(SVG_NS, 'polygon');
    headEl.setAttribute('class', 'tk-arrow-head');
    const side = head * 0.6;
    headEl.setAttribute('points', [tip, [base[0] - uy * side, base[1] + ux * side], [base[0] + uy * side, base[1] - ux * side]].map((p) => p.map((v) => v.toFixed(1)).join(',')).join(' '));
    layer.append(casing, line, headEl);
    this.svg.append(layer);
  }

  /**
   * A small copy of the drawing framed on the marked places (for a phone, where the map is out
   * of sight beside the caption), or null when nothing is marked.
   */
  placesInset() {
    if (!this.svg || !this.told) return null;
    const marked = this.all('.tk-place');
    const boxes = marked.map((el) => this.boxOf(el)).filter(Boolean);
    if (!boxes.length) return null;
    const left = Math.min(...boxes.map((b) => b.x));
    const top = Math.min(...boxes.map((b) => b.y));
    const right = Math.max(...boxes.map((b) => b.x + b.width));
    const bottom = Math.max(...boxes.map((b) => b.y + b.height));
    // Some land around the places, so they can be found again on the map.
    const pad = Math.max(right - left, bottom - top) * 0.15 + (this.home ? this.home[2] / 30 : 20);
    const box = [left - pad, top - pad, right - left + 2 * pad, bottom - top + 2 * pad];
    const copy = this.svg.cloneNode(true);
    copy.setAttribute('viewBox', box.map((v) => v.toFixed(1)).join(' '));
    copy.setAttribute('aria-hidden', 'true');
    copy.removeAttribute('role');
    copy.style.aspectRatio = '';
    for (const el of copy.querySelectorAll('[tabindex]')) el.removeAttribute('tabindex');
    const frame = h('div', { class: 'story-inset', 'data-places': this.told.keys.join(' ') });
    const root = frame.attachShadow({ mode: 'open' });
    root.append(h('link', { rel: 'stylesheet', href: 'board.css' }), copy);
    return frame;
  }

  /** Empties the board (the hot-seat hand-over hides everything). */
  clear() {
    if (this.svg) this.svg.remove();
    this.svg = null;
    this.told = null;
    this.setBanner(null);
  }

  /** Shows `content` (nodes) in the banner over the board, or hides it with null. */
  setBanner(...content) {
    if (content.length === 1 && content[0] === null) {
      this.banner.hidden = true;
      this.banner.replaceChildren();
      return;
    }
    // Nothing given is nothing shown (replaceChildren would print a null as "null").
    this.banner.replaceChildren(...content.filter((node) => node !== null && node !== undefined));
    this.banner.hidden = false;
  }

  /**
   * The map's labels at a glance (level of detail): a text that would show smaller than
   * MIN_TEXT_PX on screen is drawn at MIN_TEXT_PX instead, and where such enlarged texts would
   * cover another text, the later of them (smaller in the drawing, then later in it) is hidden
   * until the map is zoomed in. Texts drawn large enough keep the ruleset's size. Run again
   * whenever the scale changes.
   */
  legibleLabels() {
    if (!this.zoomable || !this.svg || !this.svg.isConnected) return;
    const root = this.svg.getScreenCTM();
    if (!root) return;
    const scale = Math.hypot(root.a, root.b);
    if (!scale || Math.abs(scale - (this.labelScale || 0)) < 1e-4) return;
    this.labelScale = scale;
    const texts = [...this.svg.querySelectorAll('text')].filter((el) => el.textContent.trim() && !el.closest('.tk-story, .tk-overlay, defs, pattern, marker, symbol'));
    const natives = [];
    const enlarged = [];
    const kept = [];
    for (const el of texts) {
      el.classList.remove('tk-lod-hidden');
      if (!el.dataset.tkFont) {
        el.style.fontSize = '';
        el.dataset.tkFont = String(parseFloat(getComputedStyle(el).fontSize) || 0);
      }
      const units = Number(el.dataset.tkFont);
      const ctm = el.getScreenCTM();
      if (!units || !ctm) continue;
      const own = Math.hypot(ctm.a, ctm.b);
      const native = units * own;
      natives.push(native);
      if (native >= MIN_TEXT_PX) {
        el.style.fontSize = '';
        kept.push(el);
      } else {
        // A little over the minimum, so rounding never shows it a hair under.
        el.style.fontSize = `${(MIN_TEXT_PX + 0.2) / own}px`;
        enlarged.push({ el, native });
      }
    }
    this.typicalLabelPx = natives.length ? natives.sort((a, b) => a - b)[Math.floor(natives.length / 2)] : null;
    const rects = kept.map((el) => el.getBoundingClientRect());
    const overlaps = (a, b) => a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1;
    enlarged.sort((a, b) => b.native - a.native);
    for (const { el } of enlarged) {
      const rect = el.getBoundingClientRect();
      if (rects.some((other) => overlaps(rect, other))) el.classList.add('tk-lod-hidden');
      else rects.push(rect);
    }
  }

  /** Zooms in one step: at once to where the map's labels show at their own size, if smaller. */
  zoomIn() {
    const typical = this.typicalLabelPx;
    const factor = typical && typical < MIN_TEXT_PX ? Math.min(1 / 1.25, typical / MIN_TEXT_PX) : 1 / 1.25;
    this.zoomBy(factor);
  }

  apply() {
    if (this.svg && this.box) this.svg.setAttribute('viewBox', this.box.map((v) => Math.round(v * 100) / 100).join(' '));
    if (this.zoomable) {
      // One finger scrolls the page over the whole map; once zoomed in, it pans the map.
      const zoomed = !!(this.box && this.home && this.box[2] < this.home[2] * 0.999);
      this.host.classList.toggle('zoomed', zoomed);
      this.legibleLabels();
    }
    // Zooming changes how big a target is on screen.
    if (this.svg && this.svg.querySelector('.tk-interactive')) this.fitSoon();
  }

  reset() {
    if (!this.home) return;
    this.box = [...this.home];
    this.apply();
  }

  /** Zooms by `factor` (below 1 zooms in) around a point in drawing units (default: centre). */
  zoomBy(factor, cx, cy) {
    if (!this.box) return;
    const [x, y, w, hgt] = this.box;
    const minW = this.home[2] / 8;
    const maxW = this.home[2] * 1.5;
    const newW = Math.min(maxW, Math.max(minW, w * factor));
    const f = newW / w;
    const px = cx ?? x + w / 2;
    const py = cy ?? y + hgt / 2;
    this.box = [px - (px - x) * f, py - (py - y) * f, w * f, hgt * f];
    this.apply();
  }

  /** Converts a client (screen) point to drawing units. */
  toDrawing(clientX, clientY) {
    const rect = this.svg.getBoundingClientRect();
    const [x, y, w, hgt] = this.box;
    // preserveAspectRatio meet: the drawing is scaled uniformly and centred.
    const scale = Math.min(rect.width / w, rect.height / hgt);
    const offsetX = (rect.width - w * scale) / 2;
    const offsetY = (rect.height - hgt * scale) / 2;
    return [x + (clientX - rect.left - offsetX) / scale, y + (clientY - rect.top - offsetY) / scale, scale];
  }

  bindGestures() {
    const host = this.host;
    host.addEventListener(
      'wheel',
      (event) => {
        if (!this.svg) return;
        event.preventDefault();
        const [px, py] = this.toDrawing(event.clientX, event.clientY);
        this.zoomBy(event.deltaY > 0 ? 1.15 : 1 / 1.15, px, py);
      },
      { passive: false },
    );
    host.addEventListener('pointerdown', (event) => {
      if (!this.svg || event.button > 0) return;
      // Dragging a piece of an assign decision is not a pan.
      const target = event.composedPath()[0];
      if (target && target.closest && target.closest('.tk-item')) return;
      this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
      this.moved = false;
      this.startDistance = null;
    });
    host.addEventListener('pointermove', (event) => {
      const last = this.pointers.get(event.pointerId);
      if (!last || !this.svg) return;
      const dx = event.clientX - last.x;
      const dy = event.clientY - last.y;
      if (!this.moved && Math.hypot(dx, dy) < 6) return;
      if (!this.moved) {
        this.moved = true;
        try {
          host.setPointerCapture(event.pointerId);
        } catch {
          // The pointer may already be gone.
        }
      }
      if (this.pointers.size >= 2) {
        // Pinch: zoom by the change of distance between the first two pointers.
        this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
        const [a, b] = [...this.pointers.values()];
        const distance = Math.hypot(a.x - b.x, a.y - b.y);
        if (this.startDistance) {
          const [px, py] = this.toDrawing((a.x + b.x) / 2, (a.y + b.y) / 2);
          this.zoomBy(this.startDistance / distance, px, py);
        }
        this.startDistance = distance;
        return;
      }
      const [, , scale] = this.toDrawing(event.clientX, event.clientY);
      this.box[0] -= dx / scale;
      this.box[1] -= dy / scale;
      this.apply();
      this.pointers.set(event.pointerId, { x: event.clientX, y: event.clientY });
    });
    const end = (event) => {
      this.pointers.delete(event.pointerId);
      if (this.pointers.size < 2) this.startDistance = null;
    };
    host.addEventListener('pointerup', end);
    host.addEventListener('pointercancel', end);
    // A click that ends a pan is not a pick.
    host.addEventListener(
      'click',
      (event) => {
        if (this.moved) {
          event.stopPropagation();
          event.preventDefault();
          this.moved = false;
        }
      },
      true,
    );
    host.addEventListener('keydown', (event) => {
      if (!this.svg) return;
      const step = this.box[2] / 10;
      const keys = {
        '+': () => this.zoomIn(),
        '=': () => this.zoomIn(),
        '-': () => this.zoomBy(1.25),
        0: () => this.reset(),
      };
      if (keys[event.key]) {
        keys[event.key]();
        event.preventDefault();
        return;
      }
      if (event.altKey || event.ctrlKey) return;
      const pan = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[event.key];
      if (pan && event.shiftKey) {
        this.box[0] += pan[0];
        this.box[1] += pan[1];
        this.apply();
        event.preventDefault();
      }
    });
  }

  /** The elements of the drawing matching a selector. */
  all(selector) {
    return this.svg ? [...this.svg.querySelectorAll(selector)] : [];
  }

  /** A layer on top of the drawing for the UI's own marks (placed items). */
  overlay() {
    if (!this.svg) return null;
    let layer = this.svg.querySelector(':scope > g.tk-overlay');
    if (!layer) {
      layer = document.createElementNS(SVG_NS, 'g');
      layer.setAttribute('class', 'tk-overlay');
      layer.setAttribute('pointer-events', 'none');
      this.svg.append(layer);
    }
    return layer;
  }

  /** The bounding box of an element in the drawing's root units. */
  boxOf(el) {
    try {
      const box = el.getBBox();
      const matrix = this.svg.getScreenCTM().inverse().multiply(el.getScreenCTM());
      const corners = [
        [box.x, box.y],
        [box.x + box.width, box.y],
        [box.x, box.y + box.height],
        [box.x + box.width, box.y + box.height],
      ].map(([x, y]) => new DOMPoint(x, y).matrixTransform(matrix));
      const xs = corners.map((p) => p.x);
      const ys = corners.map((p) => p.y);
      return { x: Math.min(...xs), y: Math.min(...ys), width: Math.max(...xs) - Math.min(...xs), height: Math.max(...ys) - Math.min(...ys) };
    } catch {
      return null;
    }
  }

  /** The board element under a screen point, or null. */
  elementAt(x, y) {
    return this.shadow.elementFromPoint ? this.shadow.elementFromPoint(x, y) : null;
  }
}

/**
 * The parts of a view: `parts` (contract 0.2), else the single `svg` of older servers as the map.
 */
export function partsOf(view) {
  if (view && Array.isArray(view.parts)) return view.parts;
  if (view && typeof view.svg === 'string' && view.svg) return [{ id: 'board', kind: 'map', title: null, svg: view.svg }];
  return [];
}

/** Where a part goes: 'map', 'seat' or 'table'. */
function placeOf(part) {
  if (part.kind === 'map') return 'map';
  if (part.kind && typeof part.kind === 'object' && 'seat' in part.kind) return 'seat';
  return 'table';
}

/**
 * Every part of the board, laid out: the map (zoomable) in the main area, seat panels stacked in
 * `seatColumn`, other panels in `tableRow`. Offers the decision controller one surface: `all()`
 * finds marked elements in every part.
 */
export class BoardParts {
  constructor() {
    this.map = new Board({ zoomable: true, partId: 'map' });
    this.map.element.classList.add('no-svg');
    this.panels = new Map(); // part id -> Board
    this.seatColumn = h('div', { class: 'seat-parts' });
    this.tableRow = h('div', { class: 'table-parts' });
    this.seatColumn.hidden = true;
    this.tableRow.hidden = true;
  }

  get element() {
    return this.map.element;
  }

  /** Whether any part is drawn. */
  get svg() {
    return this.boards().some((board) => board.svg) ? true : null;
  }

  boards() {
    return [this.map, ...this.panels.values()];
  }

  /** Shows a view's parts; returns how many were drawn. */
  show(parts, rulesetId, seatName) {
    let mapShown = false;
    const seen = new Set();
    let drawn = 0;
    for (const part of parts) {
      const place = placeOf(part);
      if (place === 'map' && !mapShown) {
        mapShown = true;
        if (this.map.show(part.svg, rulesetId, seatName)) drawn += 1;
        this.map.element.dataset.part = part.id;
        continue;
      }
      const id = String(part.id);
      seen.add(id);
      let board = this.panels.get(id);
      if (!board) {
        board = new Board({ zoomable: false, partId: id });
        this.panels.set(id, board);
      }
      board.element.dataset.place = place === 'map' ? 'table' : place;
      if (place === 'seat') board.element.dataset.seat = String(part.kind.seat);
      board.setTitle(part.title ? messageText(rulesetId, part.title, seatName) : null);
      board.onWanted = () => this.place(board);
      if (board.show(part.svg, rulesetId, seatName)) drawn += 1;
      // Parts keep the ruleset's order within their column.
      this.place(board);
    }
    for (const [id, board] of [...this.panels]) {
      if (!seen.has(id)) {
        board.element.remove();
        this.panels.delete(id);
      }
    }
    if (!mapShown) this.map.clear();
    this.map.element.classList.toggle('no-svg', !mapShown);
    this.seatColumn.hidden = !this.seatColumn.children.length;
    this.tableRow.hidden = !this.tableRow.children.length;
    return drawn;
  }

  /**
   * Puts a panel where it can be read whole: a seat's panel in the side column, a shared one in
   * the grid under the map; one wider than its place allows (see Board.fit) spans the whole width
   * under the map instead. Panels keep the ruleset's order within each place.
   */
  place(board) {
    const seat = board.element.dataset.place === 'seat';
    // Measured on what does not move: the side column (on a phone it is no box of its own, and
    // its panels are as wide as the map) and the map's width for the grid under it.
    const mapWidth = this.map.element.clientWidth || 0;
    const sideWidth = (this.seatColumn.parentElement && this.seatColumn.parentElement.clientWidth) || mapWidth;
    const fontPx = parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
    const cellWidth = mapWidth / Math.max(1, Math.floor(mapWidth / (22 * fontPx)));
    const placeWidth = seat ? sideWidth : cellWidth;
    const wide = !!board.wantedWidth && placeWidth > 0 && board.wantedWidth > placeWidth + 1;
    board.element.classList.toggle('wide-part', wide);
    const target = seat && !wide ? this.seatColumn : this.tableRow;
    if (board.element.parentNode !== target) target.append(board.element);
    // The ruleset's order within each place.
    const order = [...this.panels.values()].map((b) => b.element).filter((el) => el.parentNode === target);
    if (order.some((el, i) => target.children[i] !== el)) target.append(...order);
    this.seatColumn.hidden = !this.seatColumn.children.length;
    this.tableRow.hidden = !this.tableRow.children.length;
  }

  /** Empties every part (the hot-seat hand-over hides everything). */
  clear() {
    this.map.clear();
    this.map.element.classList.add('no-svg');
    for (const board of this.panels.values()) board.element.remove();
    this.panels.clear();
    this.seatColumn.hidden = true;
    this.tableRow.hidden = true;
  }

  setBanner(...content) {
    this.map.setBanner(...content);
  }

  renderToolbar() {
    this.map.renderToolbar();
  }

  /** Elements matching `selector` in every part, the map's first. */
  all(selector) {
    return this.boards().flatMap((board) => board.all(selector));
  }

  /** The part that holds an element of a drawing. */
  boardOf(el) {
    return this.boards().find((board) => board.svg && board.svg.contains(el)) || null;
  }

  /** The drawing element under a screen point, in any part. */
  elementAt(x, y) {
    for (const board of this.boards()) {
      const el = board.elementAt(x, y);
      if (el && board.svg && board.svg.contains(el)) return el;
    }
    return null;
  }

  /**
   * Shows on the map what a story step is about (convention 1): marks its places, and returns
   * {inset, places, known} for the story (a small copy of the map framed on the places, the
   * places marked, the message's places the map knows). A null step clears the marks.
   */
  tell(step) {
    const told = step ? toldPlaces(step.text) : null;
    if (!told) {
      this.markPlaces(null);
      return null;
    }
    const onMap = new Set(this.map.all('[data-place]').map((el) => el.getAttribute('data-place')));
    const known = told.keys.filter((key) => onMap.has(key));
    const marked = this.markPlaces(told);
    const places = [...new Set(marked.map((el) => el.getAttribute('data-place')))];
    return { inset: marked.length ? this.placesInset() : null, places, known };
  }

  /** Marks the places of a told step on the map (see Board.markPlaces); null clears them. */
  markPlaces(told) {
    return this.map.markPlaces(told);
  }

  placesInset() {
    return this.map.placesInset();
  }

  /** Shows the previews of choice `index` in every part (null: none). */
  showPreview(index) {
    for (const board of this.boards()) board.showPreview(index);
  }

  /** Sizes targets again after the decision marked its elements. */
  fitSoon() {
    for (const board of this.boards()) board.fitSoon();
  }
}

/**
 * Makes `el` a group (an `<svg:g>`), wrapping it if needed, so the UI can add a target area
 * inside it; the data-choice, data-item and data-slot marks move to the group.
 */
export function asGroup(el) {
  if (el.localName === 'g') return el;
  const group = document.createElementNS(SVG_NS, 'g');
  for (const name of ['data-choice', 'data-item', 'data-slot']) {
    if (el.hasAttribute(name)) {
      group.setAttribute(name, el.getAttribute(name));
      el.removeAttribute(name);
    }
  }
  el.replaceWith(group);
  group.append(el);
  return group;
}

export { SVG_NS };
