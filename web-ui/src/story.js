// What just happened, told one step at a time. A log entry (one action) may hold many steps: each
// event of the ruleset is a step, with the battle-tower drops it explains and perhaps a summary to
// pause on. Steps play in order, each drop animated under its event's caption; the next step
// waits until this one has played (or the player skips), at the pace the player chose, so bots'
// turns can be followed too. A summary pauses until the player acknowledges it.

import { h, messageNode, replace } from './dom.js';
import { locale, t } from './i18n.js';
import { seatChip } from './seats.js';
import { pref, setPref } from './store.js';
import { towerAnimation } from './tower.js';

/** Pace name -> how long each step lasts, relative to normal (0: no waiting at all). */
export const PACES = { slow: 1.7, normal: 1, fast: 0.4, instant: 0 };
const DROP_MS = 2400; // one drop: falling, landing, and time to read the numbers
const TEXT_MS = 900; // a step without drops: time to read its caption

function reducedMotion() {
  return typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;
}

/** The pace the player chose, else instant for people who asked for less motion, else normal. */
export function currentPace() {
  const stored = pref('pace', '');
  if (stored in PACES) return stored;
  return reducedMotion() ? 'instant' : 'normal';
}

/**
 * The steps of a log entry: one per event, each with its own drops (`events[i].drops` index the
 * entry's `tower`); drops no event names (rulesets before contract 0.2) follow as steps of their
 * own with a generic caption. An entry without events is one step naming the seat that acted.
 */
export function entrySteps(entry) {
  const events = entry.events || [];
  const tower = entry.tower || [];
  const used = new Set();
  const steps = events.map((event, index) => {
    const drops = (event.drops || []).filter((i) => Number.isInteger(i) && tower[i]);
    drops.forEach((i) => used.add(i));
    return { version: entry.version, seat: entry.seat, index, text: event.text || null, drops: drops.map((i) => tower[i]), summary: event.summary || null };
  });
  tower.forEach((drop, i) => {
    if (!used.has(i)) steps.push({ version: entry.version, seat: entry.seat, index: steps.length, text: null, drops: [drop], summary: null });
  });
  if (!steps.length) steps.push({ version: entry.version, seat: entry.seat, index: 0, text: null, drops: [], summary: null });
  return steps;
}

/** A step's caption as an element: its event's text, else what kind of step it was. */
export function stepCaption(step, rulesetId, seats, tag = 'p') {
  if (step.text) return messageNode(rulesetId, step.text, seats, tag);
  const el = h(tag, {});
  if (step.drops.length) el.append(t('story.battle'));
  else if (step.seat !== undefined && step.seat !== null) el.append(seatChip(seats, step.seat), ' ', t('story.acted'));
  else el.append(t('story.step'));
  return el;
}

/** The summary of a closed stage, as a table: seat, what, value. */
export function summaryTable(summary, rulesetId, seats) {
  return h(
    'table',
    { class: 'summary-table' },
    h(
      'tbody',
      {},
      // A seat's lines follow one another: its name heads the first of them only.
      (summary.lines || []).map((line, index, lines) => {
        const sameSeat = index > 0 && lines[index - 1].seat === line.seat;
        const hasSeat = line.seat !== null && line.seat !== undefined;
        return h(
          'tr',
          { 'data-seat': line.seat ?? '', class: sameSeat ? 'same-seat' : 'first-of-seat' },
          h('th', { scope: 'row' }, hasSeat && !sameSeat ? seatChip(seats, line.seat) : ''),
          h('td', {}, messageNode(rulesetId, line.label, seats)),
          h('td', { class: 'num' }, line.value === null || line.value === undefined ? '' : Number(line.value).toLocaleString(locale())),
        );
      }),
    ),
  );
}

/**
 * The story panel: plays steps in order into `element`. `onIdle()` is called whenever the queue
 * runs empty (the game screen shows the newest board then). `dialogHost` receives the summary
 * dialog. With `keepDrops` (the replay) the last drop of an entry stays shown, at rest, after its
 * steps have played (also at the instant pace), so a step of the replay always shows its battle.
 */
