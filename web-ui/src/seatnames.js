// Seat names in the page's language. The server names a seat nobody named "Player N" and a
// bot's seat "Bot N (kind)", in English; those default names are shown translated here (a name a
// person chose is shown as it is).

import { botKindName } from './botlevels.js';
import { t } from './i18n.js';

const DEFAULT_PERSON = /^Player (\d+)$/;
const DEFAULT_BOT = /^Bot (\d+) \(([\w-]+)\)$/;

/** A copy of a game's seat list with the server's default names translated. */
export function localSeats(seats) {
  if (!Array.isArray(seats)) return seats;
  return seats.map((info) => {
    if (!info || typeof info.name !== 'string') return info;
    const n = Number(info.seat) + 1;
    const person = DEFAULT_PERSON.exec(info.name);
    if (person && Number(person[1]) === n) return { ...info, name: t('seat.default', { n }) };
    const bot = DEFAULT_BOT.exec(info.name);
    const kind = bot && Number(bot[1]) === n ? botKindName(bot[2]) : null;
    if (kind) return { ...info, name: t('seat.bot', { n, kind }) };
    return info;
  });
}
