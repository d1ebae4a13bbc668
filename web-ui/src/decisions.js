// Answering a pending decision, for any ruleset. Every kind (choose, number, assign) has a plain
// form that always works; where the ruleset's SVG marks elements with data-choice, data-slot or
// data-item, the same answer can be given on the board itself: click or tap, drag an item onto a
// slot, or Tab to an element and press Enter or Space.

import { h, messageNode, replace } from './dom.js';
import { messageText, t } from './i18n.js';
import { seatName } from './seats.js';
import { asGroup, SVG_NS } from './board.js';

/** The kind name and body of a decision: ['choose', {...}]. */
export function decisionKind(decision) {
  const kind = decision && decision.kind ? decision.kind : {};
  const name = Object.keys(kind)[0];
  return [name, kind[name]];
}

/** Whether an assign answer fits the decision's shape; returns an error text or null. */
export function checkAssignment(body, placements) {
  const usedItems = new Set();
  for (const [slot, item] of placements) {
    const slotInfo = body.slots[slot];
    if (!slotInfo || item >= body.items.length) return t('decision.check-unknown');
    if (usedItems.has(item)) return t('decision.check-item-twice');
    usedItems.add(item);
    if (slotInfo.accepts && slotInfo.accepts.length && !slotInfo.accepts.includes(item)) return t('decision.check-not-accepted');
  }
  if (placements.size < body.min_placements) return t('decision.check-too-few', { min: body.min_placements, n: placements.size });
  return null;
}

/**
 * One pending decision, shown in `panel` and on `board` (every part of it). `send(action)` posts
 * the answer and resolves to true when the server took it; `preview(action)` resolves to the
 * ruleset's notes on an answer being composed (or null when there is no preview).
 */
/**
 * A board button's accessible name: the choice's label, led by the words drawn on the part when
 * the label does not hold them in the order drawn, so that what a person sees is what voice
 * control and a screen reader call it (WCAG 2.5.3, label in name). The drawn words are also
 * parted by spaces in the document (SVG shows none), so its text reads "Uesugi plain 1", not
 * "Uesugiplain1".
 */
function nameWithVisibleText(el, label) {
  const texts = [...el.querySelectorAll('text')];
  for (const node of texts) {
    const next = node.nextSibling;
    if (!(next && next.nodeType === Node.TEXT_NODE && /^\s+$/.test(next.nodeValue))) node.after(document.createTextNode(' '));
  }
  const drawn = texts.map((node) => node.textContent.trim()).filter(Boolean);
  const words = (text) => text.toLocaleLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  const shown = words(drawn.join(' '));
  // A parenthetical is not heard as part of a name ("Mōri sword (3)" is called "Mōri sword").
  const named = words(label.replace(/\([^)]*\)/g, ' '));
  const held = !shown.length || named.some((_, start) => shown.every((word, i) => named[start + i] === word));
  return held ? label : `${drawn.join(' ')} — ${label}`;
}

export class DecisionController {
  constructor({ decision, board, panel, rulesetId, seats, send, preview }) {
    this.decision = decision;
    this.board = board;
    this.panel = panel;
    this.rulesetId = rulesetId;
    this.seats = seats;
    this.send = send;
    this.previewFn = preview || null;
    this.notes = []; // the preview's notes on the current answer
    this.previewed = null; // the answer (JSON) the notes are about
    this.previewTimer = null;
    this.previewCounter = 0;
    [this.kindName, this.body] = decisionKind(decision);
    this.selected = new Set(); // choose: picked indices
    this.placements = new Map(); // assign: slot -> item
    this.heldItem = null; // assign: the item picked up by tap or keyboard
    this.busy = false;
    this.drag = null;
    this.onDocumentMove = (event) => this.dragMove(event);
    this.onDocumentUp = (event) => this.dragEnd(event);
  }

  label(message) {
    return messageText(this.rulesetId, message, (seat) => seatName(this.seats, seat));
  }

