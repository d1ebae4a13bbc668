// The bots a table can seat, how they are named and described, and the level a seat handed to a
// bot gets. The server also knows `search`, the first search bot, kept for the games and clients
// that name it; the lobby no longer offers it.

import { t } from './i18n.js';

/** The levels of the search bot, weakest first. */
export const BOT_LEVELS = ['easy', 'normal', 'hard'];

/** The bots the lobby offers for a seat, in the order of its list. */
export const LOBBY_BOTS = [...BOT_LEVELS, 'random'];

/** The level a new bot seat starts at, and a handed seat's when the table chose none. */
export const DEFAULT_BOT_LEVEL = 'normal';

/** The lobby's label of a bot kind ("Bot: hard"). */
export const botKindLabel = (bot) => t(bot === 'random' ? 'lobby.kind-bot-random-moves' : `lobby.kind-bot-${bot}`);

/** The one-line description of a bot kind the lobby offers. */
export const botKindAbout = (bot) => t(`lobby.bot-about-${bot}`);

/** The short name of a bot kind inside a seat's name ("Bot 2 (hard)"), or null for an unknown kind. */
export function botKindName(bot) {
  if (bot === 'random') return t('bot.kind-random-moves');
  if (bot === 'search' || BOT_LEVELS.includes(bot)) return t(`bot.kind-${bot}`);
  return null;
}

/**
 * The level the table chose: the strongest level among the seats created for bots, else the
 * default. A person's seat handed to a bot gets it, so a table that asked for a hard game keeps one.
 */
export function tableBotLevel(seats) {
  let level = -1;
  for (const seat of Array.isArray(seats) ? seats : []) {
    if (seat && seat.kind === 'bot') level = Math.max(level, BOT_LEVELS.indexOf(seat.bot));
  }
  return level >= 0 ? BOT_LEVELS[level] : DEFAULT_BOT_LEVEL;
}
