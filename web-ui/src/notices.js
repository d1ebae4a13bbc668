// Notices in the page, for a signed-in account: "your turn", "a player was replaced" (or took the
// seat back), "the game ended". The page asks the server every little while; unseen notices show
// as "(n) Tenka" in the title and a count on the My games link, and, once the person allowed it
// by a click (never asked on load), as the browser's notifications. Opening My games marks them
// seen. The account's settings (an email address, which notices, reminders) live on the
// account page (mountNoticeSettings).

import { api, ApiError, get } from './api.js';
import { errorText, h, replace } from './dom.js';
import { t } from './i18n.js';

/** How often the page asks for notices, in milliseconds. */
const POLL_MS = 10000;
/** The newest notice this browser has shown as a browser notification. */
const SHOWN_KEY = 'tenka.notices.shown';

let unseen = 0;
let newest = 0;
let timer = null;
let asking = null;

/** The page's title without a count in front. */
function plainTitle() {
  return document.title.replace(/^\(\d+\)\s*/, '');
}

/** Puts the count of unseen notices in the title and on the My games link. */
export function showCount() {
  const title = plainTitle();
  document.title = unseen > 0 ? `(${unseen}) ${title}` : title;
  const link = document.querySelector('#topbar a[href="#/my-games"]');
  if (!link) return;
  link.querySelector('.notice-count')?.remove();
  if (unseen > 0) {
    link.append(' ', h('span', { class: 'badge notice-count', 'aria-label': t('notices.badge', { count: unseen }) }, String(unseen)));
  }
}

/** A notice's sentence. */
export function noticeText(notice) {
  const game = notice.game;
  const seat = notice.seat === null || notice.seat === undefined ? '' : notice.seat + 1;
  return t(`notices.${notice.kind}`, { game, seat });
}

/** Shows notices newer than the last shown as browser notifications, if allowed. */
function notifyBrowser(notices) {
  const last = Number(localStorage.getItem(SHOWN_KEY) || 0);
  const fresh = notices.filter((notice) => !notice.seen && notice.id > last);
  if (notices.length) localStorage.setItem(SHOWN_KEY, String(Math.max(last, ...notices.map((notice) => notice.id))));
  if (!('Notification' in window) || Notification.permission !== 'granted' || !document.hidden) return;
  for (const notice of fresh.slice(0, 3)) {
    const shown = new Notification('Tenka', { body: noticeText(notice), tag: `tenka-${notice.id}` });
    shown.addEventListener('click', () => {
      window.focus();
      location.hash = '#/my-games';
    });
  }
}

/** Asks the server for the account's notices once (nothing when signed out). */
export async function refreshNotices() {
  if (asking) return asking;
  asking = (async () => {
    try {
      const answer = await get('/api/me/notices');
      unseen = answer.unseen;
      newest = answer.notices.reduce((most, notice) => Math.max(most, notice.id), 0);
      notifyBrowser(answer.notices);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 403)) console.warn('notices:', err);
      unseen = 0;
    }
    showCount();
  })();
  try {
    await asking;
  } finally {
    asking = null;
  }
}

/** Starts asking for notices: now, every POLL_MS, and when the page is shown again. */
export function startNotices() {
  if (timer) return;
  refreshNotices();
  timer = setInterval(refreshNotices, POLL_MS);
  document.addEventListener('visibilitychange', () => {
    if (!document.hidden) refreshNotices();
  });
}

/** Marks every notice shown so far seen (on opening My games). */
export async function markNoticesSeen(csrf) {
  await refreshNotices();
  if (!newest || !unseen) return;
  try {
    await api('POST', '/api/me/notices/seen', { body: { up_to: newest }, headers: { 'X-CSRF-Token': csrf } });
    unseen = 0;
    showCount();
  } catch (err) {
    console.warn('notices:', err);
  }
}

/** The browser-notifications switch: asks the browser's permission only when clicked. */
function browserSwitch() {
  const status = h('p', { class: 'form-status', role: 'status' });
  const button = h('button', { type: 'button', class: 'secondary', 'data-action': 'browser-notices' }, t('notices.browser'));
  const describe = () => {
    if (!('Notification' in window)) {
      status.textContent = t('notices.browser-unsupported');
      button.hidden = true;
    } else if (Notification.permission === 'granted') {
      status.textContent = t('notices.browser-on');
      button.hidden = true;
    } else if (Notification.permission === 'denied') {
      status.textContent = t('notices.browser-denied');
      button.hidden = true;
    }
  };
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      await Notification.requestPermission();
    } finally {
      button.disabled = false;
      describe();
    }
  });
  describe();
  return h('div', {}, h('p', {}, button), status);
}

/** A labelled checkbox. */
function checkbox(id, label, checked) {
  const input = h('input', { type: 'checkbox', id, checked: checked || undefined });
  return { input, row: h('div', { class: 'field checkbox' }, input, ' ', h('label', { for: id }, label)) };
}

/** The account page's notice settings: email, which notices, reminders, browser notifications. */
export async function noticeSettings(csrf) {
  const section = h('section', { 'aria-labelledby': 'notices-title' }, h('h2', { id: 'notices-title' }, t('notices.settings-title')));
  let settings;
  try {
    settings = await get('/api/me/notice-settings');
  } catch (err) {
    section.append(h('p', { class: 'form-error', role: 'alert' }, errorText(err)));
    return section;
  }
  const email = h('input', { type: 'email', id: 'notice-email', autocomplete: 'email', maxlength: 254, value: settings.email || '', 'aria-describedby': 'notice-email-hint' });
  const boxes = {
    mail: checkbox('notice-mail', t('notices.mail'), settings.mail),
    your_turn: checkbox('notice-your-turn', t('notices.kind-your-turn'), settings.your_turn),
    replaced: checkbox('notice-replaced', t('notices.kind-replaced'), settings.replaced),
    ended: checkbox('notice-ended', t('notices.kind-ended'), settings.ended),
    reminders: checkbox('notice-reminders', t('notices.kind-reminders'), settings.reminders),
  };
  const status = h('p', { class: 'form-status', role: 'status' });
  const save = h('button', { type: 'submit', class: 'primary', 'data-action': 'save-notices' }, t('notices.save'));
  const form = h(
    'form',
    { class: 'notice-settings' },
    h('p', { class: 'hint' }, t('notices.settings-intro')),
    h('div', { class: 'field' }, h('label', { for: 'notice-email' }, t('notices.email')), email, h('p', { class: 'hint', id: 'notice-email-hint' }, t('notices.email-hint'))),
    ...Object.values(boxes).map((box) => box.row),
    h('p', {}, save),
    status,
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!form.reportValidity()) return;
    save.disabled = true;
    const body = { email: email.value.trim() || null };
    for (const [name, box] of Object.entries(boxes)) body[name] = box.input.checked;
    try {
      await api('PUT', '/api/me/notice-settings', { body, headers: { 'X-CSRF-Token': csrf } });
      status.textContent = t('notices.saved');
    } catch (err) {
      status.textContent = errorText(err);
    }
    save.disabled = false;
  });
  section.append(form, browserSwitch());
  return section;
}

/** Adds the notice settings to a container once they are read. */
export function mountNoticeSettings(container, csrf) {
  const slot = h('div', { class: 'notice-settings-slot' }, h('p', { class: 'loading' }, t('common.loading')));
  container.append(slot);
  noticeSettings(csrf).then((section) => replace(slot, section));
}
