// The page's entry point: the header (navigation and language switch) and the hash router.
// Routes: #/ lobby (?ruleset=&map= preselect the new game), #/play/{id}?seat=n (or ?token=, the
// links of games made before invites), #/join/{id}?code= (an invite link), #/watch/{id},
// #/hotseat/{id}, #/replay/{id}, #/maps, #/lab (?ruleset=&map= preselect, ?job= follows a job),
// #/editor?ruleset=&map= (the map editor, starting from that map; &blank=1: from the ruleset's
// empty map), #/account (sign up, in and out; add this browser's seats), #/my-games, #/ratings
// (?ruleset=&players= pick a ladder).

import { h, replace, toast } from './dom.js';
import { initI18n, language, LANGUAGES, onLanguageChange, setLanguage, t } from './i18n.js';
import { mountAccount, mountMyGames } from './account.js';
import { mountGame } from './game.js';
import { mountJoin } from './invites.js';
import { mountLab } from './lab.js';
import { mountLobby } from './lobby.js';
import { mountMaps } from './maps.js';
import { refreshNotices, showCount, startNotices } from './notices.js';
import { mountRatings } from './ratings.js';
import { mountEditor } from './editor.js';
import { mountReplay } from './replay.js';

const app = document.getElementById('app');
let current = null;
let routeCounter = 0;

/** Splits the hash into path parts and query parameters. */
function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = raw.split('?');
  return { parts: path.split('/').filter(Boolean).map(decodeURIComponent), params: new URLSearchParams(query) };
}

async function route() {
  const mine = ++routeCounter;
  if (current && current.destroy) current.destroy();
  current = null;
  const { parts, params } = parseHash();
  const [page, id] = parts;
  // Notices belong to the screen that raised them.
  document.getElementById('toasts')?.replaceChildren();
  renderHeader(page || 'lobby');
  refreshNotices();
  // Each route draws into a root of its own, put in the page at once: a screen that finishes
  // loading after the reader has moved on draws into its detached root, never over the next
  // screen (regression_slow_screen_drew_over_the_next).
  const root = h('div', { class: 'screen' });
  replace(app, root);
  let screen;
  try {
    if (!page) screen = await mountLobby(root, { ruleset: params.get('ruleset'), map: params.get('map') });
    else if (page === 'play' && id) screen = await mountGame(root, { gameId: id, mode: 'play', token: params.get('token'), seat: params.has('seat') ? Number(params.get('seat')) : null });
    else if (page === 'join' && id) screen = await mountJoin(root, { gameId: id, code: params.get('code') });
    else if (page === 'watch' && id) screen = await mountGame(root, { gameId: id, mode: 'watch' });
    else if (page === 'hotseat' && id) screen = await mountGame(root, { gameId: id, mode: 'hotseat' });
    else if (page === 'replay' && id) screen = await mountReplay(root, { gameId: id });
    else if (page === 'lab') screen = await mountLab(root, { ruleset: params.get('ruleset'), map: params.get('map'), job: params.get('job') });
    else if (page === 'editor') screen = await mountEditor(root, { ruleset: params.get('ruleset'), map: params.get('map'), blank: params.get('blank') === '1' });
    else if (page === 'account') screen = await mountAccount(root);
    else if (page === 'my-games') screen = await mountMyGames(root);
    else if (page === 'ratings') screen = await mountRatings(root, { ruleset: params.get('ruleset'), players: params.get('players') });
    else if (page === 'maps') screen = await mountMaps(root, { ruleset: params.get('ruleset'), map: params.get('map') });
    else replace(root, h('div', { class: 'panel' }, h('h1', {}, t('error.no-page')), h('a', { class: 'button', href: '#/' }, t('results.lobby'))));
  } catch (err) {
    toast(String(err && err.message ? err.message : err), 'error');
    console.error(err);
  }
  if (mine !== routeCounter) {
    if (screen && screen.destroy) screen.destroy();
    return;
  }
  current = screen;
}

function renderHeader(page) {
  const header = document.getElementById('topbar');
  const select = h('select', { id: 'language', 'aria-label': t('header.language') }, LANGUAGES.map(([code, name]) => h('option', { value: code, selected: code === language(), lang: code }, name)));
  select.addEventListener('change', () => setLanguage(select.value));
  const link = (href, label, name) => h('a', { href, 'aria-current': page === name ? 'page' : undefined }, label);
  replace(
    header,
    h('a', { class: 'brand', href: '#/' }, h('span', { class: 'brand-mark', 'aria-hidden': 'true' }), 'Tenka'),
    h('nav', { 'aria-label': t('header.navigation') }, link('#/', t('header.games'), 'lobby'), link('#/maps', t('header.maps'), 'maps'), link('#/lab', t('header.lab'), 'lab'), link('#/my-games', t('header.my-games'), 'my-games'), link('#/ratings', t('header.ratings'), 'ratings'), link('#/account', t('header.account'), 'account')),
    h('label', { class: 'language-switch' }, h('span', { class: 'language-label' }, t('header.language')), select),
  );
  showCount();
}

async function boot() {
  try {
    await initI18n();
  } catch (err) {
    replace(app, h('p', {}, `Tenka: ${err.message}`));
    return;
  }
  const skip = document.querySelector('.skip-link');
  if (skip) {
    skip.textContent = t('header.skip');
    // The hash is the router's: the skip link moves focus without changing it.
    skip.addEventListener('click', (event) => {
      event.preventDefault();
      app.focus();
    });
  }
  onLanguageChange(() => {
    // Notices already shown are in the old language.
    document.getElementById('toasts')?.replaceChildren();
    const { parts } = parseHash();
    renderHeader(parts[0] || 'lobby');
    if (skip) skip.textContent = t('header.skip');
    // Screens without their own language handling are simply drawn again (the lab keeps its
    // job in the address, so it picks it up again).
    if (!parts[0] || ['maps', 'lab', 'account', 'my-games', 'ratings'].includes(parts[0])) route();
  });
  window.addEventListener('hashchange', route);
  startNotices();
  await route();
}

boot();
