// What this browser remembers: the seats it holds (game id -> seat -> token) and the language.
// Tokens stay in this browser's localStorage only; they are never put into a shared link except
// the invite link made for exactly one seat.

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

/** Remembers that this browser holds `seat` of `gameId` with `token`. */
export function saveSeat(gameId, seat, token, meta = {}) {
  const games = readGames();
  const game = games[gameId] || { seats: {}, saved_at: new Date().toISOString() };
  game.seats[String(seat)] = token;
  Object.assign(game, meta);
  games[gameId] = game;
  writeGames(games);
}

/** The seats held for a game, as [{seat, token}] in seat order. */
export function seatsOf(gameId) {
  const game = readGames()[gameId];
  if (!game) return [];
  return Object.entries(game.seats)
    .map(([seat, token]) => ({ seat: Number(seat), token }))
    .sort((a, b) => a.seat - b.seat);
}

/** Every game this browser holds a seat of: [{id, seats, saved_at, ...meta}], newest first. */
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
