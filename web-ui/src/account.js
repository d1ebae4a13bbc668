// Accounts, optional: sign up, sign in and out, add this browser's guest seats to the account
// (#/account), and My games on any device (#/my-games). The session is an HttpOnly cookie the
// page never sees; every change made with it sends the session's CSRF token in `X-CSRF-Token`.
// A seat of the account is taken to this device by asking the server for a fresh seat token
// (the seat's earlier token stops working), then played like any seat this browser holds.

import { api, ApiError, get } from './api.js';
import { errorText, h, replace, toast } from './dom.js';
import { clockBadge, paceLabel } from './clocks.js';
import { loadCatalogue, locale, t } from './i18n.js';
import { localSeats } from './seatnames.js';
import { myGames as heldGames, saveSeat } from './store.js';
import { markNoticesSeen, mountNoticeSettings } from './notices.js';

/** The signed-in account and its CSRF token, or null. */
export async function currentAccount() {
  try {
    return await get('/api/me');
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) return null;
    throw err;
  }
}

/** A change made with the session cookie. */
function change(path, csrf, body) {
  return api('POST', path, { body, headers: { 'X-CSRF-Token': csrf } });
}

/** A labelled input with its hint. */
function field(id, label, input, hint) {
  const hintId = `${id}-hint`;
  input.id = id;
  if (hint) input.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: id }, label), input, hint ? h('p', { class: 'hint', id: hintId }, hint) : null);
}

/** The text of a refused sign-in or sign-up. */
function refusal(err) {
  if (err instanceof ApiError) {
    if (err.status === 429) return t('account.throttled');
    if (err.status === 409) return t('account.taken');
    if (err.status === 403) return t('account.wrong');
    if (err.status === 400) return t('account.bad-input');
  }
  return errorText(err);
}

/** The sign-in and sign-up form. */
function signInForm(onSignedIn) {
  const name = h('input', { type: 'text', autocomplete: 'username', minlength: 3, maxlength: 32, required: true, pattern: '[A-Za-z0-9][A-Za-z0-9._\\-]*' });
  const password = h('input', { type: 'password', autocomplete: 'current-password', minlength: 1, maxlength: 128, required: true });
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const signIn = h('button', { type: 'submit', class: 'primary', 'data-action': 'sign-in' }, t('account.sign-in'));
  const signUp = h('button', { type: 'button', class: 'secondary', 'data-action': 'sign-up' }, t('account.sign-up'));
  const form = h(
    'form',
    { class: 'panel account-form' },
    h('h1', {}, t('account.title')),
    h('p', { class: 'hint' }, t('account.intro')),
    field('account-name', t('account.name'), name, t('account.name-hint')),
    field('account-password', t('account.password'), password, t('account.password-hint')),
    error,
    h('p', {}, signIn, ' ', signUp),
  );
  const submit = async (path) => {
    if (!form.reportValidity()) return;
    if (path === '/api/accounts' && password.value.length < 10) {
      error.textContent = t('account.password-hint');
      error.hidden = false;
      password.focus();
      return;
    }
    signIn.disabled = true;
    signUp.disabled = true;
    try {
      const answer = await api('POST', path, { body: { name: name.value, password: password.value } });
      password.value = '';
      onSignedIn(answer);
    } catch (err) {
      error.textContent = refusal(err);
      error.hidden = false;
      signIn.disabled = false;
      signUp.disabled = false;
    }
  };
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    submit('/api/accounts/sign-in');
  });
  signUp.addEventListener('click', () => {
    password.setAttribute('autocomplete', 'new-password');
    submit('/api/accounts');
  });
  return { form, focus: () => name.focus() };
}

