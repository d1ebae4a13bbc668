// A small stand-in for `tenka serve`, for developing the web UI without the Rust server: it
// serves web-ui/ and answers the HTTP API (see the API contract) for a toy ruleset that uses
// every decision kind, SVG choices, slots and items, translated texts and battle-tower drops.
// Run with: node tests/e2e/mock/server.mjs [port]
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const webRoot = path.resolve(here, '../../../web-ui');
const port = Number(process.argv[2] || process.env.PORT || 8787);

const CATALOGUES = {
  en: {
    'toy.name': 'Toy ruleset', 'map.square': 'Square board', 'map.broken': 'Broken board',
    'opt.rounds': 'Number of rounds', 'opt.fast': 'Fast bots', 'opt.mode': 'Scoring mode', 'calm': 'Calm', 'wild': 'Wild',
    'prompt.plan': 'Plan: put your cards on the spaces', 'prompt.target': 'Pick a region to attack',
    'prompt.armies': 'How many armies attack {region}?', 'prompt.pair': 'Pick two regions to score',
    'card.a': 'Card A', 'card.b': 'Card B', 'card.c': 'Card C', 'card.d': 'Card D',
    'space.1': 'Space 1', 'space.2': 'Space 2', 'space.3': 'Space 3',
    'region.n': 'North', 'region.s': 'South', 'region.e': 'East', 'region.w': 'West',
    'log.plan': '{player} planned', 'log.attack': '{player} attacks {region} with {n} armies',
    'log.score': '{player} scores {n} points', 'log.round': 'Round {n} begins',
    'score.regions': 'Regions', 'score.cards': 'Cards', 'summary': '{player} wins',
    'label.round': 'Round {n}', 'label.gold': 'Gold: {n}', 'illegal.same': 'Two cards may not be next to each other', 'farmer': 'Farmers',
    'detail.region': '{owner} · {n, plural, one {# army} other {# armies}}', 'detail.free': 'Nobody · free to take',
    'log.defend': '{player} holds {region}', 'part.seat': 'Panel of {player}', 'part.cards': 'Cards on offer',
    'summary.round': 'End of round {n}', 'summary.points': 'Points this round', 'summary.farmers': 'Farmers restless',
    'preview.cost': 'Costs {n, plural, one {# gold} other {# gold}}', 'preview.too-costly': 'Costs {cost} gold but you hold {gold}: the last steps will be skipped',
    'option.mode.calm': 'Calm', 'option.mode.wild': 'Wild', 'tie-breaks': 'Gold held',
  },
  es: { 'detail.region': '{owner} · {n, plural, one {# ejército} many {# de ejércitos} other {# ejércitos}}', 'summary.round': 'Fin de la ronda {n}', 'preview.cost': 'Cuesta {n} oro', 'prompt.plan': 'Plan: pon tus cartas en las casillas', 'region.n': 'Norte', 'region.s': 'Sur', 'region.e': 'Este', 'region.w': 'Oeste', 'label.round': 'Ronda {n}', 'log.round': 'Empieza la ronda {n}', 'prompt.target': 'Elige una región para atacar' },
  de: { 'detail.region': '{owner} · {n, plural, one {# Armee} other {# Armeen}}', 'summary.round': 'Ende der Runde {n}', 'preview.cost': 'Kostet {n} Gold', 'prompt.plan': 'Plan: Lege deine Karten auf die Felder', 'region.n': 'Norden', 'region.s': 'Süden', 'region.e': 'Osten', 'region.w': 'Westen', 'label.round': 'Runde {n}', 'log.round': 'Runde {n} beginnt', 'prompt.target': 'Wähle eine Region zum Angriff' },
  ro: { 'detail.region': '{owner} · {n, plural, one {# armată} few {# armate} other {# de armate}}', 'summary.round': 'Sfârșitul rundei {n}', 'preview.cost': 'Costă {n} aur', 'prompt.plan': 'Plan: pune cărțile pe spații', 'region.n': 'Nord', 'region.s': 'Sud', 'region.e': 'Est', 'region.w': 'Vest', 'label.round': 'Runda {n}', 'log.round': 'Începe runda {n}', 'prompt.target': 'Alege o regiune de atacat' },
};