  /** Draws the form and decorates the board. Called again after each board refresh. */
  render() {
    this.decorateBoard();
    this.renderPanel();
    this.renderBanner();
  }

  /** The decision on the board itself: the prompt, what to do there, and a number picker. */
  renderBanner() {
    if (!this.board) return;
    const prompt = messageNode(this.rulesetId, this.decision.prompt, this.seats, 'strong');
    const onBoard = (selector) => this.board.all(selector).length > 0;
    let extra = null;
    if (this.kindName === 'choose' && onBoard('.tk-choice')) extra = h('span', { class: 'banner-hint' }, t('decision.pick-on-board'));
    else if (this.kindName === 'assign' && onBoard('.tk-item') && onBoard('.tk-slot')) extra = h('span', { class: 'banner-hint' }, t('decision.drag-on-board'));
    else if (this.kindName === 'number') {
      const { min, max } = this.body;
      const values = [];
      if (max - min <= 12) for (let value = min; value <= max; value += 1) values.push(value);
      extra = values.length
        ? h('span', { class: 'banner-numbers', role: 'group' }, values.map((value) => h('button', { type: 'button', class: 'small', 'data-board-number': value, onclick: () => this.submit({ number: value }) }, String(value))))
        : h('span', { class: 'banner-hint' }, t('decision.range', { min, max }));
    }
    // The way back is offered over the board too, where the player is looking.
    const back = this.decision.back
      ? h('button', { type: 'button', class: 'small secondary', 'data-board-back': '', onclick: () => this.submit('back') }, this.label(this.decision.back))
      : null;
    this.board.setBanner(prompt, extra, back);
  }

  /** The answer as composed so far, for a preview (null when there is nothing to preview). */
  draftAction() {
    if (this.kindName === 'assign') return { assign: [...this.placements].sort((a, b) => a[0] - b[0]) };
    if (this.kindName === 'choose' && this.selected.size) return { choose: [...this.selected].sort((a, b) => a - b) };
    if (this.kindName === 'number' && this.numberValue !== undefined) return { number: this.numberValue };
    return null;
  }

