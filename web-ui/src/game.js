// The game screen, for a player (#/play), a spectator (#/watch) and several players sharing one
// device (#/hotseat). Live: follows the game's event stream and re-fetches the view on each update.

import { ApiError, follow, get, post } from './api.js';
import { BoardParts, partsOf } from './board.js';
import { tableBotLevel } from './botlevels.js';
import { clockBadge } from './clocks.js';
import { DecisionController } from './decisions.js';
import { errorText, h, replace, toast } from './dom.js';
import { loadCatalogue, messageText, onLanguageChange, t } from './i18n.js';
import { LogView } from './log.js';
import { mountRecap } from './recap.js';
import { resultsView } from './results.js';
import { seatChip, seatName, seatSymbol } from './seats.js';
import { forgetSeat, pref, saveSeat, seatsOf, setPref } from './store.js';
import { localSeats } from './seatnames.js';
import { Story } from './story.js';

/** Hot-seat: how long after a public turn passes the new player's controls ignore clicks. */
const SWITCH_GUARD_MS = 700;
/** How long the "<name>'s turn" notice stays. */
const NOTICE_MS = 2500;

function rejectionText(rulesetId, body, seats) {
  const rejection = body && body.rejection;
  if (rejection && typeof rejection === 'object' && rejection.illegal) {
    return messageText(rulesetId, rejection.illegal, (s) => seatName(seats, s));
  }
  if (rejection && typeof rejection === 'object' && rejection.malformed) return t('decision.malformed', { reason: rejection.malformed });
  if (rejection === 'not-your-turn') return t('decision.not-your-turn');
  return (body && body.message) || t('decision.rejected');
}

/**
 * Mounts the game screen into `root`. `mode` is play, watch or hotseat; `token` is the seat's
 * token for play (from this browser's store, or from a link of a game made before invites).
 * Returns {destroy}.
 */
export async function mountGame(root, { gameId, mode, token, seat: seatHint }) {
  const screen = new GameScreen(root, gameId, mode);
  await screen.start(token, seatHint);
  return screen;
}

class GameScreen {
  constructor(root, gameId, mode) {
    this.root = root;
    this.gameId = gameId;
    this.mode = mode;
    this.token = null; // the token the board is shown for (null: spectator)
    this.localSeats = []; // hot-seat: [{seat, token}]
    this.activeSeat = null;
    this.view = null;
    this.controller = null;
    this.decisionKey = null;
    this.stream = null;
    this.refreshing = null;
    this.refreshAgain = false;
    this.hadTurn = false;
    this.destroyed = false;
    this.handingOver = false;
  }

  api(path) {
    return `/api/games/${encodeURIComponent(this.gameId)}${path}`;
  }

