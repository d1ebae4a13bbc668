// Ratings: the leaderboard page (#/ratings, ?ruleset=&players= pick a ladder), the lobby's "rated
// table" choice, and the ratings of the bot levels the lobby shows beside its bot choice. A
// ladder is one ruleset at one player count; accounts and bot levels stand on it together
// (bots are rated by `tenka arena --rate` and by the rated tables they sit at).

import { get } from './api.js';
import { errorText, h, replace } from './dom.js';
import { t } from './i18n.js';
import { botKindLabel } from './botlevels.js';

/** The ladder of `ruleset` at `players`, or null when the server has none (or no ratings). */
async function ladder(ruleset, players) {
  try {
    return await get(`/api/ratings?ruleset=${encodeURIComponent(ruleset)}&players=${encodeURIComponent(players)}`);
  } catch {
    return null;
  }
}

const ladderCache = new Map();

/**
 * The ratings of the bot levels on a ladder, as a Map level -> rating, fetched once per page
 * load and ladder; `onReady` is called when they arrive (not at all if none is known).
 */
export function botRatings(ruleset, players, onReady) {
  const key = `${ruleset}/${players}`;
  if (!ladderCache.has(key)) {
    ladderCache.set(
      key,
      ladder(ruleset, players).then((found) => new Map(((found && found.entries) || []).filter((entry) => entry.kind === 'bot').map((entry) => [entry.name, entry.rating]))),
    );
  }
  ladderCache.get(key).then((ratings) => {
    if (ratings.size) onReady(ratings);
  });
}

/** The lobby's "rated table" checkbox; `form.rated` holds the choice. */
export function ratedField(form) {
  const box = h('input', { type: 'checkbox', id: 'new-rated', 'data-rated': '', checked: !!form.rated });
  box.addEventListener('change', () => (form.rated = box.checked));
  return h('div', { class: 'field rated-field' }, h('label', { for: 'new-rated' }, box, ' ', t('ratings.rated-table')), h('p', { class: 'hint' }, t('ratings.rated-hint')));
}

/** The problem with a rated choice: a rated table must be timed. */
export function ratedProblem(form, paceKind) {
  return form.rated && paceKind === 'untimed' ? t('ratings.error-untimed') : null;
}

/** Mounts the leaderboard page. */
export async function mountRatings(root, { ruleset, players }) {
  replace(root, h('p', { class: 'loading' }, t('common.loading')));
  let ladders;
  try {
    ladders = (await get('/api/ratings')).ladders || [];
  } catch (err) {
    replace(root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
    return {};
  }
  const chosen = ladders.find((l) => l.ruleset === ruleset && String(l.players) === String(players)) || ladders[0];
  const table = h('div', { class: 'ratings-table' });
  const select = h(
    'select',
    { id: 'ratings-ladder' },
    ladders.map((l) => h('option', { value: `${l.ruleset}/${l.players}`, selected: l === chosen }, t('ratings.ladder', { ruleset: l.ruleset, players: l.players }))),
  );
  const show = async (entry) => {
    if (!entry) {
      replace(table, h('p', { class: 'hint' }, t('ratings.none')));
      return;
    }
    const found = await ladder(entry.ruleset, entry.players);
    const rows = ((found && found.entries) || []).map((row, index) =>
      h(
        'tr',
        { 'data-rating-kind': row.kind },
        h('td', {}, String(index + 1)),
        h('th', { scope: 'row' }, row.kind === 'bot' ? botKindLabel(row.name) : row.name),
        h('td', {}, String(row.rating)),
        h('td', {}, `± ${Math.round(row.deviation * 2)}`),
        h('td', {}, String(row.games)),
      ),
    );
    replace(
      table,
      h(
        'table',
        { class: 'ratings' },
        h('caption', {}, t('ratings.ladder', { ruleset: entry.ruleset, players: entry.players })),
        h('thead', {}, h('tr', {}, ['ratings.place', 'ratings.player', 'ratings.rating', 'ratings.uncertainty', 'ratings.games'].map((key) => h('th', { scope: 'col' }, t(key))))),
        h('tbody', {}, rows),
      ),
    );
  };
  select.addEventListener('change', () => {
    const [rs, n] = select.value.split('/');
    history.replaceState(null, '', `#/ratings?ruleset=${encodeURIComponent(rs)}&players=${encodeURIComponent(n)}`);
    show(ladders.find((l) => l.ruleset === rs && String(l.players) === n));
  });
  replace(
    root,
    h(
      'div',
      { class: 'panel ratings-page' },
      h('h1', {}, t('ratings.title')),
      h('p', { class: 'hint' }, t('ratings.about')),
      ladders.length ? h('div', { class: 'field' }, h('label', { for: 'ratings-ladder' }, t('ratings.choose')), select) : null,
      table,
    ),
  );
  await show(chosen);
  return {};
}
