// Accounts, optional: sign up, sign in and out, add this browser's guest seats to the account
// (#/account), and My games on any device (#/my-games). The session is an HttpOnly cookie the
// page never sees; every change made with it sends the session's CSRF token in `X-CSRF-Token`.
// A seat of the account is taken to this device by asking the server for a fresh seat token
// (the seat's earlier token stops working), then played like any seat this browser holds.
// Passkeys: an account may be made with one instead of a password, add more, and sign in with
// one (named, or any this device holds); the browser's WebAuthn calls get the server's options
// with their binary fields turned from base64url into bytes, and answer the same way back.
// The language chosen in the page is the account's (mails are written in it).

import { api, ApiError, get } from './api.js';
import { errorText, h, replace, toast } from './dom.js';
import { clockBadge, paceLabel } from './clocks.js';
import { language, loadCatalogue, locale, onLanguageChange, t } from './i18n.js';
import { localSeats } from './seatnames.js';
import { myGames as heldGames, saveSeat } from './store.js';
import { markNoticesSeen, mountNoticeSettings } from './notices.js';

/** The account this page last saw signed in (its language and CSRF token), or null. */
let knownAccount = null;

/** The signed-in account and its CSRF token, or null. */
export async function currentAccount() {
  try {
    knownAccount = await get('/api/me');
  } catch (err) {
    knownAccount = null;
    if (err instanceof ApiError && err.status === 403) return null;
    throw err;
  }
  return knownAccount;
}

// A language chosen while signed in becomes the account's: its mails are written in it.
onLanguageChange((code) => {
  const me = knownAccount;
  if (!me || me.account.language === code) return;
  me.account.language = code;
  api('PUT', '/api/me/language', { body: { language: code }, headers: { 'X-CSRF-Token': me.csrf_token } }).catch(() => {});
});

/** Bytes from base64url (the server's encoding of WebAuthn's binary fields). */
function fromBase64url(text) {
  const plain = text.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(plain.padEnd(Math.ceil(plain.length / 4) * 4, '=')), (c) => c.charCodeAt(0));
}