  async start(token, seatHint) {
    replace(this.root, h('p', { class: 'loading' }, t('common.loading')));
    try {
      this.game = await get(this.api(''));
    } catch (err) {
      replace(this.root, h('div', { class: 'panel error-panel' }, h('h1', {}, t('game.cannot-open')), h('p', {}, errorText(err)), h('a', { href: '#/', class: 'button' }, t('results.lobby'))));
      return;
    }
    this.rulesetId = this.game.ruleset;
    this.seats = localSeats(this.game.seats || []);
    await loadCatalogue(this.rulesetId, this.game.ruleset_hash);

    let storedSeat = null;
    if (this.mode === 'play') {
      if (!token) {
        const held = seatsOf(this.gameId);
        const chosen = held.find((s) => s.seat === seatHint) || (held.length === 1 ? held[0] : null);
        if (!chosen) {
          this.renderNoSeat(held);
          return;
        }
        token = chosen.token;
        storedSeat = chosen.seat;
      }
      this.token = token;
    } else if (this.mode === 'hotseat') {
      this.localSeats = seatsOf(this.gameId);
      if (!this.localSeats.length) {
        this.renderNoSeat([]);
        return;
      }
    }

    this.layout();
    this.offLanguage = onLanguageChange(async () => {
      await loadCatalogue(this.rulesetId, this.game.ruleset_hash);
      this.layoutTexts();
      // The default seat names in the new language.
      this.seats = localSeats((this.view && this.view.seats && this.view.seats.length ? this.view.seats : this.game.seats) || []);
      this.story.seats = this.seats;
      this.logView.redraw(this.seats);
      this.story.renderTexts();
      this.board.renderToolbar();
      if (!this.claim.hidden && this.claimSeat !== undefined) this.offerClaim(this.claimSeat);
      if (this.handingOver && this.handoverSeat !== undefined) this.showHandover(this.handoverSeat);
      else if (this.view) this.showView(this.view, { keepDecision: true });
    });
    try {
      await this.refresh();
    } catch (err) {
      if (err instanceof ApiError && err.status === 403) {
        // The seat was given away (its token replaced): this browser no longer holds it.
        if (storedSeat !== null) forgetSeat(this.gameId, storedSeat);
        replace(this.root, h('div', { class: 'panel error-panel' }, h('h1', {}, t('game.bad-token')), h('p', {}, h('a', { href: `#/watch/${encodeURIComponent(this.gameId)}` }, t('game.watch-instead'))), h('p', {}, h('a', { href: '#/my-games' }, t('game.take-to-this-device')))));
        return;
      }
      toast(errorText(err), 'error');
    }
    if (this.mode === 'play' && this.view && this.view.viewer && typeof this.view.viewer === 'object') {
      const seat = this.view.viewer.seat;
      saveSeat(this.gameId, seat, this.token, { ruleset: this.rulesetId });
      // The token now lives in this browser; keep it out of the address bar.
      const clean = `#/play/${encodeURIComponent(this.gameId)}?seat=${seat}`;
      if (location.hash !== clean) history.replaceState(null, '', clean);
      this.offerClaim(seat);
    }
    await this.loadLog(0);
    this.startStream();
    if (this.mode === 'play' && this.token && this.view && this.view.viewer && typeof this.view.viewer === 'object' && !this.destroyed) {
      const recap = await mountRecap(this.root.querySelector('.game-header'), this.grid, { gameId: this.gameId, token: this.token, rulesetId: this.rulesetId, seats: this.seats });
      if (this.destroyed) recap.destroy();
      else this.recap = recap;
    }
  }

  destroy() {
    this.destroyed = true;
    if (this.story) this.story.clear();
    if (this.stream) this.stream.stop();
    if (this.controller) this.controller.destroy();
    if (this.recap) this.recap.destroy();
    if (this.offLanguage) this.offLanguage();
    document.title = 'Tenka';
  }

  renderNoSeat(held) {
    const links = held.map((s) => h('li', {}, h('a', { href: `#/play/${encodeURIComponent(this.gameId)}?seat=${s.seat}` }, t('lobby.play-as', { seat: seatName(this.seats, s.seat) }))));
    replace(
      this.root,
      h(
        'div',
        { class: 'panel' },
        h('h1', {}, t('game.no-seat')),
        links.length ? h('ul', {}, links) : null,
        h('p', {}, h('a', { class: 'button', href: `#/watch/${encodeURIComponent(this.gameId)}` }, t('game.watch-instead'))),
      ),
    );
  }

  // ---- layout -----------------------------------------------------------------------------

