// How seats look: a colour from the Okabe-Ito palette (safe for the common kinds of colour
// blindness) always paired with a symbol, so no seat is told apart by colour alone.

import { t } from './i18n.js';
import { localSeats } from './seatnames.js';

/** Symbols by seat index; the colours are the CSS variables --seat-0 ... in styles.css. */
export const SEAT_SYMBOLS = ['●', '▲', '■', '◆', '★', '⬟', '✚', '✖'];

/** The symbol of a seat. */
export function seatSymbol(seat) {
  return SEAT_SYMBOLS[seat % SEAT_SYMBOLS.length];
}

/** The display name of a seat, from the game's seat list. */
export function seatName(seats, seat) {
  // The server's default names ("Player 2", "Bot 3 (easy)") in the page's language, wherever the
  // seat list came from (a game's view, the create answer, the invites list).
  const [info] = localSeats((seats || []).filter((s) => s && s.seat === seat).slice(0, 1));
  const name = info && info.name ? info.name : '';
  return name || t('seat.default', { n: seat + 1 });
}

/** A small inline element showing a seat: its symbol in its colour, then its name. */
export function seatChip(seats, seat, { withName = true } = {}) {
  const chip = document.createElement('span');
  chip.className = `seat-chip seat-${seat % SEAT_SYMBOLS.length}`;
  const symbol = document.createElement('span');
  symbol.className = 'seat-symbol';
  symbol.setAttribute('aria-hidden', 'true');
  symbol.textContent = seatSymbol(seat);
  chip.append(symbol);
  if (withName) {
    const name = document.createElement('span');
    name.className = 'seat-name';
    name.textContent = seatName(seats, seat);
    chip.append(name);
  } else {
    // A symbol alone is an image of the seat: a plain span may not carry a name of its own.
    chip.setAttribute('role', 'img');
    chip.setAttribute('aria-label', seatName(seats, seat));
  }
  return chip;
}
