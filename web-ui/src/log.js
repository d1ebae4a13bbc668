// The game log in plain words: each entry's public (or the viewer's own) events, the seat that
// acted, and any battle-tower drops.

import { h, messageNode } from './dom.js';
import { t } from './i18n.js';
import { seatChip } from './seats.js';
import { towerSummaryText, towerTable } from './tower.js';

/** One log entry as a list item. */
export function logEntry(entry, rulesetId, seats) {
  const item = h('li', { class: 'log-entry', 'data-version': entry.version });
  const head = h('div', { class: 'log-head' }, h('span', { class: 'log-version', title: t('log.version') }, `#${entry.version}`));
  // The acting seat is named by the events themselves; show it only when there are none.
  if (entry.seat !== undefined && entry.seat !== null && !(entry.events || []).length) head.append(seatChip(seats, entry.seat));
  item.append(head);
  const events = h('ul', { class: 'log-events' });
  for (const event of entry.events || []) events.append(messageNode(rulesetId, event.text, seats, 'li'));
  if (events.children.length) item.append(events);
  for (const drop of entry.tower || []) {
    item.append(
      h(
        'details',
        { class: 'log-tower' },
        h('summary', {}, h('span', { class: 'tower-icon', 'aria-hidden': 'true' }, '▥'), ' ', towerSummaryText(drop, rulesetId, seats)),
        towerTable(drop, rulesetId, seats),
      ),
    );
  }
  return item;
}

/** A log list: appends entries, skipping versions it already shows. */
export class LogView {
  constructor(rulesetId, seats) {
    this.rulesetId = rulesetId;
    this.seats = seats;
    this.entries = [];
    this.list = h('ol', { class: 'log-list', 'aria-live': 'polite', 'aria-relevant': 'additions' });
    this.element = h('section', { class: 'log', 'aria-labelledby': 'log-title' }, h('h2', { id: 'log-title' }, t('log.title')), this.list);
  }

  /** Adds entries newer than the last shown; returns the ones added. */
  add(entries) {
    const last = this.entries.length ? this.entries[this.entries.length - 1].version : -Infinity;
    const fresh = (entries || []).filter((entry) => entry.version > last).sort((a, b) => a.version - b.version);
    const stick = this.list.scrollHeight - this.list.scrollTop - this.list.clientHeight < 40;
    for (const entry of fresh) {
      this.entries.push(entry);
      this.list.append(logEntry(entry, this.rulesetId, this.seats));
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
