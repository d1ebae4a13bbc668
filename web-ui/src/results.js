// The final results: places, scores, tie-breaks, and the score breakdown by label and seat.

import { h, messageNode } from './dom.js';
import { hasKey, messageText, t } from './i18n.js';
import { seatChip, seatName } from './seats.js';

/** What the tie-breaks are: the ruleset's own words when its catalogue has them. */
function tieBreaksLabel(rulesetId) {
  for (const key of ['results.tie-breaks', 'result.tie-breaks', 'tie-breaks']) {
    if (hasKey(rulesetId, key)) return messageText(rulesetId, { key }, () => '');
  }
  return t('results.tie-breaks');
}

/** The results section for a finished game's `result` (placings, breakdown, summary). */
export function resultsView(result, rulesetId, seats, gameId) {
  const placings = [...(result.placings || [])].sort((a, b) => a.rank - b.rank || a.seat - b.seat);
  const medal = (rank) => (rank === 1 ? '★' : '');
  const ranking = h(
    'table',
    { class: 'results-table' },
    h('caption', {}, t('results.ranking')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('results.rank')), h('th', { scope: 'col' }, t('results.player')), h('th', { scope: 'col' }, t('results.score')), h('th', { scope: 'col' }, tieBreaksLabel(rulesetId)))),
    h(
      'tbody',
      {},
      placings.map((p) =>
        h(
          'tr',
          { class: p.rank === 1 ? 'winner' : '', 'data-seat': p.seat },
          h('td', {}, `${medal(p.rank)} ${p.rank}`),
          h('th', { scope: 'row' }, seatChip(seats, p.seat)),
          h('td', { class: 'num' }, String(p.score)),
          h('td', { class: 'num' }, (p.tie_breaks || []).join(' · ')),
        ),
      ),
    ),
  );
  const section = h('section', { class: 'results', 'aria-labelledby': 'results-title' }, h('h2', { id: 'results-title' }, t('results.title')));
  if (result.summary) section.append(messageNode(rulesetId, result.summary, seats, 'p'));
  section.append(h('div', { class: 'table-scroll' }, ranking));
  const breakdown = result.breakdown || [];
  if (breakdown.length) {
    const order = placings.map((p) => p.seat);
    const labels = [];
    const cells = new Map();
    for (const line of breakdown) {
      const label = messageText(rulesetId, line.label, (s) => seatName(seats, s));
      if (!labels.includes(label)) labels.push(label);
      const key = `${label}\u0000${line.seat}`;
      cells.set(key, (cells.get(key) || 0) + Number(line.points));
      if (!order.includes(line.seat)) order.push(line.seat);
    }
    const total = (seat) => breakdown.filter((line) => line.seat === seat).reduce((sum, line) => sum + Number(line.points), 0);
    section.append(
      h(
        'div',
        { class: 'table-scroll' },
        h(
          'table',
          { class: 'breakdown-table' },
          h('caption', {}, t('results.breakdown')),
          h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, ''), order.map((seat) => h('th', { scope: 'col' }, seatChip(seats, seat))))),
          h(
            'tbody',
            {},
            labels.map((label) => h('tr', {}, h('th', { scope: 'row' }, label), order.map((seat) => h('td', { class: 'num' }, String(cells.get(`${label}\u0000${seat}`) ?? '–'))))),
            h('tr', { class: 'total' }, h('th', { scope: 'row' }, t('results.total')), order.map((seat) => h('td', { class: 'num' }, String(total(seat))))),
          ),
        ),
      ),
    );
  }
  if (gameId) section.append(h('p', {}, h('a', { class: 'button', href: `#/replay/${encodeURIComponent(gameId)}` }, t('results.replay')), ' ', h('a', { class: 'button secondary', href: '#/' }, t('results.lobby'))));
  return section;
}