export class Story {
  constructor({ rulesetId, seats, onIdle, onStep, dialogHost, heading = true, keepDrops = false }) {
    this.keepDrops = keepDrops;
    // Called with each step as it is told and with null when it ends (the replay keeps its last
    // step's marks); returns {inset, places, known}: a small map of the step's places, the places
    // marked and those of the message that the map knows.
    this.onStep = onStep || (() => null);
    this.stageVersion = null;
    this.rulesetId = rulesetId;
    this.seats = seats;
    this.onIdle = onIdle || (() => {});
    this.dialogHost = dialogHost || document.body;
    this.queue = [];
    this.running = false;
    this.wake = null;
    this.skipping = false;
    this.generation = 0;
    this.caption = h('div', { class: 'story-caption', 'aria-live': 'polite', 'aria-atomic': 'true' });
    this.stage = h('div', { class: 'story-stage' });
    this.inset = h('div', { class: 'story-inset-slot' });
    this.left = h('span', { class: 'story-left' });
    this.paceSelect = h('select', { class: 'story-pace', 'data-pace': '' });
    this.paceSelect.addEventListener('change', () => {
      setPref('pace', this.paceSelect.value);
      if (this.paceSelect.value === 'instant') this.skip();
    });
    this.skipButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'story-skip', onclick: () => this.skip() });
    this.skipAllButton = h('button', { type: 'button', class: 'secondary', 'data-action': 'story-skip-all', onclick: () => this.skipAll() });
    this.paceLabel = h('label', { class: 'story-pace-label' });
    this.title = heading ? h('h2', { id: 'story-title' }) : null;
    this.element = h(
      'section',
      { class: 'story', 'aria-labelledby': heading ? 'story-title' : undefined, hidden: true },
      this.title,
      h('div', { class: 'story-told' }, this.caption, this.inset),
      this.stage,
      h('div', { class: 'story-controls' }, this.left, this.skipButton, this.skipAllButton, this.paceLabel),
    );
    this.renderTexts();
  }

  renderTexts() {
    if (this.title) this.title.textContent = t('story.title');
    this.skipButton.textContent = t('story.skip');
    this.skipAllButton.textContent = t('story.skip-all');
    const pace = currentPace();
    replace(this.paceSelect, Object.keys(PACES).map((name) => h('option', { value: name, selected: name === pace }, t(`story.pace-${name}`))));
    replace(this.paceLabel, h('span', {}, t('story.pace')), ' ', this.paceSelect);
    this.updateLeft();
  }

  get busy() {
    return this.running || this.queue.length > 0;
  }

  /** Adds the steps of new log entries and starts playing if idle. */
  enqueue(entries) {
    for (const entry of entries || []) this.queue.push(...entrySteps(entry));
    if (this.queue.length && !this.running) this.run();
  }

  /** Drops everything not yet shown (a hot-seat hand-over: the next viewer must not see it). */
  clear() {
    this.generation += 1;
    this.queue = [];
    this.running = false;
    this.skipping = false;
    this.skip();
    if (this.dialog && this.dialog.open) this.dialog.close();
    this.caption.replaceChildren();
    this.stage.replaceChildren();
    this.inset.replaceChildren();
    this.onStep(null);
    this.stageVersion = null;
    this.element.classList.remove('keep-stage');
    this.element.hidden = true;
  }

  /** Ends the current step now. */
  skip() {
    if (this.wake) this.wake();
  }

  /** Shows every queued step at once, pausing only on summaries. */
  skipAll() {
    this.skipping = true;
    this.skip();
  }

  updateLeft() {
    this.left.textContent = this.queue.length ? t('story.left', { n: this.queue.length }) : '';
    this.skipButton.disabled = !this.running;
    this.skipAllButton.disabled = !this.queue.length;
  }

  sleep(ms) {
    if (ms <= 0 || this.skipping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = () => {
        this.wake = null;
        done();
      };
    });
  }

  async run() {
    this.running = true;
    const generation = this.generation;
    while (this.queue.length && generation === this.generation) {
      const step = this.queue.shift();
      await this.play(step, generation);
    }
    if (generation !== this.generation) return;
    this.running = false;
    this.skipping = false;
    this.updateLeft();
    this.element.classList.toggle('keep-stage', this.keepDrops && this.stage.childElementCount > 0);
    this.element.classList.add('idle');
    this.onIdle();
  }

  async play(step, generation) {
    const factor = PACES[currentPace()] ?? 1;
    const quick = factor === 0 || this.skipping;
    this.element.hidden = false;
    this.element.classList.remove('idle');
    this.updateLeft();
    const caption = stepCaption(step, this.rulesetId, this.seats, 'p');
    caption.classList.add('story-text');
    caption.dataset.version = String(step.version);
    caption.dataset.step = String(step.index);
    replace(this.caption, caption);
    const told = this.onStep(step) || {};
    this.inset.replaceChildren(...(told.inset ? [told.inset] : []));
    // For tests and scripts: every caption shown, in order, with the places it marked.
    if (typeof window !== 'undefined') {
      window.tenkaCaptions = window.tenkaCaptions || [];
      window.tenkaCaptions.push({
        version: step.version,
        step: step.index,
        key: step.text ? step.text.key : null,
        text: caption.textContent,
        drops: step.drops.length,
        places: told.places || [],
        known: told.known || [],
      });
    }
    if (step.drops.length) {
      for (let i = 0; i < step.drops.length && generation === this.generation; i += 1) {
        const counter = step.drops.length > 1 ? h('p', { class: 'story-drop-count' }, t('story.drop-of', { n: i + 1, total: step.drops.length })) : null;
        const duration = quick ? 0 : Math.round(DROP_MS * 0.65 * factor);
        const figure = towerAnimation(step.drops[i], this.rulesetId, this.seats, { duration });
        if (quick) figure.classList.add('no-motion');
        replace(this.stage, h('h3', { class: 'story-tower-title' }, t('tower.title')), counter, figure);
        this.stageVersion = step.version;
        await this.sleep(quick ? 0 : DROP_MS * factor);
      }
    } else {
      // The replay keeps the entry's last drop under the captions that follow it.
      if (!(this.keepDrops && this.stageVersion === step.version)) {
        this.stage.replaceChildren();
        this.stageVersion = null;
      }
      if (step.text) await this.sleep(quick ? 0 : TEXT_MS * factor);
    }
    if (step.summary && generation === this.generation) await this.pause(step.summary);
    // The step's marks go with it; the replay keeps the last step's while that step is shown.
    if (generation === this.generation && !(this.keepDrops && !this.queue.length)) {
      this.inset.replaceChildren();
      this.onStep(null);
    }
  }

  /** Shows a summary as a dialog and waits until the player acknowledges it. */
  pause(summary) {
    const skippingBefore = this.skipping;
    return new Promise((resolve) => {
      const button = h('button', { type: 'submit', class: 'primary big', 'data-action': 'summary-continue' }, t('story.continue'));
      const dialog = h(
        'dialog',
        // The title's key names which stage closed, for tests and styles (never shown).
        { class: 'summary-dialog', 'aria-labelledby': 'summary-title', 'data-summary': (summary.title && summary.title.key) || '' },
        h('form', { method: 'dialog' }, messageNode(this.rulesetId, summary.title, this.seats, 'h2'), summaryTable(summary, this.rulesetId, this.seats), h('p', { class: 'summary-actions' }, button)),
      );
      dialog.querySelector('h2').id = 'summary-title';
      this.dialog = dialog;
      this.dialogHost.append(dialog);
      dialog.addEventListener('close', () => {
        dialog.remove();
        this.skipping = skippingBefore;
        resolve();
      });
      dialog.showModal();
      button.focus();
    });
  }
}
