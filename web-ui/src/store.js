// What this browser remembers: the seats it plays (game id -> seat -> token), the host token of
// each game it created, and the language. Never another person's seat: invite codes are shown to
// the creator and not kept (a link shown again is a new code). Tokens stay in this browser's
// localStorage only and are never put into a link or a URL.

const GAMES_KEY = 'tenka.games.v1';

function readGames() {
  try {
    const value = JSON.parse(localStorage.getItem(GAMES_KEY) || '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

function writeGames(games) {
  try {
    localStorage.setItem(GAMES_KEY, JSON.stringify(games));
  } catch {
    // Private browsing may refuse storage: the game still works for this page's lifetime.
  }
}

/** The stored entry of a game, created if missing. */
function entryOf(games, gameId) {
  const game = games[gameId] || { saved_at: new Date().toISOString() };
  if (!game.seats || typeof game.seats !== 'object') game.seats = {};
  games[gameId] = game;
  return game;
}

/** Remembers that this browser holds `seat` of `gameId` with `token` (replacing an older one). */
export function saveSeat(gameId, seat, token, meta = {}) {
  const games = readGames();
  const game = entryOf(games, gameId);
  game.seats[String(seat)] = token;
  Object.assign(game, meta);
  writeGames(games);
}

/** Forgets one seat of a game (its token no longer works: the seat was given away). */
export function forgetSeat(gameId, seat) {
  const games = readGames();
  if (!games[gameId] || !games[gameId].seats) return;
  delete games[gameId].seats[String(seat)];
  writeGames(games);
}

/** Remembers the host token of a game this browser created (it manages the game's invites). */
export function saveHost(gameId, hostToken, meta = {}) {
  const games = readGames();
  const game = entryOf(games, gameId);
  game.host = hostToken;
  Object.assign(game, meta);
  writeGames(games);
}

/** The host token of a game this browser created, or null. */
export function hostOf(gameId) {
  const game = readGames()[gameId];
  return (game && typeof game.host === 'string' && game.host) || null;
}

/** The seats held for a game, as [{seat, token}] in seat order. */
export function seatsOf(gameId) {
  const game = readGames()[gameId];
  if (!game || !game.seats) return [];
  return Object.entries(game.seats)
    .map(([seat, token]) => ({ seat: Number(seat), token }))
    .sort((a, b) => a.seat - b.seat);
}

/** Every game this browser holds a seat of or created: [{id, seats, host?, saved_at, ...meta}], newest first. */
export function myGames() {
  return Object.entries(readGames())
    .map(([id, game]) => ({ id, ...game }))
    .sort((a, b) => String(b.saved_at).localeCompare(String(a.saved_at)));
}

/** Forgets a game (the seats' tokens included). */
export function forgetGame(gameId) {
  const games = readGames();
  delete games[gameId];
  writeGames(games);
}

/** A stored preference. */
export function pref(name, fallback) {
  try {
    const value = localStorage.getItem(`tenka.${name}`);
    return value === null ? fallback : value;
  } catch {
    return fallback;
  }
}

/** Stores a preference. */
export function setPref(name, value) {
  try {
    localStorage.setItem(`tenka.${name}`, value);
  } catch {
    // See writeGames.
  }
}