/** Base64url without padding of an ArrayBuffer (or none). */
function toBase64url(buffer) {
  if (!buffer) return null;
  let binary = '';
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Whether this page may use passkeys (a browser with WebAuthn, in a secure context). */
export function passkeysAvailable() {
  return typeof window.PublicKeyCredential === 'function' && window.isSecureContext && !!navigator.credentials;
}

/** Makes a passkey from the server's creation options; its answer for the server. */
async function createPasskey(options) {
  const publicKey = { ...options.publicKey };
  publicKey.challenge = fromBase64url(publicKey.challenge);
  publicKey.user = { ...publicKey.user, id: fromBase64url(publicKey.user.id) };
  publicKey.excludeCredentials = (publicKey.excludeCredentials || []).map((c) => ({ ...c, id: fromBase64url(c.id) }));
  const made = await navigator.credentials.create({ publicKey });
  return {
    id: made.id,
    rawId: toBase64url(made.rawId),
    type: made.type,
    response: { attestationObject: toBase64url(made.response.attestationObject), clientDataJSON: toBase64url(made.response.clientDataJSON) },
    extensions: {},
  };
}

/** Signs with a passkey for the server's request options; its answer for the server. */
async function usePasskey(options) {
  const publicKey = { ...options.publicKey };
  publicKey.challenge = fromBase64url(publicKey.challenge);
  publicKey.allowCredentials = (publicKey.allowCredentials || []).map((c) => ({ ...c, id: fromBase64url(c.id) }));
  const used = await navigator.credentials.get({ publicKey });
  return {
    id: used.id,
    rawId: toBase64url(used.rawId),
    type: used.type,
    response: {
      authenticatorData: toBase64url(used.response.authenticatorData),
      clientDataJSON: toBase64url(used.response.clientDataJSON),
      signature: toBase64url(used.response.signature),
      userHandle: toBase64url(used.response.userHandle),
    },
    extensions: {},
  };
}

/** The text of a refused passkey ceremony (the browser's own refusals included). */
function passkeyRefusal(err) {
  if (err instanceof ApiError && err.status === 400) return t('account.passkey-needs-name');
  if (err instanceof ApiError && err.status !== 403) return refusal(err);
  return t('account.passkey-failed');
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
  const passkeyIn = h('button', { type: 'button', class: 'secondary', 'data-action': 'passkey-sign-in' }, t('account.passkey-sign-in'));
  const passkeyUp = h('button', { type: 'button', class: 'secondary', 'data-action': 'passkey-sign-up' }, t('account.passkey-sign-up'));
  const canPasskey = passkeysAvailable();
  const form = h(
    'form',
    { class: 'panel account-form' },
    h('h1', {}, t('account.title')),
    h('p', { class: 'hint' }, t('account.intro')),
    field('account-name', t('account.name'), name, t('account.name-hint')),
    field('account-password', t('account.password'), password, t('account.password-hint')),
    error,
    h('p', {}, signIn, ' ', signUp),
    h('h2', {}, t('account.passkeys-title')),
    h('p', { class: 'hint', id: 'passkey-hint' }, canPasskey ? t('account.passkey-hint') : t('account.passkey-unsupported')),
    canPasskey ? h('p', {}, passkeyIn, ' ', passkeyUp) : null,
  );
  const buttons = [signIn, signUp, passkeyIn, passkeyUp];
  const busy = (on) => {
    for (const button of buttons) button.disabled = on;
  };
  const failed = (text) => {
    error.textContent = text;
    error.hidden = false;
    busy(false);
  };
  // A passkey ceremony: the server's options, the browser's passkey dialog, the answer.
  const withPasskey = async (start, body, finish, make) => {
    busy(true);
    error.hidden = true;
    let started;
    try {
      started = await api('POST', start, { body });
    } catch (err) {
      failed(passkeyRefusal(err));
      return;
    }
    try {
      const credential = await make(started.options);
      onSignedIn(await api('POST', finish, { body: { ceremony: started.ceremony, credential } }));
    } catch (err) {
      failed(passkeyRefusal(err));
    }
  };
  passkeyIn.addEventListener('click', () => {
    const given = name.value.trim();
    if (given && !name.reportValidity()) return;
    withPasskey('/api/accounts/passkeys/sign-in', given ? { name: given } : {}, '/api/accounts/passkeys/sign-in/finish', usePasskey);
  });
  passkeyUp.addEventListener('click', () => {
    if (!name.reportValidity()) return;
    withPasskey('/api/accounts/passkeys/sign-up', { name: name.value, language: language() }, '/api/accounts/passkeys/sign-up/finish', createPasskey);
  });
  const submit = async (path) => {
    if (!form.reportValidity()) return;
    if (path === '/api/accounts' && password.value.length < 10) {
      error.textContent = t('account.password-hint');
      error.hidden = false;
      password.focus();
      return;
    }
    busy(true);
    try {
      const body = { name: name.value, password: password.value };
      if (path === '/api/accounts') body.language = language();
      const answer = await api('POST', path, { body });
      password.value = '';
      onSignedIn(answer);
    } catch (err) {
      failed(refusal(err));
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
    knownAccount = me;
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
    const passkeys = passkeySection(me);
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
        passkeys.section,
        h('p', {}, signOut),
      ),
    );
    passkeys.load();
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

/** The signed-in account's passkeys: the list, adding one, removing one. */
function passkeySection(me) {
  const list = h('ul', { class: 'passkey-list', 'aria-labelledby': 'passkeys-title' });
  const note = h('p', { class: 'hint' });
  const status = h('p', { class: 'form-status', role: 'status' });
  const add = h('button', { type: 'button', class: 'secondary', 'data-action': 'add-passkey' }, t('account.passkey-add'));
  const available = passkeysAvailable();
  const when = (ms) => new Date(Number(ms)).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' });
  const load = async () => {
    let answer;
    try {
      answer = await get('/api/me/passkeys');
    } catch (err) {
      status.textContent = errorText(err);
      return;
    }
    note.textContent = answer.has_password ? '' : t('account.no-password');
    note.hidden = answer.has_password;
    const rows = answer.passkeys.map((passkey) => {
      const created = when(passkey.created_at);
      const remove = h('button', { type: 'button', class: 'button small secondary', 'data-action': 'remove-passkey', 'aria-label': t('account.passkey-remove-label', { created }) }, t('account.passkey-remove'));
      remove.addEventListener('click', async () => {
        remove.disabled = true;
        try {
          await api('DELETE', `/api/me/passkeys/${encodeURIComponent(passkey.id)}`, { headers: { 'X-CSRF-Token': me.csrf_token } });
          status.textContent = t('account.passkey-removed');
          await load();
          add.focus();
        } catch (err) {
          status.textContent = err instanceof ApiError && err.status === 409 ? t('account.passkey-last') : errorText(err);
          remove.disabled = false;
        }
      });
      const used = passkey.last_used_at ? ` · ${t('account.passkey-used', { used: when(passkey.last_used_at) })}` : '';
      return h('li', { class: 'passkey-row', 'data-passkey': passkey.id }, h('span', {}, t('account.passkey-item', { created }), used), ' ', remove);
    });
    replace(list, rows.length ? rows : [h('li', { class: 'hint' }, t('account.passkeys-none'))]);
  };
  add.addEventListener('click', async () => {
    add.disabled = true;
    status.textContent = '';
    try {
      const started = await change('/api/me/passkeys/start', me.csrf_token);
      let credential;
      try {
        credential = await createPasskey(started.options);
      } catch {
        status.textContent = t('account.passkey-failed');
        add.disabled = false;
        return;
      }
      await change('/api/me/passkeys/finish', me.csrf_token, { ceremony: started.ceremony, credential });
      status.textContent = t('account.passkey-added');
      await load();
    } catch (err) {
      status.textContent = passkeyRefusal(err);
    }
    add.disabled = false;
  });
  const section = h(
    'section',
    { class: 'passkeys', 'aria-labelledby': 'passkeys-title' },
    h('h2', { id: 'passkeys-title' }, t('account.passkeys-title')),
    h('p', { class: 'hint' }, available ? t('account.passkey-hint-signed-in') : t('account.passkey-unsupported')),
    note,
    list,
    available ? h('p', {}, add) : null,
    status,
  );
  return { section, load };
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
  // A mail's link (#/my-games?game=ID&seat=N) opens its game at once: at the seat while it
  // runs, its replay once it is over.
  const wanted = new URLSearchParams(location.hash.split('?')[1] || '');
  const seat = wanted.has('seat') ? Number(wanted.get('seat')) : null;
  const target = wanted.get('game') && games.filter((g) => g.id === wanted.get('game')).sort((a, b) => (b.seat === seat) - (a.seat === seat) || (b.status === 'waiting') - (a.status === 'waiting'))[0];
  if (target && (target.status === 'waiting' || target.status === 'running')) {
    const button = root.querySelector(`.my-games [data-game="${CSS.escape(target.id)}"] [data-play]`);
    if (button) play(target, button);
  } else if (target && target.status === 'finished') {
    location.hash = `#/replay/${encodeURIComponent(target.id)}`;
  }
  return { destroy() {} };
}
