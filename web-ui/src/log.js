// The game log in plain words: one item per step (an event of the ruleset, with the battle-tower
// drops it explains), newest last; the seat that acted when an action showed no event.

import { h } from './dom.js';
import { t } from './i18n.js';
import { seatChip } from './seats.js';
import { entrySteps, stepCaption, summaryTable } from './story.js';
import { towerSummaryText, towerTable } from './tower.js';

/** One step of a log entry as a list item. */
export function logStep(step, rulesetId, seats) {
  const item = h('li', { class: 'log-entry', 'data-version': step.version, 'data-step': step.index });
  const head = h('div', { class: 'log-head' }, h('span', { class: 'log-version', title: t('log.version') }, `#${step.version}`));
  // The acting seat is named by the event itself; show it only for an entry without events.
  if (!step.text && step.seat !== undefined && step.seat !== null && !step.drops.length) head.append(seatChip(seats, step.seat));
  const caption = stepCaption(step, rulesetId, seats, 'div');
  caption.className = 'log-text';
  item.append(head, caption);
  for (const drop of step.drops) {
    item.append(
      h(
        'details',
        { class: 'log-tower' },
        h('summary', {}, h('span', { class: 'tower-icon', 'aria-hidden': 'true' }, '▥'), ' ', towerSummaryText(drop, rulesetId, seats)),
        towerTable(drop, rulesetId, seats),
      ),
    );
  }
  if (step.summary) {
    item.append(h('details', { class: 'log-summary' }, h('summary', {}, t('log.summary')), summaryTable(step.summary, rulesetId, seats)));
  }
  return item;
}

/** The items of one log entry, one per step. */
export function logEntry(entry, rulesetId, seats) {
  const items = entrySteps(entry).map((step) => logStep(step, rulesetId, seats));
  // A person's seat played by a bot (handed over, or out of time) says so on the entry's first step.
  const seat = (seats || []).find((s) => s && s.seat === entry.seat);
  if (entry.bot && items.length && seat && seat.kind === 'human') {
    items[0].querySelector('.log-head').append(h('span', { class: 'tag log-bot', title: t('log.by-bot', { bot: entry.bot }) }, t('game.bot')));
  }
  return items;
}

/** A log list: appends entries, skipping versions it already shows. */
export class LogView {
  constructor(rulesetId, seats) {
    this.rulesetId = rulesetId;
    this.seats = seats;
    this.entries = [];
    this.list = h('ol', { class: 'log-list', 'aria-relevant': 'additions' });
    this.element = h('section', { class: 'log', 'aria-labelledby': 'log-title' }, h('h2', { id: 'log-title' }, t('log.title')), this.list);
  }

  /** Adds entries newer than the last shown; returns the ones added. */
  add(entries) {
    const last = this.entries.length ? this.entries[this.entries.length - 1].version : -Infinity;
    const fresh = (entries || []).filter((entry) => entry.version > last).sort((a, b) => a.version - b.version);
    const stick = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    for (const entry of fresh) {
      this.entries.push(entry);
      this.list.append(...logEntry(entry, this.rulesetId, this.seats));
    }
    if (fresh.length && stick) this.list.scrollTop = this.list.scrollHeight;
    if (!this.entries.length) this.list.replaceChildren(h('li', { class: 'log-empty' }, t('log.empty')));
    else this.list.querySelector('.log-empty')?.remove();
    return fresh;
  }

  /** Redraws every entry (after a language switch). */
  redraw(seats) {
    if (seats) this.seats = seats;
    const entries = this.entries;
    this.entries = [];
    this.list.replaceChildren();
    this.element.querySelector('h2').textContent = t('log.title');
    this.add(entries);
  }
}