const RULESET = {
  id: 'toy', name: 'Toy', version: '0.1.0', hash: 'abc123', min_seats: 3, max_seats: 5, languages: ['en', 'es', 'de', 'ro'],
  maps: [{ id: 'square', name: { key: 'map.square' }, hash: 'h1', valid: true }, { id: 'broken', name: { key: 'map.broken' }, hash: 'h2', valid: false }],
  options: [
    { name: 'rounds', description: { key: 'opt.rounds' }, kind: { integer: { min: 1, max: 3 } }, default: { integer: 2 } },
    { name: 'fast', description: { key: 'opt.fast' }, kind: 'boolean', default: { boolean: true } },
    { name: 'mode', description: { key: 'opt.mode' }, kind: { choice: ['calm', 'wild'] }, default: { choice: 'calm' } },
  ],
  variants: [{ id: 'short', name: 'Short game', options: { rounds: 1 } }],
};

const REGIONS = ['n', 'e', 's', 'w'];
const ITEMS = ['a', 'b', 'c', 'd'];
const games = new Map();
const id = () => crypto.randomBytes(6).toString('hex');
const token = () => crypto.randomBytes(18).toString('base64url');
const msg = (key, args = {}) => ({ key, args: Object.entries(args) });

function newGame(body) {
  // As the real server: a token for the creator's own seats, an invite code for the others.
  const seats = body.seats.map((s, i) => ({ seat: i, kind: s.kind, name: s.name || (s.kind === 'bot' ? `Bot ${i + 1}` : ''), claimed: false, bot: s.bot, token: s.kind === 'human' && s.creator ? token() : undefined, invite: s.kind === 'human' && !s.creator ? token() : undefined }));
  const rounds = (body.options && body.options.rounds) || (body.variant === 'short' ? 1 : 2);
  const game = { host: token(), tickets: new Map(), id: id(), ruleset: 'toy', map: body.map, variant: body.variant || null, seats, version: 0, status: 'active', created_at: new Date().toISOString(), log: [], listeners: new Set(), round: 1, rounds, phase: 'plan', turn: 0, done: new Set(), owners: { n: null, e: null, s: null, w: null }, armies: { n: 0, e: 0, s: 0, w: 0 }, gold: seats.map(() => 3), score: seats.map(() => 0), target: null, history: [] };
  game.log.push({ version: 0, events: [{ text: msg('log.round', { n: { number: 1 } }) }] });
  return game;
}

function pending(game, seat) {
  if (game.status !== 'active') return null;
  if (game.phase === 'plan' && !game.done.has(seat)) {
    return { seat, prompt: msg('prompt.plan'), kind: { assign: { items: ITEMS.map((i) => ({ id: i, label: msg(`card.${i}`) })), slots: [1, 2, 3].map((n) => ({ id: `s${n}`, label: msg(`space.${n}`), accepts: n === 3 ? [0, 1] : [] })), min_placements: 2 } }, private: true };
  }
  const choices = REGIONS.map((r) => ({ id: r, label: msg(`region.${r}`), detail: game.owners[r] === null ? msg('detail.free') : msg('detail.region', { owner: { seat: game.owners[r] }, n: { number: game.armies[r] } }) }));
  if (game.phase === 'target' && game.turn === seat) return { seat, prompt: msg('prompt.target'), kind: { choose: { choices, min: 1, max: 1 } }, private: false };
  if (game.phase === 'armies' && game.turn === seat) return { seat, prompt: msg('prompt.armies', { region: { key: `region.${game.target}` } }), kind: { number: { min: 1, max: 5 } }, private: false };
  if (game.phase === 'pair' && game.turn === seat) return { seat, prompt: msg('prompt.pair'), kind: { choose: { choices, min: 2, max: 2 } }, private: false };
  return null;
}

function waiting(game) {
  return game.seats.map((s) => s.seat).filter((s) => pending(game, s));
}