  layout() {
    this.board = new BoardParts();
    this.logView = new LogView(this.rulesetId, this.seats);
    // What just happened plays here step by step; the newest board waits until it has played.
    this.story = new Story({
      rulesetId: this.rulesetId,
      seats: this.seats,
      dialogHost: this.root,
      onStep: (step) => this.board.tell(step),
      onIdle: () => {
        const held = this.heldView;
        this.heldView = null;
        if (held && !this.destroyed && !this.handingOver) this.showView(held);
      },
    });
    this.title = h('h1', { class: 'game-title' });
    this.status = h('p', { class: 'game-status', role: 'status', 'aria-live': 'polite' });
    this.connection = h('p', { class: 'connection', hidden: true, role: 'status' }, t('game.connection-lost'));
    this.claim = h('div', { class: 'claim', hidden: true });
    this.results = h('div', { class: 'results-slot' });
    this.decision = h('section', { class: 'decision-panel', 'aria-label': t('decision.title'), hidden: true });
    this.decisionError = h('p', { class: 'decision-error', role: 'alert', hidden: true });
    this.players = h('section', { class: 'players', 'aria-labelledby': 'players-title' });
    this.handover = h('div', { class: 'handover', hidden: true, role: 'region', 'aria-labelledby': 'handover-title' });
    this.turnNotice = h('p', { class: 'turn-notice', role: 'status', 'aria-live': 'assertive', hidden: true });
    this.main = h('div', { class: 'game-main' }, this.board.element, this.board.tableRow);
    this.side = h('aside', { class: 'game-side' }, this.story.element, this.decisionError, this.decision, this.board.seatColumn, this.players, this.logView.element);
    this.grid = h('div', { class: 'game-layout' }, this.main, this.side);
    replace(this.root, h('div', { class: `game game-${this.mode}` }, h('header', { class: 'game-header' }, this.title, this.status, this.connection), this.claim, this.handover, this.turnNotice, this.results, this.grid));
    this.layoutTexts();
  }

  layoutTexts() {
    const modeText = { play: t('game.mode-play'), watch: t('game.mode-watch'), hotseat: t('game.mode-hotseat') }[this.mode];
    replace(this.title, `${modeText} · `, h('span', { class: 'game-id' }, this.gameId));
    this.decision.setAttribute('aria-label', t('decision.title'));
    this.connection.textContent = t('game.connection-lost');
  }

  // ---- data -------------------------------------------------------------------------------

