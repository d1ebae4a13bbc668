// The replay viewer: steps through a finished game's log, entry by entry. When the server can
// show the board as it was at a version (GET /view?at=<version>), the board follows the steps;
// otherwise the board shows the end of the game and the log carries the story.

import { get } from './api.js';
import { BoardParts, partsOf } from './board.js';
import { errorText, h, replace } from './dom.js';
import { loadCatalogue, onLanguageChange, t } from './i18n.js';
import { logEntry } from './log.js';
import { resultsView } from './results.js';
import { seatName } from './seats.js';
import { localSeats } from './seatnames.js';
import { Story } from './story.js';

/** Mounts the replay viewer. */
export async function mountReplay(root, { gameId }) {
  const replay = new Replay(root, gameId);
  await replay.start();
  return replay;
}

class Replay {
  constructor(root, gameId) {
    this.root = root;
    this.gameId = gameId;
    this.step = 0;
    this.timer = null;
    this.boardCache = new Map();
    this.boardAtVersion = null; // unknown until tried
  }

  destroy() {
    clearInterval(this.timer);
    if (this.story) this.story.clear();
    if (this.offLanguage) this.offLanguage();
  }

  api(path) {
    return `/api/games/${encodeURIComponent(this.gameId)}${path}`;
  }

  async start() {
    replace(this.root, h('p', { class: 'loading' }, t('common.loading')));
    try {
      this.game = await get(this.api(''));
      this.rulesetId = this.game.ruleset;
      await loadCatalogue(this.rulesetId, this.game.ruleset_hash);
      [this.entries, this.finalView] = await Promise.all([get(this.api('/log?since=0')), get(this.api('/view'))]);
    } catch (err) {
      replace(this.root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
      return;
    }
    this.seats = localSeats(this.finalView.seats || this.game.seats || []);
    this.entries.sort((a, b) => a.version - b.version);
    this.board = new BoardParts();
    this.logList = h('ol', { class: 'log-list replay-log' });
    // A step forward plays its events and drops as in a live game; its last drop stays shown.
    this.story = new Story({ rulesetId: this.rulesetId, seats: this.seats, dialogHost: this.root, keepDrops: true, onStep: (step) => this.board.tell(step) });
    this.counter = h('p', { class: 'replay-counter', 'aria-live': 'polite' });
    this.note = h('p', { class: 'hint replay-note', hidden: true });
    this.slider = h('input', { type: 'range', min: 0, max: this.entries.length, value: 0, 'aria-label': t('replay.position'), class: 'replay-slider' });
    this.slider.addEventListener('input', () => this.go(Number(this.slider.value)));
    const button = (label, symbol, action, name) => h('button', { type: 'button', class: 'icon-button', title: label, 'aria-label': label, 'data-replay': name, onclick: action }, symbol);
    this.playButton = button(t('replay.play'), '▷', () => this.togglePlay(), 'play');
    this.controls = h(
      'div',
      { class: 'replay-controls', role: 'group', 'aria-label': t('replay.controls') },
      button(t('replay.first'), '|◀', () => this.go(0), 'first'),
      button(t('replay.previous'), '◀', () => this.go(this.step - 1), 'previous'),
      this.playButton,
      button(t('replay.next'), '▶', () => this.go(this.step + 1), 'next'),
      button(t('replay.last'), '▶|', () => this.go(this.entries.length), 'last'),
      this.slider,
      this.counter,
    );
    this.results = h('div', { class: 'results-slot' });
    replace(
      this.root,
      h(
        'div',
        { class: 'game replay' },
        h('header', { class: 'game-header' }, h('h1', { class: 'game-title' }, t('replay.title'), ' · ', h('span', { class: 'game-id' }, this.gameId))),
        this.controls,
        this.note,
        h('div', { class: 'game-layout' }, h('div', { class: 'game-main' }, this.board.element, this.board.tableRow, this.results), h('aside', { class: 'game-side' }, this.story.element, this.board.seatColumn, h('section', { class: 'log' }, h('h2', {}, t('log.title')), this.logList))),
      ),
    );
    this.root.addEventListener('keydown', (event) => {
      if (event.target instanceof HTMLInputElement && event.target.type !== 'range') return;
      if (event.key === 'ArrowRight' && event.target !== this.slider) this.go(this.step + 1);
      if (event.key === 'ArrowLeft' && event.target !== this.slider) this.go(this.step - 1);
    });
    this.offLanguage = onLanguageChange(async () => {
      await loadCatalogue(this.rulesetId, this.game.ruleset_hash);
      this.seats = localSeats(this.finalView.seats || this.game.seats || []);
      this.story.seats = this.seats;
      this.board.renderToolbar();
      this.story.renderTexts();
      this.go(this.step, { force: true });
    });
    await this.go(0, { force: true });
  }

  togglePlay() {
    if (this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.playButton.textContent = '▷';
      this.playButton.setAttribute('aria-label', t('replay.play'));
      return;
    }
    if (this.step >= this.entries.length) this.go(0);
    this.playButton.textContent = '❚❚';
    this.playButton.setAttribute('aria-label', t('replay.pause'));
    this.timer = setInterval(() => {
      // The next step waits until this one's story has played.
      if (this.story.busy) return;
      if (this.step >= this.entries.length) this.togglePlay();
      else this.go(this.step + 1);
    }, 1200);
  }

  /** Shows the game after `step` log entries (0: the start). */
  async go(step, { force = false } = {}) {
    step = Math.max(0, Math.min(this.entries.length, step));
    if (step === this.step && !force) return;
    const previous = this.step;
    this.step = step;
    this.slider.value = String(step);
    this.counter.textContent = t('replay.step', { n: step, total: this.entries.length });
    const shown = this.entries.slice(0, step);
    // Newest first; one item per step of each entry.
    this.logList.replaceChildren(...shown.flatMap((entry) => logEntry(entry, this.rulesetId, this.seats)).reverse());
    const current = shown[shown.length - 1];
    if (current && step === previous + 1) this.story.enqueue([current]);
    else this.story.clear();
    const version = current ? current.version : 0;
    const parts = await this.partsAt(version, step === this.entries.length);
    if (this.step !== step) return;
    this.board.show(parts, this.rulesetId, (s) => seatName(this.seats, s));
    if (step === this.entries.length && this.finalView.result) replace(this.results, resultsView(this.finalView.result, this.rulesetId, this.seats, null));
    else this.results.replaceChildren();
  }

  async partsAt(version, isLast) {
    if (isLast || this.boardAtVersion === false) {
      this.note.hidden = this.boardAtVersion !== false || isLast;
      return partsOf(this.finalView);
    }
    if (this.boardCache.has(version)) return this.boardCache.get(version);
    try {
      const view = await get(this.api(`/view?at=${version}`));
      if (view && view.version === version) {
        this.boardAtVersion = true;
        this.boardCache.set(version, partsOf(view));
        this.note.hidden = true;
        return partsOf(view);
      }
    } catch {
      // Fall through: the server cannot show past boards.
    }
    this.boardAtVersion = false;
    this.note.textContent = t('replay.no-past-board');
    this.note.hidden = false;
    return partsOf(this.finalView);
  }
}
