// Invites: the links a game's creator sends (each holds a single-use code for one seat), the
// creator's controls over them (copy, revoke, new link) and the page a person opens from a link,
// where the code is exchanged once for the seat's own token.
//
// An invite code travels only in the URL's fragment (`#/join/{id}?code=`), which browsers never
// send to a server, and in the body of the POST that exchanges it. Codes are not kept: the server
// stores digests only, so showing a seat's link again means making a new code.

import { api, ApiError, get, post } from './api.js';
import { copyText, errorText, h, replace, toast } from './dom.js';
import { loadCatalogue, t } from './i18n.js';
import { seatChip, seatName } from './seats.js';
import { hostOf, saveSeat, seatsOf } from './store.js';

/** The link a person opens to take `seat` of a game: the code sits in the fragment. */
export function inviteLink(gameId, code) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(gameId)}?code=${encodeURIComponent(code)}`;
}

const seatPath = (gameId, seat) => `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/invite`;

/**
 * One seat's invite as its creator manages it: the link with Copy and Revoke while a code is
 * shown, a New link button otherwise. `state` is 'code' (with `code`), 'open' (a code was given
 * out earlier), 'closed' (no open code) or 'taken' (claimed: nothing to manage).
 */
export function inviteRow({ gameId, seats, seat, state, code }) {
  const row = h('li', { class: 'invite', 'data-invite-seat': seat });
  const host = hostOf(gameId);
  const show = (next, nextCode) => replace(row, ...parts(next, nextCode));
  const act = async (method, then) => {
    try {
      const answer = await (method === 'POST' ? post(seatPath(gameId, seat), undefined, host) : deleteInvite(gameId, seat, host));
      then(answer);
    } catch (err) {
      toast(errorText(err), 'error');
      if (err instanceof ApiError && err.status === 409) show('taken');
    }
  };
  const newLink = () =>
    h(
      'button',
      { type: 'button', class: 'secondary small', 'data-new-link': seat, onclick: () => act('POST', (answer) => show('code', answer.invite)) },
      t('lobby.new-link'),
    );
  const revoke = () =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'data-revoke': seat,
        onclick: () =>
          act('DELETE', () => {
            show('closed');
            toast(t('lobby.revoked'), 'ok');
          }),
      },
      t('lobby.revoke'),
    );
  const parts = (now, nowCode) => {
    const chip = seatChip(seats, seat);
    if (now === 'code') {
      const link = inviteLink(gameId, nowCode);
      const input = h('input', { type: 'text', readonly: true, value: link, 'aria-label': t('lobby.invite-for', { seat: seatName(seats, seat) }), 'data-invite': seat });
      input.addEventListener('focus', () => input.select());
      const copy = h('button', { type: 'button', class: 'secondary small', 'data-copy': seat, onclick: async () => toast((await copyText(link)) ? t('lobby.copied') : t('lobby.copy-failed'), 'ok') }, t('lobby.copy'));
      return [chip, input, copy, revoke()];
    }
    if (now === 'open') return [chip, h('span', { class: 'invite-state' }, t('lobby.seat-open')), newLink(), revoke()];
    if (now === 'closed') return [chip, h('span', { class: 'invite-state' }, t('lobby.seat-closed')), newLink()];
    return [chip, h('span', { class: 'invite-state' }, t('lobby.seat-taken'))];
  };
  show(state, code);
  return row;
}

const deleteInvite = (gameId, seat, host) => api('DELETE', seatPath(gameId, seat), { token: host });

/** The creator's invite controls for every person's seat of a game this browser does not play. */
export async function invitesPanel(gameId) {
  const host = hostOf(gameId);
  const panel = h('div', { class: 'invites-panel', 'data-invites-of': gameId });
  if (!host) return panel;
  try {
    const listed = await get(`/api/games/${encodeURIComponent(gameId)}/invites`, host);
    const mine = new Set(seatsOf(gameId).map((s) => s.seat));
    const rows = listed
      .filter((s) => s.kind === 'human' && !mine.has(s.seat))
      .map((s) => inviteRow({ gameId, seats: listed, seat: s.seat, state: s.claimed ? 'taken' : s.invite_open ? 'open' : 'closed' }));
    replace(panel, h('p', { class: 'hint' }, t('lobby.invites-hint')), rows.length ? h('ul', { class: 'invites' }, rows) : h('p', { class: 'hint' }, t('lobby.none')));
  } catch (err) {
    replace(panel, h('p', { class: 'hint' }, errorText(err)));
  }
  return panel;
}

/**
 * The page an invite link opens: asks for a name, then exchanges the code for the seat's token,
 * keeps the token (never the code) and goes on to the game.
 */
export async function mountJoin(root, { gameId, code }) {
  // The code leaves the address bar (and so the history) at once; it lives on in this page only.
  history.replaceState(null, '', `#/join/${encodeURIComponent(gameId)}`);
  replace(root, h('p', { class: 'loading' }, t('common.loading')));
  const watch = h('a', { class: 'button secondary', href: `#/watch/${encodeURIComponent(gameId)}` }, t('game.watch-instead'));
  let game;
  try {
    game = await get(`/api/games/${encodeURIComponent(gameId)}`);
  } catch (err) {
    replace(root, h('div', { class: 'panel error-panel' }, h('h1', {}, t('game.cannot-open')), h('p', {}, errorText(err)), h('a', { href: '#/', class: 'button' }, t('results.lobby'))));
    return { destroy() {} };
  }
  await loadCatalogue(game.ruleset, game.ruleset_hash);
  if (!code) {
    replace(root, h('div', { class: 'panel error-panel' }, h('h1', {}, t('join.bad-code')), h('p', {}, watch)));
    return { destroy() {} };
  }
  const input = h('input', { type: 'text', id: 'join-name', maxlength: 40, autocomplete: 'nickname', required: true });
  const error = h('p', { class: 'form-error', role: 'alert', hidden: true });
  const button = h('button', { type: 'submit', class: 'primary big', 'data-action': 'join' }, t('join.take'));
  const form = h(
    'form',
    { class: 'panel join-form' },
    h('h1', {}, t('join.title')),
    h('div', { class: 'field' }, h('label', { for: 'join-name' }, t('join.name')), input),
    error,
    h('p', {}, button, ' ', watch),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const name = input.value.trim();
    button.disabled = true;
    try {
      const joined = await post(`/api/games/${encodeURIComponent(gameId)}/join`, name ? { code, name } : { code });
      saveSeat(gameId, joined.seat, joined.token, { ruleset: game.ruleset });
      location.hash = `#/play/${encodeURIComponent(gameId)}?seat=${joined.seat}`;
    } catch (err) {
      error.textContent = err instanceof ApiError && err.status === 403 ? t('join.bad-code') : errorText(err);
      error.hidden = false;
      button.disabled = false;
    }
  });
  replace(root, form);
  input.focus();
  return { destroy() {} };
}