  /** Asks the ruleset what the answer being composed would do; soon, not on every key. */
  schedulePreview() {
    if (!this.previewFn) return;
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => this.runPreview(), 120);
  }

  async runPreview() {
    const action = this.draftAction();
    const key = JSON.stringify(action);
    if (!action || key === this.previewed) return;
    const mine = ++this.previewCounter;
    let notes = null;
    try {
      notes = await this.previewFn(action);
    } catch {
      notes = null;
    }
    if (mine !== this.previewCounter || this.destroyed) return;
    this.previewed = key;
    this.notes = Array.isArray(notes) ? notes : [];
    this.renderNotes();
  }

  /** The preview's notes in the panel: info plainly, warnings flagged; the send button says so. */
  renderNotes() {
    const box = this.panel.querySelector('.preview-notes');
    if (!box) return;
    const warnings = this.notes.filter((note) => note.level === 'warning');
    box.replaceChildren(
      ...this.notes.map((note) =>
        h(
          'li',
          { class: `preview-note ${note.level === 'warning' ? 'warning' : 'info'}` },
          h('span', { class: 'note-icon', 'aria-hidden': 'true' }, note.level === 'warning' ? '⚠' : 'ℹ'),
          note.level === 'warning' ? h('span', { class: 'visually-hidden' }, `${t('decision.warning')}: `) : null,
          messageNode(this.rulesetId, note.text, this.seats),
        ),
      ),
    );
    box.hidden = !this.notes.length;
    const form = this.panel.querySelector('form.decision');
    if (form) {
      // For tests and scripts: which answer the notes are about, and the answer composed now.
      form.dataset.warnings = String(warnings.length);
      form.dataset.previewed = this.previewed || '';
      form.dataset.draft = JSON.stringify(this.draftAction());
    }
    const flag = this.panel.querySelector('.send-warning');
    if (flag) {
      flag.hidden = !warnings.length;
      flag.textContent = warnings.length ? t('decision.warnings-before-send', { n: warnings.length }) : '';
    }
    const sendButton = this.panel.querySelector('[data-action="send"]');
    if (sendButton) sendButton.classList.toggle('has-warnings', warnings.length > 0);
  }

  /** The list the preview fills, and the flag next to the send button. */
  previewBoxes() {
    const box = h('ul', { class: 'preview-notes', 'aria-live': 'polite', hidden: true });
    const flag = h('p', { class: 'send-warning', role: 'status', hidden: true });
    return [box, flag];
  }

  /** Removes listeners that outlive the panel. */
  destroy() {
    this.destroyed = true;
    if (this.board && this.board.showPreview) this.board.showPreview(null);
    clearTimeout(this.previewTimer);
    if (this.board) this.board.setBanner(null);
    document.removeEventListener('pointermove', this.onDocumentMove);
    document.removeEventListener('pointerup', this.onDocumentUp);
    if (this.drag && this.drag.ghost) this.drag.ghost.remove();
    this.drag = null;
  }

  async submit(action) {
    if (this.busy) return;
    this.busy = true;
    this.panel.classList.add('busy');
    try {
      await this.send(action);
    } finally {
      this.busy = false;
      this.panel.classList.remove('busy');
    }
  }

  // ---- the board -------------------------------------------------------------------------

  makeInteractive(el, label, onActivate) {
    el.setAttribute('tabindex', '0');
    el.setAttribute('role', 'button');
    el.setAttribute('aria-label', nameWithVisibleText(el, label));
    // A drawing that holds buttons is a group: an image's children are hidden from assistive
    // technology, buttons included.
    const svg = el.ownerSVGElement;
    if (svg && svg.getAttribute('role') === 'img') svg.setAttribute('role', 'group');
    el.classList.add('tk-interactive');
    if (!el.querySelector(':scope > title')) {
      const title = document.createElementNS(SVG_NS, 'title');
      title.textContent = label;
      el.prepend(title);
    }
    el.addEventListener('click', (event) => {
      event.stopPropagation();
      onActivate(event);
    });
    el.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        onActivate(event);
      }
    });
  }

  decorateBoard() {
    if (!this.board || !this.board.svg) return;
    if (this.kindName === 'choose') {
      for (const mark of this.board.all('[data-choice]')) {
        const index = Number(mark.getAttribute('data-choice'));
        const choice = this.body.choices[index];
        if (!Number.isInteger(index) || !choice) continue;
        const el = asGroup(mark);
        el.classList.add('tk-choice');
        const detail = choice.detail ? ` — ${this.label(choice.detail)}` : '';
        this.makeInteractive(el, this.label(choice.label) + detail, () => this.pick(index));
        el.addEventListener('mouseenter', () => this.previewChoice(index));
        el.addEventListener('mouseleave', () => this.previewChoice(null));
        el.addEventListener('focus', () => this.previewChoice(index));
        el.addEventListener('blur', () => this.previewChoice(null));
      }
    } else if (this.kindName === 'assign') {
      for (const mark of this.board.all('[data-item]')) {
        const index = Number(mark.getAttribute('data-item'));
        const item = this.body.items[index];
        if (!Number.isInteger(index) || !item) continue;
        const el = asGroup(mark);
        el.classList.add('tk-item');
        this.makeInteractive(el, this.label(item.label), () => this.hold(index));
        el.addEventListener('pointerdown', (event) => this.dragStart(event, index));
      }
      for (const mark of this.board.all('[data-slot]')) {
        const index = Number(mark.getAttribute('data-slot'));
        const slot = this.body.slots[index];
        if (!Number.isInteger(index) || !slot) continue;
        const el = asGroup(mark);
        el.classList.add('tk-slot');
        this.makeInteractive(el, this.label(slot.label), () => this.activateSlot(index));
      }
    }
    this.refreshBoard();
    this.previewChoice(null);
    if (this.board.fitSoon) this.board.fitSoon();
  }

  /** Shows the current answer on the board: picked choices, held item, placed items. */
  refreshBoard() {
    if (!this.board || !this.board.svg) return;
    if (this.kindName === 'choose') {
      for (const el of this.board.all('.tk-choice')) {
        const on = this.selected.has(Number(el.getAttribute('data-choice')));
        el.classList.toggle('tk-selected', on);
        el.setAttribute('aria-pressed', String(on));
      }
      return;
    }
    if (this.kindName !== 'assign') return;
    const placedItems = new Set(this.placements.values());
    for (const el of this.board.all('.tk-item')) {
      const index = Number(el.getAttribute('data-item'));
      el.classList.toggle('tk-used', placedItems.has(index));
      el.classList.toggle('tk-held', this.heldItem === index);
      el.setAttribute('aria-pressed', String(this.heldItem === index));
    }
    for (const el of this.board.all('.tk-slot')) {
      const index = Number(el.getAttribute('data-slot'));
      el.classList.toggle('tk-filled', this.placements.has(index));
      const accepts = this.heldItem !== null && this.accepts(index, this.heldItem);
      el.classList.toggle('tk-target', accepts);
      el.classList.toggle('tk-refused', this.heldItem !== null && !accepts);
    }
    const parts = this.board.boards ? this.board.boards() : [this.board];
    for (const part of parts) if (part.svg) part.overlay()?.replaceChildren();
    for (const [slot, item] of this.placements) {
      const slotEl = this.board.all(`[data-slot="${slot}"]`)[0];
      if (!slotEl) continue;
      const part = this.board.boardOf ? this.board.boardOf(slotEl) : this.board;
      const layer = part && part.overlay();
      if (!layer) continue;
      const box = part.boxOf(slotEl);
      if (!box) continue;
      const group = document.createElementNS(SVG_NS, 'g');
      group.setAttribute('class', 'tk-placement');
      const rect = document.createElementNS(SVG_NS, 'rect');
      const pad = Math.min(box.width, box.height) * 0.08;
      rect.setAttribute('x', box.x + pad);
      rect.setAttribute('y', box.y + pad);
      rect.setAttribute('width', Math.max(1, box.width - 2 * pad));
      rect.setAttribute('height', Math.max(1, box.height - 2 * pad));
      rect.setAttribute('rx', pad);
      const text = document.createElementNS(SVG_NS, 'text');
      text.setAttribute('x', box.x + box.width / 2);
      text.setAttribute('y', box.y + box.height / 2);
      text.setAttribute('text-anchor', 'middle');
      text.setAttribute('dominant-baseline', 'central');
      const size = Math.max(6, Math.min(box.height * 0.3, (box.width * 0.85) / (0.62 * Math.max(3, this.label(this.body.items[item].label).length))));
      text.setAttribute('font-size', size.toFixed(1));
      text.textContent = this.label(this.body.items[item].label);
      group.append(rect, text);
      layer.append(group);
    }
  }

  // ---- choose -----------------------------------------------------------------------------

  /** Shows the board's previews of choice `index` (convention 2), or the picked one's (null). */
  previewChoice(index) {
    if (!this.board || !this.board.showPreview) return;
    const shown = index ?? this.tapped ?? (this.selected.size ? [...this.selected][this.selected.size - 1] : null);
    this.board.showPreview(shown ?? null);
  }

  /** Whether choice `index` has a preview on the board. */
  hasPreview(index) {
    return !!this.board && this.board.all(`[data-preview-of="${index}"]`).length > 0;
  }

  pick(index) {
    if (this.busy) return;
    const { min, max } = this.body;
    // Without hover (a touch screen), the first tap on a choice with a preview shows it and the
    // second tap answers.
    const noHover = typeof matchMedia === 'function' && matchMedia('(hover: none)').matches;
    if (max === 1 && min === 1 && noHover && this.hasPreview(index) && this.tapped !== index) {
      this.tapped = index;
      this.previewChoice(index);
      return;
    }
    if (max === 1 && min === 1) {
      this.selected = new Set([index]);
      this.refreshBoard();
      this.submit({ choose: [index] });
      return;
    }
    if (this.selected.has(index)) this.selected.delete(index);
    else if (max === 1) this.selected = new Set([index]);
    else if (this.selected.size < max) this.selected.add(index);
    this.refreshBoard();
    this.renderPanel();
    this.schedulePreview();
    this.previewChoice(null);
  }

  // ---- assign -----------------------------------------------------------------------------

  accepts(slot, item) {
    const info = this.body.slots[slot];
    return !!info && (!info.accepts || !info.accepts.length || info.accepts.includes(item));
  }

  hold(item, { fromKeyboard = false } = {}) {
    if (this.busy) return;
    this.heldItem = this.heldItem === item ? null : item;
    this.refreshBoard();
    this.renderPanel();
    if (fromKeyboard && this.heldItem !== null) {
      // The keyboard goes straight to where the piece can go: arrows pick the space, Enter puts it.
      const target = [...this.panel.querySelectorAll('[data-put]:not([disabled])')][0];
      target?.focus();
    }
  }

  /** Focus after a placement from the keyboard: the next piece not yet placed. */
  focusNextItem(after) {
    const placed = new Set(this.placements.values());
    const items = this.body.items.map((_, i) => i);
    const next = items.find((i) => i > after && !placed.has(i)) ?? items.find((i) => !placed.has(i));
    const button = next === undefined ? this.panel.querySelector('[data-action="send"]') : this.panel.querySelector(`[data-item-button="${next}"]`);
    button?.focus();
  }

  activateSlot(slot) {
    if (this.busy) return;
    if (this.heldItem !== null) this.place(slot, this.heldItem);
    else if (this.placements.has(slot)) {
      // Tapping a filled slot picks its item up again.
      this.heldItem = this.placements.get(slot);
      this.placements.delete(slot);
      this.refreshBoard();
      this.renderPanel();
    }
  }

  place(slot, item) {
    if (!this.accepts(slot, item)) {
      this.flash(t('decision.check-not-accepted'));
      return;
    }
    for (const [s, i] of [...this.placements]) if (i === item) this.placements.delete(s);
    this.placements.set(slot, item);
    this.heldItem = null;
    this.refreshBoard();
    this.renderPanel();
    this.schedulePreview();
  }

  unplace(slot) {
    this.placements.delete(slot);
    this.refreshBoard();
    this.renderPanel();
    this.schedulePreview();
  }

  dragStart(event, item) {
    if (event.button > 0 || this.busy) return;
    this.drag = { item, x: event.clientX, y: event.clientY, ghost: null };
    document.addEventListener('pointermove', this.onDocumentMove);
    document.addEventListener('pointerup', this.onDocumentUp);
  }

  dragMove(event) {
    if (!this.drag) return;
    if (!this.drag.ghost) {
      if (Math.hypot(event.clientX - this.drag.x, event.clientY - this.drag.y) < 6) return;
      this.drag.ghost = h('div', { class: 'drag-ghost', 'aria-hidden': 'true' }, this.label(this.body.items[this.drag.item].label));
      document.body.append(this.drag.ghost);
      this.heldItem = this.drag.item;
      this.refreshBoard();
    }
    this.drag.ghost.style.left = `${event.clientX}px`;
    this.drag.ghost.style.top = `${event.clientY}px`;
    event.preventDefault();
  }

  dragEnd(event) {
    document.removeEventListener('pointermove', this.onDocumentMove);
    document.removeEventListener('pointerup', this.onDocumentUp);
    const drag = this.drag;
    this.drag = null;
    if (!drag || !drag.ghost) return;
    drag.ghost.remove();
    // The click that follows a drag must not pick the item up again.
    const swallow = (e) => {
      e.stopPropagation();
      e.preventDefault();
    };
    window.addEventListener('click', swallow, { capture: true, once: true });
    setTimeout(() => window.removeEventListener('click', swallow, { capture: true }), 50);
    const slot = this.slotAt(event.clientX, event.clientY);
    if (slot !== null) this.place(slot, drag.item);
    else {
      this.heldItem = null;
      this.refreshBoard();
    }
  }

  slotAt(x, y) {
    const onBoard = this.board && this.board.elementAt(x, y);
    const boardSlot = onBoard && onBoard.closest && onBoard.closest('.tk-slot');
    if (boardSlot) return Number(boardSlot.getAttribute('data-slot'));
    const onPage = document.elementFromPoint(x, y);
    const row = onPage && onPage.closest && onPage.closest('[data-panel-slot]');
    return row ? Number(row.getAttribute('data-panel-slot')) : null;
  }

  // ---- the form ---------------------------------------------------------------------------

  flash(text) {
    const note = this.panel.querySelector('.decision-check');
    if (note) {
      note.textContent = text;
      note.classList.add('error');
    }
  }

  renderPanel() {
    const focusKey = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focusKey : null;
    const prompt = messageNode(this.rulesetId, this.decision.prompt, this.seats, 'h2');
    prompt.className = 'decision-prompt';
    prompt.id = 'decision-prompt';
    const form = h('form', { class: `decision decision-${this.kindName}`, 'aria-labelledby': 'decision-prompt', novalidate: true });
    form.addEventListener('submit', (event) => event.preventDefault());
    if (this.kindName === 'choose') this.chooseForm(form);
    else if (this.kindName === 'number') this.numberForm(form);
    else if (this.kindName === 'assign') this.assignForm(form);
    else form.append(h('p', {}, t('decision.unknown-kind')));
    if (this.decision.back) form.append(this.backRow());
    replace(this.panel, prompt, form);
    this.renderNotes();
    if (focusKey) {
      const again = this.panel.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
      if (again) again.focus();
    }
  }

  /**
   * The way back to the step before, when the ruleset offers one (a target chosen, the count still
   * open): a secondary button under the answer, labelled by the ruleset. Going back is an action
   * of its own, sent like any answer.
   */
  backRow() {
    return h(
      'div',
      { class: 'decision-actions decision-back' },
      h('button', { type: 'button', class: 'secondary', 'data-action': 'back', 'data-focus-key': 'back', onclick: () => this.submit('back') }, this.label(this.decision.back)),
    );
  }

  chooseForm(form) {
    const { choices, min, max } = this.body;
    const single = min === 1 && max === 1;
    form.dataset.min = String(min);
    form.dataset.max = String(max);
    const list = h('div', { class: 'choice-list', role: 'group', 'aria-labelledby': 'decision-prompt' });
    choices.forEach((choice, index) => {
      const on = this.selected.has(index);
      const button = h(
        'button',
        {
          type: 'button',
          class: `choice-button${on ? ' selected' : ''}`,
          'aria-pressed': single ? undefined : String(on),
          'data-choice-button': index,
          'data-focus-key': `choice-${index}`,
          onclick: () => this.pick(index),
          onmouseenter: () => this.hoverChoice(index, true),
          onmouseleave: () => this.hoverChoice(index, false),
          onfocus: () => this.hoverChoice(index, true),
          onblur: () => this.hoverChoice(index, false),
        },
        h('span', { class: 'choice-label' }, this.label(choice.label)),
        choice.detail ? messageNode(this.rulesetId, choice.detail, this.seats, 'span') : null,
      );
      const detail = button.querySelector(':scope > span:not(.choice-label)');
      if (detail) detail.className = 'choice-detail';
      list.append(button);
    });
    form.append(list);
    if (!single) {
      const count = this.selected.size;
      const ok = count >= min && count <= max;
      form.append(
        h('p', { class: 'decision-check', 'aria-live': 'polite' }, t('decision.chosen', { n: count, min, max })),
        ...this.previewBoxes(),
        h(
          'div',
          { class: 'decision-actions' },
          h('button', { type: 'button', class: 'secondary', 'data-focus-key': 'clear', onclick: () => { this.selected.clear(); this.refreshBoard(); this.renderPanel(); this.schedulePreview(); } }, t('decision.clear')),
          h('button', { type: 'submit', class: 'primary', 'data-action': 'send', disabled: !ok, onclick: () => ok && this.submit({ choose: [...this.selected].sort((a, b) => a - b) }) }, t('decision.send')),
        ),
      );
    }
  }

  /** Arrow keys move the focus among the buttons matching `selector` (the pieces, the spaces). */
  moveAmong(event, selector) {
    const forward = event.key === 'ArrowRight' || event.key === 'ArrowDown';
    const back = event.key === 'ArrowLeft' || event.key === 'ArrowUp';
    if (!forward && !back) return;
    const buttons = [...this.panel.querySelectorAll(selector)];
    const at = buttons.indexOf(event.currentTarget);
    if (at === -1 || !buttons.length) return;
    event.preventDefault();
    buttons[(at + (forward ? 1 : buttons.length - 1)) % buttons.length].focus();
  }

  /** A choice hovered or focused (in the panel or on the board): marked, and its preview shown. */
  hoverChoice(index, on) {
    this.highlight(`[data-choice="${index}"]`, on);
    this.previewChoice(on ? index : null);
  }

  highlight(selector, on) {
    for (const el of this.board ? this.board.all(selector) : []) el.classList.toggle('tk-hover', on);
  }

  numberForm(form) {
    const { min, max } = this.body;
    const input = h('input', { type: 'number', min, max, step: 1, value: min, inputmode: 'numeric', id: 'decision-number', 'aria-labelledby': 'decision-prompt', 'data-focus-key': 'number' });
    const note = h('p', { class: 'decision-check', 'aria-live': 'polite' }, t('decision.range', { min, max }));
    input.addEventListener('input', () => {
      const value = Number(input.value);
      if (Number.isInteger(value) && value >= min && value <= max) {
        this.numberValue = value;
        this.schedulePreview();
      }
    });
    const valid = () => {
      const value = Number(input.value);
      return Number.isInteger(value) && value >= min && value <= max;
    };
    const send = () => {
      if (!valid()) {
        note.textContent = t('decision.range', { min, max });
        note.classList.add('error');
        input.focus();
        return;
      }
      this.submit({ number: Number(input.value) });
    };
    const step = (delta) => {
      const value = Math.min(max, Math.max(min, (Number(input.value) || min) + delta));
      input.value = String(value);
      this.numberValue = value;
      this.schedulePreview();
    };
    const row = h(
      'div',
      { class: 'number-row' },
      h('button', { type: 'button', class: 'icon-button', 'aria-label': t('decision.less'), onclick: () => step(-1) }, '−'),
      input,
      h('button', { type: 'button', class: 'icon-button', 'aria-label': t('decision.more'), onclick: () => step(1) }, '+'),
      h('button', { type: 'submit', class: 'primary', 'data-action': 'send', onclick: send }, t('decision.send')),
    );
    form.append(row);
    if (max - min <= 12) {
      const quick = h('div', { class: 'choice-list quick-numbers' });
      for (let value = min; value <= max; value += 1) {
        quick.append(h('button', { type: 'button', class: 'choice-button', 'data-number': value, onclick: () => this.submit({ number: value }) }, String(value)));
      }
      form.append(quick);
    }
    form.append(note, ...this.previewBoxes());
  }

  assignForm(form) {
    const { items, slots, min_placements: minPlacements } = this.body;
    const placedItems = new Map([...this.placements].map(([slot, item]) => [item, slot]));
    const tray = h('div', { class: 'item-tray', role: 'group', 'aria-label': t('decision.items') });
    items.forEach((item, index) => {
      const placed = placedItems.has(index);
      const chip = h(
        'button',
        {
          type: 'button',
          class: `item-chip${placed ? ' used' : ''}${this.heldItem === index ? ' held' : ''}`,
          'aria-pressed': String(this.heldItem === index),
          'data-item-button': index,
          'data-focus-key': `item-${index}`,
          onclick: (event) => this.hold(index, { fromKeyboard: event.detail === 0 }),
          onmouseenter: () => this.highlight(`[data-item="${index}"]`, true),
          onmouseleave: () => this.highlight(`[data-item="${index}"]`, false),
          onkeydown: (event) => this.moveAmong(event, '[data-item-button]'),
        },
        this.label(item.label),
      );
      chip.addEventListener('pointerdown', (event) => this.dragStart(event, index));
      tray.append(chip);
    });
    const table = h('div', { class: 'slot-list' });
    slots.forEach((slot, slotIndex) => {
      const select = h('select', { 'aria-label': this.label(slot.label), 'data-slot-select': slotIndex, 'data-focus-key': `slot-${slotIndex}` });
      select.append(h('option', { value: '' }, t('decision.empty-slot')));
      items.forEach((item, itemIndex) => {
        if (!this.accepts(slotIndex, itemIndex)) return;
        const elsewhere = placedItems.has(itemIndex) && placedItems.get(itemIndex) !== slotIndex;
        select.append(
          h('option', { value: itemIndex, selected: this.placements.get(slotIndex) === itemIndex }, this.label(item.label) + (elsewhere ? ` (${t('decision.moves-here')})` : '')),
        );
      });
      select.addEventListener('change', () => {
        if (select.value === '') this.unplace(slotIndex);
        else this.place(slotIndex, Number(select.value));
      });
      const row = h(
        'div',
        {
          class: `slot-row${this.heldItem !== null && this.accepts(slotIndex, this.heldItem) ? ' target' : ''}${this.placements.has(slotIndex) ? ' filled' : ''}`,
          'data-panel-slot': slotIndex,
          onmouseenter: () => this.highlight(`[data-slot="${slotIndex}"]`, true),
          onmouseleave: () => this.highlight(`[data-slot="${slotIndex}"]`, false),
        },
        h('span', { class: 'slot-label' }, this.label(slot.label)),
        select,
      );
      if (this.heldItem !== null) {
        const held = this.heldItem;
        row.append(
          h(
            'button',
            {
              type: 'button',
              class: 'small',
              'data-put': slotIndex,
              disabled: !this.accepts(slotIndex, held),
              onclick: (event) => {
                this.place(slotIndex, held);
                if (event.detail === 0) this.focusNextItem(held);
              },
              onkeydown: (event) => this.moveAmong(event, '[data-put]:not([disabled])'),
            },
            t('decision.put-here'),
          ),
        );
      }
      table.append(row);
    });
    const problem = checkAssignment(this.body, this.placements);
    const note = h(
      'p',
      { class: `decision-check${problem ? ' warn' : ' ok'}`, 'aria-live': 'polite' },
      problem || t('decision.plan-ok', { n: this.placements.size }),
    );
    form.append(
      h('p', { class: 'hint' }, t('decision.assign-hint', { min: minPlacements })),
      tray,
      table,
      note,
      ...this.previewBoxes(),
      h(
        'div',
        { class: 'decision-actions' },
        h('button', { type: 'button', class: 'secondary', 'data-focus-key': 'clear', onclick: () => { this.placements.clear(); this.heldItem = null; this.refreshBoard(); this.renderPanel(); this.schedulePreview(); } }, t('decision.clear')),
        h(
          'button',
          {
            type: 'submit',
            class: 'primary',
            'data-action': 'send',
            disabled: !!problem,
            onclick: () => {
              if (checkAssignment(this.body, this.placements)) return;
              this.submit({ assign: [...this.placements].sort((a, b) => a[0] - b[0]) });
            },
          },
          t('decision.send-plan'),
        ),
      ),
    );
  }
}
