// The load generator of the peer benchmark: plays tic-tac-toe on `tenka serve` or on
// boardgame.io's server in a closed loop with zero think time, the same games on both: each of
// N concurrent players creates a game with both seats, plays the seven moves of the game in
// which both seats always take the lowest free cell (the first seat wins on the diagonal
// 2-4-6), waits for each move's answer before the next, and starts another game.
// Tenka: each move is a message on the move socket (`/api/socket`, one WebSocket per player, as
// boardgame.io's one socket.io connection per player), answered once it is durable; `tenka-http`
// sends each move as `POST /api/games/{id}/actions` instead.
// boardgame.io: each move is a socket.io `update`, answered by the server's state update.
// Usage: node load.js tenka|tenka-http|bgio HOST:PORT LEVELS WARMUP_S MEASURE_S
// Prints one JSON object per level: {"level", "moves", "seconds", "moves_per_s", "p50_ms", "p99_ms"}.
'use strict';
const { Pool } = require('undici');
const { io } = require('socket.io-client');
const WebSocket = require('ws');

const [kind, addr, levelsArg, warmupArg, measureArg] = process.argv.slice(2);
const [host, portText] = addr.split(':');
const port = Number(portText);
const levels = (levelsArg || '1,10,100,500').split(',').map(Number);
const warmup = Number(warmupArg || 2) * 1000;
const measure = Number(measureArg || 8) * 1000;
const MOVES = 7;

// One keep-alive connection pool per server, as a browser or a bot keeps. undici (the client
// inside Node's own fetch) spends less of the shared machine per request than the older `http`
// module, which left less for either server; both servers are asked through it alike.
const pool = new Pool(`http://${addr}`, { connections: 512, pipelining: 1 });

async function request(method, path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const { statusCode, body: answer } = await pool.request({
    method, path, headers, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await answer.text();
  if (statusCode >= 300) throw new Error(`${method} ${path}: ${statusCode} ${text}`);
  return text ? JSON.parse(text) : null;
}

// How a Tenka player sends a move: over HTTP, or as a message on its socket.
function httpMoves() {
  return {
    send: (id, token, version, action) =>
      request('POST', `/api/games/${id}/actions`, { version, action }, token),
    close() {},
  };
}

async function socketMoves() {
  const socket = new WebSocket(`ws://${addr}/api/socket`, { perMessageDeflate: false });
  await new Promise((resolve, reject) => { socket.once('open', resolve); socket.once('error', reject); });
  const waiting = new Map();
  let next = 0;
  socket.on('message', (data) => {
    const answer = JSON.parse(data);
    const waiter = waiting.get(answer.id);
    waiting.delete(answer.id);
    if (answer.status) waiter.reject(new Error(`move ${answer.id}: ${answer.status} ${answer.message}`));
    else waiter.resolve(answer);
  });
  return {
    send: (game, token, version, action) => new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      socket.send(JSON.stringify({ id, game, token, version, action }));
    }),
    close: () => socket.close(),
  };
}

// One player slot for Tenka: a game at a time, created over HTTP.
async function tenkaPlayer(stats, until) {
  const moves = kind === 'tenka-http' ? httpMoves() : await socketMoves();
  try {
    while (Date.now() < until) {
      const created = await request('POST', '/api/games', {
        ruleset: 'tictactoe',
        seats: [{ kind: 'human', creator: true }, { kind: 'human', creator: true }],
      });
      const tokens = created.seats.map((seat) => seat.token);
      for (let move = 0; move < MOVES && Date.now() < until; move++) {
        const start = process.hrtime.bigint();
        const answer = await moves.send(created.id, tokens[move % 2], move, { choose: [0] });
        if (answer.version !== move + 1) throw new Error(`unexpected answer ${JSON.stringify(answer)}`);
        stats.record(start);
      }
    }
  } finally {
    moves.close();
  }
}

// One player slot for boardgame.io: a socket.io connection synced to its current match.
async function bgioPlayer(stats, until) {
  const socket = io(`http://${addr}/tic-tac-toe`, { transports: ['websocket'], forceNew: true });
  let waiting = null;
  const answer = (matchID, stateID) => { if (waiting && waiting.matchID === matchID) waiting.resolve(stateID); };
  socket.on('sync', (matchID, info) => answer(matchID, info.state._stateID));
  socket.on('update', (matchID, state) => answer(matchID, state._stateID));
  const next = (matchID) => new Promise((resolve) => { waiting = { matchID, resolve }; });
  try {
    while (Date.now() < until) {
      const { matchID } = await request('POST', '/games/tic-tac-toe/create', { numPlayers: 2 });
      const credentials = [];
      for (const playerID of ['0', '1']) {
        const joined = await request('POST', `/games/tic-tac-toe/${matchID}/join`, { playerID, playerName: `P${playerID}` });
        credentials.push(joined.playerCredentials);
      }
      let synced = next(matchID);
      socket.emit('sync', matchID, '0', credentials[0], 2);
      let stateID = await synced;
      for (let move = 0; move < MOVES && Date.now() < until; move++) {
        const playerID = String(move % 2);
        const start = process.hrtime.bigint();
        const updated = next(matchID);
        socket.emit('update', {
          type: 'MAKE_MOVE',
          payload: { type: 'clickCell', args: [move], playerID, credentials: credentials[move % 2] },
        }, stateID, matchID, playerID);
        const newStateID = await updated;
        if (newStateID !== stateID + 1) throw new Error(`unexpected state ${newStateID} after ${stateID}`);
        stateID = newStateID;
        stats.record(start);
      }
    }
  } finally {
    socket.close();
  }
}

async function level(concurrency) {
  const start = Date.now();
  const measureFrom = start + warmup;
  const until = measureFrom + measure;
  const latencies = [];
  const stats = {
    record(startNs) {
      const now = Date.now();
      if (now >= measureFrom && now < until) latencies.push(Number(process.hrtime.bigint() - startNs) / 1e6);
    },
  };
  const player = kind === 'bgio' ? bgioPlayer : tenkaPlayer;
  await Promise.all(Array.from({ length: concurrency }, () => player(stats, until)));
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] || 0;
  return {
    level: concurrency,
    moves: latencies.length,
    seconds: measure / 1000,
    moves_per_s: latencies.length / (measure / 1000),
    p50_ms: at(0.5),
    p99_ms: at(0.99),
  };
}

(async () => {
  for (const concurrency of levels) {
    console.log(JSON.stringify(await level(concurrency)));
  }
  await pool.close();
  process.exit(0);
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
