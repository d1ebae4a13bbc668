// "Since your last move": a player returning to a game sees what happened since their seat last
// acted, step by step, as their own log and board showed it live. The entries come from
// GET /recap and each board from GET /recap/board?at=<version>, both with the seat's token: the
// server filters them for this seat exactly as the live log and view are filtered, so the recap
// shows nothing the seat could not see and leaves out nothing it could.
//
// One click on "Since your last move (N)" opens the recap at the first new entry; Next and
// Previous (or the arrow keys) step through it; Close (or Escape) goes back to the game.

import { get } from './api.js';
import { BoardParts, partsOf } from './board.js';
import { errorText, h, replace } from './dom.js';
import { t } from './i18n.js';
import { logEntry } from './log.js';
import { seatName } from './seats.js';

/**
 * Asks the server what the seat of `token` missed and, if anything, puts a button into `slot`
 * that opens the recap above `before` (an element of the game screen). Returns {destroy}.
 */
export async function mountRecap(slot, before, { gameId, token, rulesetId, seats }) {
  const recap = new Recap(slot, before, { gameId, token, rulesetId, seats });
  await recap.load();
  return recap;
}

class Recap {
  constructor(slot, before, { gameId, token, rulesetId, seats }) {
    this.slot = slot;
    this.before = before;
    this.gameId = gameId;
    this.token = token;
    this.rulesetId = rulesetId;
    this.seats = seats;
    this.entries = [];
    this.step = 0;
    this.panel = null;
    this.boards = new Map();
  }

  api(path) {
    return `/api/games/${encodeURIComponent(this.gameId)}/recap${path}`;
  }

  async load() {
    let answer;
    try {
      answer = await get(this.api(''), this.token);
    } catch {
      // A server without recaps, or a seat no longer held: the game screen goes on without one.
      return;
    }
    this.since = answer.since;
    this.entries = (answer.entries || []).slice().sort((a, b) => a.version - b.version);
    if (!this.entries.length) return;
    this.button = h('button', { type: 'button', class: 'button recap-button', 'data-recap': 'open', onclick: () => this.open() }, t('recap.button', { n: this.entries.length }));
    this.slot.append(this.button);
  }

  destroy() {
    this.close();
    if (this.button) this.button.remove();
  }

  open() {
    if (this.panel) {
      this.panel.querySelector('[data-recap="next"]')?.focus();
      return;
    }
    this.board = new BoardParts();
    this.counter = h('p', { class: 'recap-counter', 'aria-live': 'polite' });
    this.logList = h('ol', { class: 'log-list recap-log' });
    this.error = h('p', { class: 'decision-error', role: 'alert', hidden: true });
    const button = (name, label, action) => h('button', { type: 'button', class: 'button', 'data-recap': name, onclick: action }, label);
    this.previousButton = button('previous', t('recap.previous'), () => this.go(this.step - 1));
    this.nextButton = button('next', t('recap.next'), () => this.go(this.step + 1));
    this.panel = h(
      'section',
      { class: 'recap panel', role: 'region', 'aria-labelledby': 'recap-title', tabindex: '-1' },
      h('h2', { id: 'recap-title' }, t('recap.title')),
      h('p', { class: 'hint' }, t('recap.about')),
      h('div', { class: 'recap-controls', role: 'group', 'aria-label': t('recap.controls') }, this.previousButton, this.nextButton, button('close', t('recap.close'), () => this.close()), this.counter),
      this.error,
      h('div', { class: 'recap-layout' }, h('div', { class: 'recap-board' }, this.board.element, this.board.tableRow), h('div', { class: 'recap-side' }, this.board.seatColumn, h('h3', {}, t('recap.new-entries')), this.logList)),
    );
    this.panel.addEventListener('keydown', (event) => {
      if (event.key === 'Escape') this.close();
      else if (event.key === 'ArrowRight') this.go(this.step + 1);
      else if (event.key === 'ArrowLeft') this.go(this.step - 1);
    });
    this.before.before(this.panel);
    this.button.setAttribute('aria-expanded', 'true');
    this.go(1, { force: true });
    this.nextButton.focus();
  }

  close() {
    if (!this.panel) return;
    this.panel.remove();
    this.panel = null;
    if (this.button) {
      this.button.setAttribute('aria-expanded', 'false');
      this.button.focus();
    }
  }

  /** Shows the board after the first `step` missed entries (0: as the seat last saw it). */
  async go(step, { force = false } = {}) {
    step = Math.max(0, Math.min(this.entries.length, step));
    if (!this.panel || (step === this.step && !force)) return;
    this.step = step;
    this.counter.textContent = t('recap.step', { n: step, total: this.entries.length });
    this.previousButton.disabled = step === 0;
    this.nextButton.disabled = step === this.entries.length;
    // The entries up to this step, the newest first and marked.
    const shown = this.entries.slice(0, step);
    const items = shown.flatMap((entry, index) => logEntry(entry, this.rulesetId, this.seats).map((item) => {
      if (index === step - 1) item.classList.add('recap-current');
      return item;
    }));
    this.logList.replaceChildren(...items.reverse());
    if (!shown.length) this.logList.replaceChildren(h('li', { class: 'log-empty' }, t('recap.start')));
    const version = step === 0 ? this.since : shown[shown.length - 1].version;
    try {
      const parts = await this.boardAt(version);
      if (this.step !== step || !this.panel) return;
      this.error.hidden = true;
      this.board.show(parts, this.rulesetId, (s) => seatName(this.seats, s));
    } catch (err) {
      if (!this.panel) return;
      replace(this.error, errorText(err));
      this.error.hidden = false;
    }
  }

  async boardAt(version) {
    if (!this.boards.has(version)) {
      const view = await get(this.api(`/board?at=${version}`), this.token);
      this.boards.set(version, partsOf(view));
    }
    return this.boards.get(version);
  }
}