/** The board in parts, as contract 0.2 gives it: the map, one panel per seat, a table panel. */
function parts(game, viewer) {
  const list = [{ id: 'map', kind: 'map', title: null, svg: svg(game, viewer) }];
  for (const s of game.seats) {
    const secret = viewer === s.seat ? `<text x="10" y="62" font-size="13" data-msg="label.gold" data-args='{"n":${game.gold[s.seat]}}'>gold</text>` : '';
    list.push({ id: `seat-${s.seat}`, kind: { seat: s.seat }, title: msg('part.seat', { player: { seat: s.seat } }), svg: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 72"><rect width="240" height="72" fill="#fff" class="seat-stroke-${s.seat}" stroke-width="4"/><text x="10" y="24" font-size="14" data-msg="log.score" data-args='{"player":{"seat":${s.seat}},"n":${game.score[s.seat]}}'></text>${secret}</svg>` });
  }
  list.push({ id: 'cards', kind: 'table', title: msg('part.cards'), svg: `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 360 60"><rect width="360" height="60" fill="#f5efe0"/>${ITEMS.map((i, k) => `<text x="${20 + k * 85}" y="35" font-size="13" data-msg="card.${i}"></text>`).join('')}</svg>` });
  return list;
}

function svg(game, viewer) {
  const p = viewer === null ? null : pending(game, viewer);
  const kind = p ? Object.keys(p.kind)[0] : null;
  const pos = { n: [200, 60], e: [340, 200], s: [200, 340], w: [60, 200] };
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 420"><style>.r{stroke:#333;stroke-width:2}</style><rect width="600" height="420" fill="#e8e0c8"/>`;
  out += `<path d="M200 60 L340 200 L200 340 L60 200 Z" fill="none" stroke="#557" stroke-dasharray="8 5"/>`;
  for (const r of REGIONS) {
    const [x, y] = pos[r];
    const owner = game.owners[r];
    const cls = owner === null ? '' : ` seat-pattern-${owner}`;
    const choice = kind === 'choose' ? ` data-choice="${REGIONS.indexOf(r)}"` : '';
    out += `<g${choice}><circle class="r${cls}" cx="${x}" cy="${y}" r="48" fill="#fff"/><text x="${x}" y="${y + 5}" text-anchor="middle" font-size="16" data-msg="region.${r}"></text></g>`;
  }
  out += `<text x="450" y="30" font-size="18" data-msg="label.round" data-args='{"n":{"number":${game.round}}}'></text>`;
  if (viewer !== null) {
    out += `<text x="450" y="55" font-size="14" data-msg="label.gold" data-args='{"n":${game.gold[viewer]}}'>secret-gold</text>`;
    out += `<text x="450" y="75" font-size="11" fill="#900" class="secret">SECRET-OF-SEAT-${viewer}</text>`;
  }
  if (kind === 'assign') {
    ITEMS.forEach((i, k) => {
      out += `<g data-item="${k}"><rect x="${420 + (k % 2) * 80}" y="${100 + Math.floor(k / 2) * 60}" width="70" height="50" rx="6" fill="#fdf6e3" stroke="#333"/><text x="${455 + (k % 2) * 80}" y="${130 + Math.floor(k / 2) * 60}" text-anchor="middle" font-size="12" data-msg="card.${i}"></text></g>`;
    });
    [0, 1, 2].forEach((k) => {
      out += `<g data-slot="${k}"><rect x="${400 + k * 65}" y="280" width="60" height="80" fill="#fff" stroke="#555" stroke-dasharray="4 3"/><text x="${430 + k * 65}" y="375" text-anchor="middle" font-size="11" data-msg="space.${k + 1}"></text></g>`;
    });
  }
  out += `<script>alert(1)</script><image href="https://example.com/x.png" x="0" y="0" width="1" height="1"/></svg>`;
  return out;
}

function push(game, entry) {
  game.version += 1;
  entry.version = game.version;
  game.log.push(entry);
  for (const listener of game.listeners) listener(entry);
}

function apply(game, seat, action) {
  const p = pending(game, seat);
  if (!p) return { status: 422, body: { error: 'rejected', message: 'not your turn', rejection: 'not-your-turn' } };
  const kind = Object.keys(p.kind)[0];
  if (!(kind in action)) return { status: 422, body: { error: 'rejected', message: 'malformed', rejection: { malformed: 'wrong kind' } } };
  if (kind === 'assign') {
    const pairs = action.assign;
    if (pairs.length < 2) return { status: 422, body: { error: 'rejected', message: 'too few', rejection: { malformed: 'too few placements' } } };
    if (pairs.some(([s, i]) => s === 0 && i === 3) && pairs.some(([s, i]) => s === 1 && i === 2)) return { status: 422, body: { error: 'rejected', message: 'illegal', rejection: { illegal: msg('illegal.same') } } };
    game.done.add(seat);
    push(game, { seat, events: [{ text: msg('log.plan', { player: { seat } }) }] });
    if (game.done.size === game.seats.length) {
      game.phase = 'target';
      game.turn = 0;
    }
  } else if (kind === 'choose' && game.phase === 'target') {
    game.target = REGIONS[action.choose[0]];
    game.phase = 'armies';
    push(game, { seat, events: [] });
  } else if (kind === 'number') {
    const n = action.number;
    if (n < 1 || n > 5) return { status: 422, body: { error: 'rejected', message: 'range', rejection: { malformed: 'out of range' } } };
    const defender = game.owners[game.target];
    const cameOut = Math.max(0, n - 1);
    const dropped = [{ owner: { seat }, count: n }, { owner: { neutral: 'farmer' }, count: 2 }];
    if (defender !== null && defender !== seat) dropped.push({ owner: { seat: defender }, count: 2 });
    const came_out = [{ owner: { seat }, count: cameOut }, { owner: { neutral: 'farmer' }, count: 3 }];
    // A second battle in the same update: the farmers of a neighbouring region rise.
    const neighbour = REGIONS[(REGIONS.indexOf(game.target) + 1) % 4];
    const second = { dropped: [{ owner: { neutral: 'farmer' }, count: 3 }, { owner: { seat }, count: 1 }], came_out: [{ owner: { neutral: 'farmer' }, count: 2 }] };
    game.owners[game.target] = seat;
    game.armies[game.target] = n;
    game.score[seat] += n;
    push(game, { seat, events: [
      { text: msg('log.attack', { player: { seat }, region: { key: `region.${game.target}` }, n: { number: n } }), drops: [0], summary: null },
      { text: msg('log.defend', { player: { seat }, region: { key: `region.${neighbour}` } }), drops: [1], summary: null },
    ], tower: [{ dropped, came_out }, second] });
    game.phase = 'pair';
  } else if (kind === 'choose' && game.phase === 'pair') {
    game.score[seat] += 1;
    push(game, { seat, events: [{ text: msg('log.score', { player: { seat }, n: { number: 1 } }) }] });
    game.turn += 1;
    game.phase = 'target';
    if (game.turn >= game.seats.length) {
      if (game.round >= game.rounds) {
        game.status = 'finished';
        push(game, { events: [{ text: msg('summary', { player: { seat: best(game) } }) }] });
        return { status: 200, body: { version: game.version, events: [] } };
      }
      game.round += 1;
      game.phase = 'plan';
      game.done.clear();
      const summary = { title: msg('summary.round', { n: { number: game.round - 1 } }), lines: [...game.seats.map((s) => ({ seat: s.seat, label: msg('summary.points'), value: game.score[s.seat] })), { seat: null, label: msg('summary.farmers'), value: null }] };
      push(game, { events: [{ text: msg('summary.round', { n: { number: game.round - 1 } }), drops: [], summary }, { text: msg('log.round', { n: { number: game.round } }), drops: [], summary: null }] });
    }
  }
  return { status: 200, body: { version: game.version, events: [] } };
}

function best(game) {
  return game.score.indexOf(Math.max(...game.score));
}

function botsPlay(game) {
  let guard = 0;
  while (game.status === 'active' && guard++ < 200) {
    const bot = game.seats.find((s) => (s.kind === 'bot' || s.bot_now) && pending(game, s.seat));
    if (!bot) break;
    const p = pending(game, bot.seat);
    const kind = Object.keys(p.kind)[0];
    const action = kind === 'assign' ? { assign: [[0, 0], [1, 1]] } : kind === 'number' ? { number: 2 } : p.kind.choose.max === 2 ? { choose: [0, 1] } : { choose: [bot.seat % 4] };
    apply(game, bot.seat, action);
  }
}

function result(game) {
  const order = game.seats.map((s) => s.seat).sort((a, b) => game.score[b] - game.score[a]);
  return {
    placings: order.map((seat, i) => ({ seat, rank: i + 1, score: game.score[seat], tie_breaks: [game.gold[seat]] })),
    breakdown: game.seats.flatMap((s) => [{ seat: s.seat, label: msg('score.regions'), points: game.score[s.seat] - 1 }, { seat: s.seat, label: msg('score.cards'), points: 1 }]),
    summary: msg('summary', { player: { seat: best(game) } }),
  };
}

function publicGame(game) {
  return { id: game.id, ruleset: game.ruleset, map: game.map, variant: game.variant, seats: game.seats.map(({ seat, kind, name, claimed, bot, bot_now: botNow }) => ({ seat, kind, name, claimed, bot: kind === 'bot' ? bot : botNow || null })), version: game.version, status: game.status, created_at: game.created_at };
}

function viewerOf(game, req, url) {
  const auth = req.headers.authorization || '';
  const ticket = url.searchParams.get('ticket');
  const tok = auth.startsWith('Bearer ') ? auth.slice(7) : ticket ? game.tickets.get(ticket) || 'spent' : null;
  if (ticket) game.tickets.delete(ticket);
  if (!tok) return { seat: null };
  const seat = game.seats.find((s) => s.token === tok);
  return seat ? { seat: seat.seat } : { bad: true };
}

function send(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function readBody(req) {
  let data = '';
  for await (const chunk of req) data += chunk;
  try {
    return JSON.parse(data || '{}');
  } catch {
    return null;
  }
}

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png' };

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://localhost');
  const p = url.pathname;
  try {
    if (!p.startsWith('/api/')) {
      const file = path.join(webRoot, p === '/' ? 'index.html' : path.normalize(p));
      if (!file.startsWith(webRoot) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) return send(res, 404, { error: 'not-found', message: 'no such file' });
      res.writeHead(200, { 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
      return fs.createReadStream(file).pipe(res);
    }
    let m;
    if (p === '/api/rulesets') return send(res, 200, [RULESET]);
    if ((m = p.match(/^\/api\/rulesets\/toy\/catalogue\/(\w+)$/))) return send(res, 200, CATALOGUES[m[1]] || {});
    if ((m = p.match(/^\/api\/rulesets\/toy\/maps\/(\w+)$/))) {
      const broken = m[1] === 'broken';
      return send(res, 200, { id: m[1], toml: '[map]\nname = "x"\n', hash: 'h', diagnostics: broken ? [{ severity: 'error', line: 3, column: 5, text: 'region `q` is not connected' }, { severity: 'warning', line: 0, column: 0, text: 'no sea routes' }] : [], svg: svg(newGame({ seats: [{ kind: 'bot' }, { kind: 'bot' }, { kind: 'bot' }] }), null) });
    }
    if (p === '/api/games' && req.method === 'POST') {
      const body = await readBody(req);
      if (!body || !Array.isArray(body.seats) || body.seats.length < 3 || body.seats.length > 5) return send(res, 400, { error: 'bad-request', message: 'need 3 to 5 seats' });
      const game = newGame(body);
      games.set(game.id, game);
      botsPlay(game);
      return send(res, 201, { id: game.id, version: game.version, host_token: game.host, seats: game.seats.map(({ seat, kind, name, token: tk, invite }) => ({ seat, kind, name, token: tk, invite })), spectator_url: `/#/watch/${game.id}` });
    }
    if (p === '/api/games') return send(res, 200, [...games.values()].map(publicGame));
    if (!(m = p.match(/^\/api\/games\/(\w+)(\/.*)?$/))) return send(res, 404, { error: 'not-found', message: 'no such route' });
    const game = games.get(m[1]);
    if (!game) return send(res, 404, { error: 'not-found', message: 'no such game' });
    const rest = m[2] || '';
    if (rest === '/join' && req.method === 'POST') {
      const body = await readBody(req);
      const seat = game.seats.find((s) => body && s.invite && s.invite === body.code);
      if (!seat) return send(res, 403, { error: 'forbidden', message: 'this invite is not open' });
      Object.assign(seat, { invite: undefined, token: token(), claimed: true, name: (body.name || seat.name) });
      return send(res, 200, { seat: seat.seat, name: seat.name, token: seat.token });
    }
    const isHost = req.headers.authorization === `Bearer ${game.host}`;
    if (rest === '/invites' && isHost) return send(res, 200, publicGame(game).seats.map((s) => ({ ...s, invite_open: !!game.seats[s.seat].invite })));
    if ((m = rest.match(/^\/seats\/(\d+)\/invite$/)) && isHost) {
      const seat = game.seats[Number(m[1])];
      if (!seat || seat.kind !== 'human') return send(res, 400, { error: 'bad-request', message: 'no such person seat' });
      if (seat.claimed) return send(res, 409, { error: 'conflict', message: 'claimed' });
      if (req.method === 'DELETE') seat.invite = undefined;
      else Object.assign(seat, { invite: token(), token: undefined });
      return send(res, 200, { seat: seat.seat, invite: seat.invite || null });
    }
    const viewer = viewerOf(game, req, url);
    if (viewer.bad) return send(res, 403, { error: 'forbidden', message: 'bad token' });
    if (rest === '') return send(res, 200, publicGame(game));
    if (rest === '/view') {
      const pend = viewer.seat === null ? [] : [pending(game, viewer.seat)].filter(Boolean);
      return send(res, 200, { version: game.version, viewer: viewer.seat === null ? 'spectator' : { seat: viewer.seat }, seats: publicGame(game).seats, status: game.status, pending: pend, waiting_for: waiting(game), state: {}, parts: parts(game, viewer.seat), result: game.status === 'finished' ? result(game) : undefined, seed_commitment: 'c0ffee' });
    }
    if (rest === '/log') {
      const since = Number(url.searchParams.get('since') || 0);
      return send(res, 200, game.log.filter((e) => e.version > since));
    }
    if (rest === '/claim' && req.method === 'POST') {
      if (viewer.seat === null) return send(res, 403, { error: 'forbidden', message: 'token needed' });
      const body = await readBody(req);
      game.seats[viewer.seat].name = body.name;
      game.seats[viewer.seat].claimed = true;
      game.seats[viewer.seat].token = token();
      return send(res, 200, { seat: viewer.seat, name: body.name, token: game.seats[viewer.seat].token });
    }
    if (rest === '/stream-ticket' && req.method === 'POST') {
      if (viewer.seat === null) return send(res, 403, { error: 'forbidden', message: 'token needed' });
      const ticket = token();
      game.tickets.set(ticket, game.seats[viewer.seat].token);
      return send(res, 200, { ticket, expires_in: 30 });
    }
    if ((m = rest.match(/^\/seats\/(\d+)\/bot$/)) && req.method === 'POST') {
      if (viewer.seat !== Number(m[1])) return send(res, 403, { error: 'forbidden', message: 'not your seat' });
      const body = await readBody(req);
      game.seats[viewer.seat].bot_now = body.bot || null;
      botsPlay(game);
      return send(res, 200, {});
    }
    if (rest === '/preview' && req.method === 'POST') {
      if (viewer.seat === null) return send(res, 403, { error: 'forbidden', message: 'token needed' });
      const body = await readBody(req);
      const p = pending(game, viewer.seat);
      if (!p) return send(res, 422, { error: 'rejected', message: 'not your turn', rejection: 'not-your-turn' });
      const action = (body && body.action) || {};
      if (!action.assign) return send(res, 200, { notes: [] });
      // Card D costs 3 gold, the others 1: a plan above the gold held skips its last steps.
      const cost = action.assign.reduce((sum, [, item]) => sum + (item === 3 ? 3 : 1), 0);
      const notes = [{ level: 'info', text: msg('preview.cost', { n: { number: cost } }) }];
      if (cost > game.gold[viewer.seat]) notes.push({ level: 'warning', text: msg('preview.too-costly', { cost: { number: cost }, gold: { number: game.gold[viewer.seat] } }) });
      return send(res, 200, { notes });
    }
    if (rest === '/actions' && req.method === 'POST') {
      if (viewer.seat === null) return send(res, 403, { error: 'forbidden', message: 'token needed' });
      const body = await readBody(req);
      if (!body) return send(res, 400, { error: 'bad-request', message: 'bad json' });
      if (body.version !== game.version) return send(res, 409, { error: 'stale', message: 'stale', version: game.version });
      const answer = apply(game, viewer.seat, body.action || {});
      if (answer.status === 200) {
        setTimeout(() => botsPlay(game), 300);
      }
      return send(res, answer.status, answer.body);
    }
    if (rest === '/stream') {
      const since = Number(url.searchParams.get('since') || 0);
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
      const missed = game.log.filter((e) => e.version > since);
      if (missed.length) res.write(`event: update\ndata: ${JSON.stringify({ version: game.version, log: missed })}\n\n`);
      const listener = (entry) => res.write(`event: update\ndata: ${JSON.stringify({ version: entry.version, log: [entry] })}\n\n`);
      game.listeners.add(listener);
      req.on('close', () => game.listeners.delete(listener));
      return;
    }
    return send(res, 404, { error: 'not-found', message: 'no such route' });
  } catch (err) {
    send(res, 500, { error: 'internal', message: String(err) });
  }
});

server.listen(port, '127.0.0.1', () => console.log(`mock tenka on http://127.0.0.1:${port}/`));