  /** Fetches the view for the current viewer and shows it. Calls coalesce. */
  async refresh() {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        if (this.handingOver) break;
        const view = await get(this.api('/view'), this.token || undefined);
        if (this.destroyed) return;
        if (this.mode === 'hotseat' && (await this.chooseViewer(view))) {
          if (this.handingOver) break;
          // The viewer changed: fetch again for the new viewer.
          this.refreshAgain = true;
          continue;
        }
        // While the story of the last moves plays, the board already shows where they led (so
        // no caption saying a place was taken stands over its old owner); the next question
        // waits until the story has been told.
        if (this.story.busy && this.view) {
          this.heldView = view;
          this.showBoard(view);
        } else this.showView(view);
      } while (this.refreshAgain && !this.destroyed);
    })();
    try {
      await this.refreshing;
    } finally {
      this.refreshing = null;
    }
  }

  async loadLog(since) {
    try {
      const entries = await get(this.api(`/log?since=${since}`), this.token || undefined);
      this.logView.add(entries);
    } catch (err) {
      toast(errorText(err), 'error');
    }
  }

  startStream() {
    const lastVersion = () => (this.logView.entries.length ? this.logView.entries[this.logView.entries.length - 1].version : 0);
    this.stream = follow(this.gameId, {
      // A hot-seat device follows the public stream; each seat's own entries are fetched with
      // that seat's token while it is at the screen. A player follows with the seat's current
      // token, which a claim replaces.
      token: this.mode === 'play' ? () => this.token : undefined,
      since: lastVersion(),
      onState: (state) => {
        this.connection.hidden = state !== 'lost';
        if (state === 'forbidden') toast(t('game.bad-token'), 'error');
      },
      onUpdate: async (data) => {
        // During a hand-over nothing is shown; the next player's log is fetched on confirming.
        if (this.destroyed || this.handingOver) return;
        let fresh;
        if (this.mode === 'hotseat' && this.token) {
          const logView = this.logView;
          const before = lastVersion();
          const entries = await get(this.api(`/log?since=${before}`), this.token).catch(() => []);
          // The seat may have handed over meanwhile: its entries must not reach the next viewer.
          if (this.handingOver || this.logView !== logView) return;
          fresh = this.logView.add(entries);
        } else {
          fresh = this.logView.add(data.log || []);
        }
        this.story.seats = this.seats;
        this.story.enqueue(fresh);
        this.refresh().catch((err) => toast(errorText(err), 'error'));
      },
    });
  }

  // ---- showing a view ---------------------------------------------------------------------

  viewerSeat(view) {
    return view && view.viewer && typeof view.viewer === 'object' ? view.viewer.seat : null;
  }

  showView(view, { keepDecision = false } = {}) {
    this.view = view;
    // Exposed for scripts and tests: which version and state the screen shows.
    const screen = this.root.querySelector('.game');
    if (screen) {
      screen.dataset.version = String(view.version);
      screen.dataset.status = view.status;
      screen.dataset.pending = String((view.pending || []).length);
    }
    if (Array.isArray(view.seats) && view.seats.length) {
      this.seats = localSeats(view.seats);
      this.logView.seats = this.seats;
      this.story.seats = this.seats;
    }
    const seat = this.viewerSeat(view);
    this.board.show(partsOf(view), this.rulesetId, (s) => seatName(this.seats, s));
    this.renderPlayers(view);
    this.renderStatus(view, seat);
    this.renderDecision(view, keepDecision);
    if (this.announceSeat !== null && this.announceSeat !== undefined && seat === this.announceSeat && (view.pending || []).length) {
      this.announceTurn(this.announceSeat);
      this.announceSeat = null;
    }
    if (view.status === 'finished') this.claim.hidden = true;
    if (view.status === 'finished' && view.result) {
      replace(this.results, resultsView(view.result, this.rulesetId, this.seats, this.gameId));
      this.decision.hidden = true;
    } else {
      this.results.replaceChildren();
    }
  }

  /**
   * The board of a newer view while the story is told: the parts and players only. A decision
   * on screen that is still pending is drawn on the new board again; one that is not goes.
   */
  showBoard(view) {
    if (Array.isArray(view.seats) && view.seats.length) {
      this.seats = localSeats(view.seats);
      this.story.seats = this.seats;
    }
    this.board.show(partsOf(view), this.rulesetId, (s) => seatName(this.seats, s));
    this.renderPlayers(view);
    const decision = (view.pending || [])[0];
    if (!this.controller) return;
    if (decision && this.decisionKey === JSON.stringify(decision)) {
      this.controller.render();
    } else {
      this.controller.destroy();
      this.controller = null;
      this.decisionKey = null;
      this.decision.hidden = true;
      this.decision.replaceChildren();
    }
  }

  renderStatus(view, seat) {
    const waiting = view.waiting_for || [];
    const mine = (view.pending || []).length > 0;
    let text;
    if (view.status === 'finished') text = [t('game.finished')];
    else if (mine) text = [t('game.your-turn')];
    else if (waiting.length) text = [t('game.waiting-for'), ' ', ...waiting.map((s) => seatChip(this.seats, s))];
    else text = [t('game.waiting')];
    const who = seat === null ? h('span', { class: 'viewer' }, t('game.spectating')) : h('span', { class: 'viewer' }, t('game.you-are'), ' ', seatChip(this.seats, seat));
    replace(this.status, who, ' · ', ...text);
    this.hadTurn = mine;
    document.title = mine ? `${seat !== null ? seatSymbol(seat) : '●'} ${t('game.your-turn')} · Tenka` : view.status === 'finished' ? `${t('game.finished')} · Tenka` : 'Tenka';
  }

  renderPlayers(view) {
    const waiting = new Set(view.waiting_for || []);
    const viewer = this.viewerSeat(view);
    const list = h('ul', { class: 'player-list' });
    for (const info of this.seats) {
      const tags = [];
      if (info.kind === 'bot' || info.bot) tags.push(h('span', { class: 'tag' }, t('game.bot')));
      if (info.seat === viewer) tags.push(h('span', { class: 'tag you' }, t('game.you')));
      if (this.mode === 'hotseat' && this.localSeats.some((s) => s.seat === info.seat)) tags.push(h('span', { class: 'tag' }, t('game.on-this-device')));
      const state = waiting.has(info.seat) ? h('span', { class: 'thinking', title: t('game.to-move') }, '… ', t('game.to-move')) : null;
      list.append(h('li', { class: `player${waiting.has(info.seat) ? ' waiting' : ''}`, 'data-seat': info.seat }, seatChip(this.seats, info.seat), ...tags, state, clockBadge(view.clocks, info.seat)));
    }
    const controls = [];
    if (this.mode === 'play' && viewer !== null && view.status !== 'finished') {
      const mine = this.seats.find((s) => s.seat === viewer);
      // A person's seat handed to a bot keeps its kind and names the bot playing it; the bot
      // plays at the level the table chose.
      const botPlays = !!(mine && mine.bot);
      controls.push(
        h(
          'button',
          {
            type: 'button',
            class: 'secondary small',
            onclick: async () => {
              try {
                await post(this.api(`/seats/${viewer}/bot`), { bot: botPlays ? null : tableBotLevel(this.seats) }, this.token);
                this.game = await get(this.api(''));
                this.seats = localSeats(this.game.seats);
                await this.refresh();
              } catch (err) {
                toast(errorText(err), 'error');
              }
            },
          },
          botPlays ? t('game.take-back') : t('game.hand-to-bot'),
        ),
      );
    }
    replace(this.players, h('h2', { id: 'players-title' }, t('game.players')), list, ...controls);
  }

  renderDecision(view, keepDecision) {
    const decision = (view.pending || [])[0];
    if (!decision || view.status === 'finished') {
      if (this.controller) this.controller.destroy();
      this.controller = null;
      this.decisionKey = null;
      this.decision.hidden = true;
      this.decision.replaceChildren();
      this.board.element.classList.remove('has-decision');
      const waiting = view.waiting_for || [];
      if (view.status !== 'finished' && waiting.length) this.board.setBanner(h('span', { class: 'banner-hint' }, t('game.waiting-for')), ...waiting.map((s) => seatChip(this.seats, s)));
      else this.board.setBanner(null);
      return;
    }
    const sameDecision = this.controller && (keepDecision || this.decisionKey === JSON.stringify(decision));
    if (!sameDecision) {
      if (this.controller) this.controller.destroy();
      this.decisionError.hidden = true;
      this.controller = new DecisionController({
        decision,
        board: this.board,
        panel: this.decision,
        rulesetId: this.rulesetId,
        seats: this.seats,
        send: (action) => this.send(action),
        preview: (action) => this.preview(action),
      });
      this.decisionKey = JSON.stringify(decision);
    } else {
      this.controller.seats = this.seats;
    }
    this.decision.hidden = false;
    this.board.element.classList.add('has-decision');
    this.controller.render();
    if (!sameDecision) {
      // A new question: the keyboard and screen readers start at its prompt.
      const prompt = this.decision.querySelector('.decision-prompt');
      const busyElsewhere = document.activeElement && document.activeElement.closest && document.activeElement.closest('dialog, .claim');
      if (prompt && !busyElsewhere) {
        prompt.tabIndex = -1;
        prompt.focus({ preventScroll: false });
      }
    }
  }

  /** The ruleset's notes on an answer being composed; null when the server has no preview. */
  async preview(action) {
    if (this.previewMissing) return null;
    try {
      const answer = await post(this.api('/preview'), { action }, this.token);
      return answer && Array.isArray(answer.notes) ? answer.notes : [];
    } catch (err) {
      if (err instanceof ApiError && (err.status === 404 || err.status === 405)) this.previewMissing = true;
      return null;
    }
  }

  async send(action) {
    this.decisionError.hidden = true;
    try {
      await post(this.api('/actions'), { version: this.view.version, action }, this.token);
      replace(this.status, t('decision.sent'));
      this.turnNotice.hidden = true;
      if (this.foldClaim) this.foldClaim();
      this.decisionKey = null; // the next decision, even if shaped the same, starts fresh
      if (this.controller) this.controller.destroy();
      this.controller = null;
      // The answered question goes at once, even while the story of the move holds the next board.
      this.decision.hidden = true;
      this.decision.replaceChildren();
      const screen = this.root.querySelector('.game');
      if (screen) screen.dataset.pending = '0';
      await this.refresh();
      return true;
    } catch (err) {
      if (err instanceof ApiError && err.code === 'stale') {
        toast(t('decision.stale'), 'info');
        await this.refresh();
      } else if (err instanceof ApiError && err.code === 'rejected') {
        this.decisionError.textContent = `${t('decision.rejected')}: ${rejectionText(this.rulesetId, err.body, this.seats)}`;
        this.decisionError.hidden = false;
        this.decisionError.scrollIntoView({ block: 'nearest' });
      } else {
        toast(errorText(err), 'error');
      }
      return false;
    }
  }

  // ---- claiming a seat --------------------------------------------------------------------

  offerClaim(seat) {
    this.claimSeat = seat;
    const info = this.seats.find((s) => s.seat === seat);
    if (!info || info.claimed || info.kind === 'bot') return;
    const input = h('input', { type: 'text', id: 'claim-name', maxlength: 40, value: info.name || '', autocomplete: 'nickname' });
    const form = h(
      'form',
      { class: 'claim-form' },
      h('label', { for: 'claim-name' }, t('claim.prompt', { seat: seatSymbol(seat) })),
      input,
      h('button', { type: 'submit', class: 'primary' }, t('claim.take')),
      h('button', { type: 'button', class: 'secondary', 'data-action': 'claim-later', onclick: () => fold() }, t('claim.later')),
    );
    // Answered "Later" once: from then on (in this browser) the question folds into one small
    // button, so it never again takes room above the board.
    const laterKey = `claim-later.${this.gameId}.${seat}`;
    const unfold = h('button', { type: 'button', class: 'secondary small', 'data-action': 'claim-unfold', onclick: () => replace(this.claim, form) }, t('claim.name-button'));
    const fold = () => {
      setPref(laterKey, '1');
      replace(this.claim, unfold);
      this.claim.classList.add('folded');
    };
    // Playing on without answering counts as "Later" too.
    this.foldClaim = () => {
      if (!this.claim.hidden && !this.claim.classList.contains('folded') && !this.claim.contains(document.activeElement)) fold();
    };
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      try {
        // Claiming gives the seat a fresh token; the one used so far (which the game's creator
        // may have seen, for games made before invites) stops working.
        const claimed = await post(this.api('/claim'), { name: input.value.trim() || seatName(this.seats, seat) }, this.token);
        this.token = claimed.token;
        saveSeat(this.gameId, seat, claimed.token, { ruleset: this.rulesetId });
        this.game = await get(this.api(''));
        this.seats = localSeats(this.game.seats);
        this.claim.hidden = true;
        await this.refresh();
      } catch (err) {
        toast(errorText(err), 'error');
      }
    });
    if (pref(laterKey, '')) {
      replace(this.claim, unfold);
      this.claim.classList.add('folded');
    } else {
      replace(this.claim, form);
      this.claim.classList.remove('folded');
    }
    this.claim.hidden = false;
  }

  // ---- hot-seat ---------------------------------------------------------------------------

  /**
   * Decides who sits at the screen next; returns true when the viewer changed (the view must be
   * fetched again) or a hand-over screen was shown. The device is handed over only before a
   * decision that shows the next seat's secrets (`private`; a server that does not say is taken
   * to mean yes); otherwise the next seat's view simply replaces the last one's.
   */
  async chooseViewer(view) {
    const waiting = view.waiting_for || [];
    const local = this.localSeats.map((s) => s.seat);
    const candidates = local.filter((s) => waiting.includes(s));
    let next = candidates.includes(this.activeSeat) ? this.activeSeat : candidates[0] ?? null;
    if (view.status === 'finished') next = null;
    if (next === this.activeSeat) return false;
    if (next === null) {
      // Nobody on this device is to move: show the public board, which holds no secret.
      this.activeSeat = null;
      this.token = null;
      this.resetViewerState();
      return true;
    }
    const token = this.localSeats.find((s) => s.seat === next).token;
    const nextView = await get(this.api('/view'), token).catch(() => null);
    if (this.destroyed) return true;
    const secret = !nextView || !(nextView.pending || []).length || (nextView.pending || []).some((decision) => decision.private !== false);
    if (secret) {
      this.showHandover(next);
      return true;
    }
    this.resetViewerState();
    this.activeSeat = next;
    this.token = token;
    // A public turn passes without a hand-over screen: say whose turn it is when it shows.
    this.announceSeat = next;
    await this.loadLog(0);
    return true;
  }

  /**
   * Hot-seat: "<name>'s turn" over the board, and for SWITCH_GUARD_MS no click or key reaches
   * the new player's controls (a double click meant for the last player must not answer for
   * this one).
   */
  announceTurn(seat) {
    const name = seatName(this.seats, seat);
    replace(this.turnNotice, seatChip(this.seats, seat, { withName: false }), ' ', t('hotseat.turn-of', { seat: name }));
    this.turnNotice.hidden = false;
    this.grid.inert = true;
    this.grid.classList.add('switching');
    clearTimeout(this.guardTimer);
    clearTimeout(this.noticeTimer);
    this.guardTimer = setTimeout(() => {
      this.grid.inert = false;
      this.grid.classList.remove('switching');
    }, SWITCH_GUARD_MS);
    this.noticeTimer = setTimeout(() => (this.turnNotice.hidden = true), NOTICE_MS);
  }

  resetViewerState() {
    this.story.clear();
    this.heldView = null;
    if (this.controller) this.controller.destroy();
    this.controller = null;
    this.decisionKey = null;
    this.board.clear();
    this.decision.replaceChildren();
    this.decision.hidden = true;
    this.decisionError.hidden = true;
    const old = this.logView.element;
    this.logView = new LogView(this.rulesetId, this.seats);
    old.replaceWith(this.logView.element);
  }

  showHandover(seat) {
    // Blank everything that may hold the previous seat's secrets before anything else shows.
    this.handingOver = true;
    this.handoverSeat = seat;
    document.getElementById('toasts')?.replaceChildren();
    this.resetViewerState();
    this.activeSeat = null;
    this.token = null;
    this.grid.hidden = true;
    const name = seatName(this.seats, seat);
    const button = h('button', { type: 'button', class: 'primary big', 'data-action': 'handover-ready' }, t('handover.ready', { seat: name }));
    button.addEventListener('click', async () => {
      this.handover.hidden = true;
      this.grid.hidden = false;
      this.handingOver = false;
      this.activeSeat = seat;
      this.token = this.localSeats.find((s) => s.seat === seat).token;
      await this.loadLog(0);
      await this.refresh();
      this.root.querySelector('.decision-panel:not([hidden]) button, .decision-panel:not([hidden]) select')?.focus();
    });
    replace(
      this.handover,
      h(
        'div',
        { class: 'handover-card' },
        h('p', { class: 'handover-symbol', 'aria-hidden': 'true' }, seatChip(this.seats, seat, { withName: false })),
        h('h2', { id: 'handover-title' }, t('handover.title', { seat: name })),
        h('p', {}, t('handover.hint')),
        button,
        h('p', { class: 'handover-out' }, h('a', { href: '#/' }, t('results.lobby'))),
      ),
    );
    this.handover.hidden = false;
    replace(this.status, t('handover.status', { seat: name }));
    document.title = `${seatSymbol(seat)} ${t('handover.title', { seat: name })} · Tenka`;
    button.focus();
  }
}