/** Mounts the account page: the form, or the signed-in account with its actions. */
export async function mountAccount(root) {
  replace(root, h('p', { class: 'loading' }, t('common.loading')));
  const show = (me) => {
    if (!me) {
      const { form, focus } = signInForm((answer) => {
        toast(t('account.signed-in-as', { name: answer.account.name }), 'ok');
        show(answer);
      });
      replace(root, form);
      focus();
      return;
    }
    const status = h('p', { class: 'form-status', role: 'status' });
    const attach = h('button', { type: 'button', class: 'primary', 'data-action': 'attach-seats' }, t('account.attach'));
    const signOut = h('button', { type: 'button', class: 'secondary', 'data-action': 'sign-out' }, t('account.sign-out'));
    attach.addEventListener('click', async () => {
      const seats = heldGames().flatMap((game) => Object.values(game.seats || {}).map((token) => ({ game: game.id, token })));
      if (!seats.length) {
        status.textContent = t('account.attach-none');
        return;
      }
      attach.disabled = true;
      try {
        const added = [];
        // The server takes at most 64 seats a request.
        for (let start = 0; start < seats.length; start += 64) {
          const answer = await change('/api/me/seats', me.csrf_token, { seats: seats.slice(start, start + 64) });
          added.push(...answer.seats);
        }
        const count = (outcome) => added.filter((seat) => seat.outcome === outcome).length;
        status.textContent = t('account.attached', { added: count('attached') + count('already'), refused: count('refused') });
      } catch (err) {
        status.textContent = errorText(err);
      }
      attach.disabled = false;
    });
    signOut.addEventListener('click', async () => {
      signOut.disabled = true;
      try {
        await change('/api/accounts/sign-out', me.csrf_token);
        toast(t('account.signed-out'), 'ok');
        show(null);
      } catch (err) {
        status.textContent = errorText(err);
        signOut.disabled = false;
      }
    });
    replace(
      root,
      h(
        'section',
        { class: 'panel account-panel', 'aria-labelledby': 'account-title' },
        h('h1', { id: 'account-title' }, t('account.signed-in-as', { name: me.account.name })),
        h('p', {}, h('a', { class: 'button', href: '#/my-games' }, t('header.my-games'))),
        h('h2', {}, t('account.attach-title')),
        h('p', { class: 'hint' }, t('account.attach-hint')),
        h('p', {}, attach),
        status,
        h('p', {}, signOut),
      ),
    );
    mountNoticeSettings(root.querySelector('.account-panel'), me.csrf_token);
    attach.focus();
  };
  try {
    show(await currentAccount());
  } catch (err) {
    replace(root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
  }
  return { destroy() {} };
}

/** Mounts My games: the account's games, those waiting for it first. */
export async function mountMyGames(root) {
  replace(root, h('p', { class: 'loading' }, t('common.loading')));
  let me;
  let games;
  let rulesets;
  try {
    me = await currentAccount();
    if (!me) {
      replace(root, h('div', { class: 'panel' }, h('h1', {}, t('header.my-games')), h('p', {}, t('my-games.sign-in-first')), h('a', { class: 'button primary', href: '#/account' }, t('account.sign-in'))));
      return { destroy() {} };
    }
    [{ games }, rulesets] = await Promise.all([get('/api/me/games'), get('/api/rulesets')]);
    markNoticesSeen(me.csrf_token);
  } catch (err) {
    replace(root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
    return { destroy() {} };
  }
  await Promise.all([...new Set(games.map((g) => g.ruleset).filter(Boolean))].filter((id) => rulesets.some((r) => r.id === id)).map((id) => loadCatalogue(id).catch(() => {})));
  const when = (ms) => new Date(Number(ms)).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
  const heading = { waiting: t('my-games.waiting'), running: t('my-games.running'), finished: t('my-games.finished'), unavailable: t('my-games.unavailable') };
  const play = async (game, button) => {
    button.disabled = true;
    try {
      const taken = await change(`/api/me/games/${encodeURIComponent(game.id)}/seats/${game.seat}/token`, me.csrf_token);
      saveSeat(game.id, taken.seat, taken.token, { ruleset: game.ruleset });
      location.hash = `#/play/${encodeURIComponent(game.id)}?seat=${taken.seat}`;
    } catch (err) {
      toast(errorText(err), 'error');
      button.disabled = false;
    }
  };
  // The seat's place when the result ranks it, else the plain "Finished".
  const finishedPlace = (game) => {
    const placings = (game.result && game.result.placings) || [];
    const mine = placings.find((p) => p.seat === game.seat);
    const text = mine ? t('my-games.place', { rank: mine.rank, count: placings.length }) : heading.finished;
    return h('span', { class: `badge finished${mine && mine.rank === 1 ? ' winner' : ''}` }, text);
  };
  const row = (game) => {
    const ruleset = rulesets.find((r) => r.id === game.ruleset);
    // Who else sits at the table, so that two games of one ruleset can be told apart.
    const seats = localSeats(game.seats || []);
    const others = seats.filter((s) => s.seat !== game.seat).map((s) => s.name).filter(Boolean);
    const mine = seats.find((s) => s.seat === game.seat);
    const links = [];
    if (game.status === 'waiting' || game.status === 'running') {
      const button = h('button', { type: 'button', class: 'button small', 'data-play': game.id }, t('my-games.play'));
      button.addEventListener('click', () => play(game, button));
      links.push(button);
    }
    if (game.status === 'finished') links.push(h('a', { class: 'button small secondary', href: `#/replay/${encodeURIComponent(game.id)}` }, t('lobby.replay')));
    return h(
      'li',
      { class: 'game-row', 'data-game': game.id, 'data-status': game.status },
      h('span', { class: 'game-what' }, ruleset ? ruleset.name : game.ruleset || game.id, mine && mine.name ? ` · ${t('my-games.seat', { name: mine.name })}` : ''),
      others.length ? h('span', { class: 'game-who' }, t('my-games.against', { names: others.join(', ') })) : null,
      game.pace && game.pace.kind !== 'untimed' ? h('span', { class: 'game-pace' }, paceLabel(game.pace)) : null,
      game.status === 'finished' ? finishedPlace(game) : null,
      game.status === 'waiting' ? h('span', { class: 'game-when' }, t('my-games.waiting-since', { time: when(game.waiting_since) })) : null,
      game.status === 'waiting' || game.status === 'running' ? clockBadge(game.clocks, game.seat) : null,
      h('span', { class: 'game-links' }, links),
    );
  };
  const sections = ['waiting', 'running', 'finished', 'unavailable']
    .map((status) => [status, games.filter((g) => g.status === status)])
    .filter(([, list]) => list.length)
    .map(([status, list]) => h('section', { 'aria-labelledby': `my-${status}` }, h('h2', { id: `my-${status}` }, heading[status]), h('ul', { class: 'game-list' }, list.map(row))));
  replace(
    root,
    h('div', { class: 'panel my-games' }, h('h1', {}, t('header.my-games')), sections.length ? sections : h('p', { class: 'hint' }, t('my-games.empty')), h('p', {}, h('a', { href: '#/account' }, t('header.account')))),
  );
  return { destroy() {} };
}
