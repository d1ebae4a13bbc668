// Invites: the links a game's creator sends (each holds a single-use code for one seat), the
// creator's controls over them (copy, revoke, new link; reopen a taken seat, hand a seat to a bot
// and take it back) and the page a person opens from a link, where the code is exchanged once for
// the seat's own token.
//
// An invite code travels only in the URL's fragment (`#/join/{id}?code=`), which browsers never
// send to a server, and in the body of the POST that exchanges it. Codes are not kept: the server
// stores digests only, so showing a seat's link again means making a new code.

import { api, ApiError, get, post } from './api.js';
import { BOT_LEVELS, botKindAbout, botKindLabel, tableBotLevel } from './botlevels.js';
import { copyText, errorText, h, replace, toast } from './dom.js';
import { loadCatalogue, t } from './i18n.js';
import { seatChip, seatName } from './seats.js';
import { hostOf, saveSeat, seatsOf } from './store.js';

/** The link a person opens to take `seat` of a game: the code sits in the fragment. */
export function inviteLink(gameId, code) {
  return `${location.origin}${location.pathname}#/join/${encodeURIComponent(gameId)}?code=${encodeURIComponent(code)}`;
}

const seatPath = (gameId, seat) => `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/invite`;
const seatAction = (gameId, seat, what) => `/api/games/${encodeURIComponent(gameId)}/seats/${seat}/${what}`;

/** A random key for one request and its retries, so a retry after a lost answer gets the same answer. */
export function retryKey() {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * One seat's invite as its creator manages it: the link with Copy and Revoke while a code is
 * shown, a New link button otherwise, and Reopen seat once a person has taken it (when its person
 * lost the seat's token or never got it). Every state also has Hand to a bot (or Take back from
 * the bot), so a seat whose person does not move never stops the game. `state` is 'code' (with
 * `code`), 'open' (a code was given out earlier), 'closed' (no open code) or 'taken' (claimed);
 * `bot` is the bot playing the seat now, if any.
 */
export function inviteRow({ gameId, seats, seat, state, code, bot = null }) {
  const row = h('li', { class: 'invite', 'data-invite-seat': seat });
  const host = hostOf(gameId);
  let botNow = bot;
  // The level a handed seat gets: the table's, unless the host picks another beside the button.
  let level = tableBotLevel(seats);
  let shown = [state, code];
  const show = (next, nextCode) => {
    shown = [next, nextCode];
    replace(row, ...parts(next, nextCode));
  };
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
  const reopen = () =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'data-reopen': seat,
        onclick: async () => {
          try {
            const answer = await post(seatAction(gameId, seat, 'reopen'), undefined, host);
            show('code', answer.invite);
            toast(t('lobby.reopened'), 'ok');
          } catch (err) {
            toast(errorText(err), 'error');
          }
        },
      },
      t('lobby.reopen'),
    );
  const botButton = () =>
    h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'data-seat-bot': seat,
        onclick: async () => {
          const wanted = botNow ? null : level;
          try {
            await post(seatAction(gameId, seat, 'bot'), { bot: wanted }, host);
            botNow = wanted;
            toast(t(wanted ? 'lobby.handed-to-bot' : 'lobby.taken-back'), 'ok');
            show(...shown);
          } catch (err) {
            toast(errorText(err), 'error');
          }
        },
      },
      t(botNow ? 'lobby.take-back' : 'lobby.to-bot'),
    );
  const levelSelect = () => {
    const select = h(
      'select',
      { class: 'small', 'data-seat-bot-level': seat, 'aria-label': t('lobby.bot-level'), title: botKindAbout(level) },
      BOT_LEVELS.map((choice) => h('option', { value: choice, title: botKindAbout(choice), selected: choice === level }, botKindLabel(choice))),
    );
    select.addEventListener('change', () => {
      level = select.value;
      select.title = botKindAbout(level);
    });
    return select;
  };
  const parts = (now, nowCode) => [...invitePart(now, nowCode), ...(botNow ? [h('span', { class: 'invite-state', 'data-seat-played-by-bot': seat }, t('lobby.seat-bot'))] : [levelSelect()]), botButton()];
  const invitePart = (now, nowCode) => {
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
    return [chip, h('span', { class: 'invite-state' }, t('lobby.seat-taken')), reopen()];
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
      .map((s) => inviteRow({ gameId, seats: listed, seat: s.seat, state: s.claimed ? 'taken' : s.invite_open ? 'open' : 'closed', bot: s.bot }));
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
    // One key for this join and its retry: when the answer is lost on the way (the connection
    // drops after the server gave the seat its token), the retry gets the same token back.
    const body = { code, idempotency_key: retryKey(), ...(name ? { name } : {}) };
    const path = `/api/games/${encodeURIComponent(gameId)}/join`;
    try {
      const joined = await post(path, body).catch((err) => {
        if (err instanceof ApiError && err.status === 0) return post(path, body);
        throw err;
      });
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
