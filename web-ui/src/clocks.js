// Table clocks: the pace chosen in the lobby, its short label in the game lists, and each seat's
// clock beside the seat, counting down while it runs. The server owns the clock; the page only
// counts down from the server's `now` between updates.

import { h } from './dom.js';
import { t } from './i18n.js';

/** The bounds the server accepts (docs/api.md), so the form says what is wrong before sending. */
const BOUNDS = {
  bank_minutes: [1, 240],
  increment_seconds: [0, 600],
  move_hours: [1, 336],
  extra_days: [0, 30],
};

/** The lobby form's pace: untimed by default, with sensible numbers ready for the other kinds. */
export function defaultPace() {
  return { kind: 'untimed', bank_minutes: 10, increment_seconds: 5, move_hours: 24, extra_days: 3 };
}

function whole(value) {
  const number = Number(value);
  return Number.isInteger(number) ? number : NaN;
}

/** What is wrong with the form's pace, or null. */
export function paceProblem(pace) {
  const fields = pace.kind === 'live' ? ['bank_minutes', 'increment_seconds'] : pace.kind === 'turn-based' ? ['move_hours', 'extra_days'] : [];
  for (const name of fields) {
    const [min, max] = BOUNDS[name];
    const value = whole(pace[name]);
    if (!(value >= min && value <= max)) return t('pace.error-range', { name: t(`pace.${name}`), min, max });
  }
  return null;
}

/** The pace as `POST /api/games` takes it; null for an untimed table (the server's default). */
export function paceRequest(pace) {
  if (pace.kind === 'live') return { kind: 'live', bank_seconds: whole(pace.bank_minutes) * 60, increment_seconds: whole(pace.increment_seconds) };
  if (pace.kind === 'turn-based') return { kind: 'turn-based', move_hours: whole(pace.move_hours), extra_days: whole(pace.extra_days) };
  return null;
}

/** The lobby's pace choice: the kind, and the numbers that kind takes. */
export function paceFieldset(pace) {
  const numbers = h('div', { class: 'pace-numbers' });
  const number = (name) => {
    const [min, max] = BOUNDS[name];
    const input = h('input', { type: 'number', id: `pace-${name}`, min, max, step: 1, value: pace[name], inputmode: 'numeric' });
    input.addEventListener('input', () => (pace[name] = input.value));
    return h('div', { class: 'field' }, h('label', { for: `pace-${name}` }, t(`pace.${name}`)), input);
  };
  const showNumbers = () => {
    const names = pace.kind === 'live' ? ['bank_minutes', 'increment_seconds'] : pace.kind === 'turn-based' ? ['move_hours', 'extra_days'] : [];
    numbers.replaceChildren(...names.map(number));
    hint.textContent = t(`pace.about-${pace.kind}`);
  };
  const select = h(
    'select',
    { id: 'new-pace', 'data-pace': '' },
    ['untimed', 'live', 'turn-based'].map((kind) => h('option', { value: kind, selected: pace.kind === kind }, t(`pace.kind-${kind}`))),
  );
  const hint = h('p', { class: 'hint pace-hint' });
  select.addEventListener('change', () => {
    pace.kind = select.value;
    showNumbers();
  });
  showNumbers();
  return h('fieldset', { class: 'pace' }, h('legend', {}, t('pace.title')), h('div', { class: 'field' }, h('label', { for: 'new-pace' }, t('pace.kind')), select), numbers, hint);
}

/** A pace in a few words, for the game lists: "Live 10 min + 5 s", "1 day a move + 3 days". */
export function paceLabel(pace) {
  if (pace && pace.kind === 'live') return t('pace.label-live', { minutes: Math.round(pace.bank_seconds / 60), seconds: pace.increment_seconds });
  if (pace && pace.kind === 'turn-based') return t('pace.label-turn-based', { hours: pace.move_hours, days: pace.extra_days });
  return t('pace.kind-untimed');
}

/** A duration as a clock shows it: 4:05 or 1:02:03 under a day, "2 d 5 h" beyond. */
export function formatRemaining(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  if (days > 0) return t('pace.days-hours', { days, hours });
  const two = (n) => String(n).padStart(2, '0');
  return hours > 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `${minutes}:${two(seconds)}`;
}

/** The clocks on the page that count down, with when they run out by this page's clock. */
const ticking = new Set();
let ticker = null;

function tick() {
  for (const clock of ticking) {
    if (!clock.element.isConnected) {
      ticking.delete(clock);
      continue;
    }
    const left = clock.endsAt - Date.now();
    clock.text.textContent = formatRemaining(left);
    clock.element.classList.toggle('low', left < 30_000);
  }
  if (!ticking.size) {
    clearInterval(ticker);
    ticker = null;
  }
}

/**
 * A seat's clock from a view's `clocks` (null when the table is untimed): the time left, counting
 * down while the seat's clock runs. The server's `now` is the reference, so a page whose clock is
 * off still counts the right time.
 */
export function clockBadge(clocks, seat) {
  const clock = clocks && (clocks.seats || []).find((c) => c.seat === seat);
  if (!clock) return null;
  const text = h('span', { class: 'clock-time' }, formatRemaining(clock.remaining_ms));
  const state = clock.timed_out ? t('pace.timed-out') : clock.running ? t('pace.running') : t('pace.stopped');
  const element = h('span', { class: `seat-clock${clock.running ? ' running' : ''}${clock.timed_out ? ' timed-out' : ''}`, 'data-clock-seat': seat, title: state, 'aria-label': `${state}: ${formatRemaining(clock.remaining_ms)}` }, h('span', { 'aria-hidden': 'true' }, '◷ '), text);
  if (clock.running && clock.deadline != null) {
    ticking.add({ element, text, endsAt: Date.now() + (clock.deadline - clocks.now) });
    if (!ticker) ticker = setInterval(tick, 1000);
  }
  return element;
}
