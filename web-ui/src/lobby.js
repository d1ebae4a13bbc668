// The lobby: create a game (ruleset, board side, seats, bots, variant options generated from the
// ruleset's option schema), share one single-use invite link per invited person's seat (copy,
// revoke, new link), resume this browser's games and watch any game. The browser keeps the tokens
// of the seats it plays and the host token of the games it created, never another person's seat.

import { get, post } from './api.js';
import { errorText, h, replace, toast } from './dom.js';
import { hasKey, language, loadCatalogue, messageText, t } from './i18n.js';
import { invitesPanel, inviteRow } from './invites.js';
import { mapOptions } from './maps.js';
import { seatChip, seatName, seatSymbol } from './seats.js';
import { myGames, saveHost, saveSeat, seatsOf } from './store.js';

const BOTS = ['random', 'search'];

/** A name that may be a catalogue message or a plain string. */
function nameOf(rulesetId, name) {
  if (name && typeof name === 'object' && typeof name.key === 'string') return messageText(rulesetId, name, (s) => t('seat.default', { n: s + 1 }));
  return String(name ?? '');
}

/** A choice option with at most this many values is a list of radio buttons, not a select. */
const MAX_RADIO_CHOICES = 10;

/**
 * The display name of a choice option's value: the first of the catalogue's keys
 * `option.<name>.<value>`, `option-value.<name>.<value>`, `value.<name>.<value>`, `<value>`; else
 * the value made readable ("open-war" -> "Open war"), counted as a missing text.
 */
function choiceName(rulesetId, optionName, value) {
  const keys = [`option.${optionName}.${value}`, `option-value.${optionName}.${value}`, `value.${optionName}.${value}`, value];
  for (const key of keys) if (hasKey(rulesetId, key)) return nameOf(rulesetId, { key });
  // Through the formatter, so the missing text is counted like any other.
  messageText(rulesetId, { key: keys[0] }, () => '');
  const words = String(value).replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The JSON value of an OptionValue ({integer: 3} or plain 3). */
/** A ruleset that ships no map takes none (the host stores such a game's map as "none"). */
function takesNoMap(ruleset) {
  return !(ruleset.maps || []).length;
}

function plainValue(value) {
  if (value && typeof value === 'object') {
    const [kind] = Object.keys(value);
    return value[kind];
  }
  return value;
}

/** Mounts the lobby; `ruleset` and `map` preselect the new-game form (the map page links here). */
export async function mountLobby(root, { ruleset, map } = {}) {
  const lobby = new Lobby(root);
  await lobby.start({ ruleset, map });
  return lobby;
}

class Lobby {
  constructor(root) {
    this.root = root;
    this.rulesets = [];
    this.form = { ruleset: null, map: null, variant: '', count: 0, seats: [], options: {}, seed: '' };
  }

  destroy() {}

  async start({ ruleset: wantedRuleset, map: wantedMap } = {}) {
    replace(this.root, h('p', { class: 'loading' }, t('common.loading')));
    try {
      this.rulesets = await get('/api/rulesets');
    } catch (err) {
      replace(this.root, h('div', { class: 'panel error-panel' }, h('p', {}, errorText(err))));
      return;
    }
    this.createPanel = h('section', { class: 'panel create', 'aria-labelledby': 'create-title' });
    this.createdPanel = h('section', { class: 'panel created', hidden: true, 'aria-labelledby': 'created-title', tabindex: '-1' });
    this.mine = h('section', { class: 'panel my-games', 'aria-labelledby': 'mine-title' });
    this.all = h('section', { class: 'panel all-games', 'aria-labelledby': 'all-title' });
    replace(this.root, h('div', { class: 'lobby' }, h('div', { class: 'lobby-left' }, this.createdPanel, this.createPanel), h('div', { class: 'lobby-right' }, this.mine, this.all)));
    // Start with the ruleset asked for, else one that can be played: one that takes no map or has
    // a valid one.
    const playable =
      this.rulesets.find((r) => r.id === wantedRuleset) ||
      this.rulesets.find((r) => takesNoMap(r) || r.maps.some((m) => m.valid !== false)) ||
      this.rulesets[0];
    if (playable) await this.selectRuleset(playable.id, wantedMap);
    else replace(this.createPanel, h('p', {}, t('lobby.no-rulesets')));
    await this.renderGames();
  }

  ruleset() {
    return this.rulesets.find((r) => r.id === this.form.ruleset);
  }

  async selectRuleset(id, wantedMap) {
    const ruleset = this.rulesets.find((r) => r.id === id);
    await loadCatalogue(id);
    const valid = (ruleset.maps || []).filter((m) => m.valid !== false);
    const wanted = valid.find((m) => m.id === wantedMap);
    const count = Math.min(ruleset.max_seats, Math.max(ruleset.min_seats, 4));
    this.form = {
      ruleset: id,
      map: (wanted || valid[0] || (ruleset.maps || [])[0] || {}).id || null,
      variant: '',
      count,
      seats: Array.from({ length: ruleset.max_seats }, (_, i) => ({ kind: i === 0 ? 'human' : 'bot', bot: 'search', name: '' })),
      options: Object.fromEntries((ruleset.options || []).map((o) => [o.name, plainValue(o.default)])),
      seed: '',
    };
    this.renderCreate();
  }

  renderCreate() {
    const ruleset = this.ruleset();
    const f = this.form;
    const field = (id, label, control, hint) => h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null);

    const rulesetSelect = h('select', { id: 'new-ruleset', name: 'ruleset' }, this.rulesets.map((r) => h('option', { value: r.id, selected: r.id === f.ruleset }, `${r.name} ${r.version}`)));
    rulesetSelect.addEventListener('change', () => this.selectRuleset(rulesetSelect.value));

    // Every map on offer; a map with errors is shown but cannot be chosen. A ruleset that ships no
    // map takes none: no picker, and the request names no map.
    const noMap = takesNoMap(ruleset);
    const mapSelect = noMap ? null : h('select', { id: 'new-map', name: 'map' }, mapOptions(ruleset, f.map, { disableInvalid: true }));
    if (mapSelect) mapSelect.addEventListener('change', () => (f.map = mapSelect.value));

    const variantSelect = h(
      'select',
      { id: 'new-variant', name: 'variant' },
      h('option', { value: '' }, t('lobby.variant-none')),
      (ruleset.variants || []).map((v) => h('option', { value: v.id, selected: v.id === f.variant }, nameOf(ruleset.id, v.name) || v.id)),
    );
    variantSelect.addEventListener('change', () => {
      f.variant = variantSelect.value;
      const variant = (ruleset.variants || []).find((v) => v.id === f.variant);
      f.options = Object.fromEntries((ruleset.options || []).map((o) => [o.name, plainValue(o.default)]));
      if (variant) for (const [name, value] of Object.entries(variant.options || {})) f.options[name] = plainValue(value);
      this.renderCreate();
      this.createPanel.querySelector('#new-variant')?.focus();
    });

    const countSelect = h('select', { id: 'new-count', name: 'count' });
    for (let n = ruleset.min_seats; n <= ruleset.max_seats; n += 1) countSelect.append(h('option', { value: n, selected: n === f.count }, String(n)));
    countSelect.addEventListener('change', () => {
      f.count = Number(countSelect.value);
      this.renderCreate();
      this.createPanel.querySelector('#new-count')?.focus();
    });

    const seatRows = h('fieldset', { class: 'seat-rows' }, h('legend', {}, t('lobby.seats')));
    for (let i = 0; i < f.count; i += 1) {
      const seat = f.seats[i];
      const kind = h(
        'select',
        { id: `seat-${i}-kind`, 'aria-label': t('lobby.seat-kind', { n: i + 1 }), 'data-seat-kind': i },
        h('option', { value: 'human', selected: seat.kind === 'human' }, t('lobby.kind-human')),
        h('option', { value: 'invite', selected: seat.kind === 'invite' }, t('lobby.kind-invite')),
        BOTS.map((bot) => h('option', { value: `bot:${bot}`, selected: seat.kind === 'bot' && seat.bot === bot }, t(`lobby.kind-bot-${bot}`))),
      );
      kind.addEventListener('change', () => {
        if (kind.value === 'human' || kind.value === 'invite') seat.kind = kind.value;
        else {
          seat.kind = 'bot';
          seat.bot = kind.value.slice(4);
        }
        name.disabled = seat.kind === 'bot';
      });
      const name = h('input', { type: 'text', id: `seat-${i}-name`, maxlength: 40, value: seat.name, placeholder: t('seat.default', { n: i + 1 }), 'aria-label': t('lobby.seat-name', { n: i + 1 }), disabled: seat.kind === 'bot' });
      name.addEventListener('input', () => (seat.name = name.value));
      seatRows.append(h('div', { class: 'seat-row' }, h('span', { class: `seat-chip seat-${i}` }, h('span', { class: 'seat-symbol', 'aria-hidden': 'true' }, seatSymbol(i)), h('span', { class: 'seat-name' }, t('seat.default', { n: i + 1 }))), kind, name));
    }

    const optionFields = h('fieldset', { class: 'options' }, h('legend', {}, t('lobby.options')));
    for (const option of ruleset.options || []) optionFields.append(this.optionField(ruleset, option));
    if (!(ruleset.options || []).length) optionFields.append(h('p', { class: 'hint' }, t('lobby.no-options')));

    const seedInput = h('input', { type: 'text', id: 'new-seed', pattern: '[0-9a-fA-F]{64}', maxlength: 64, value: f.seed, spellcheck: 'false', autocomplete: 'off' });
    seedInput.addEventListener('input', () => (f.seed = seedInput.value.trim()));

    const form = h(
      'form',
      { class: 'create-form', novalidate: true },
      field('new-ruleset', t('lobby.ruleset'), rulesetSelect),
      noMap ? null : field('new-map', t('lobby.map'), mapSelect),
      field('new-variant', t('lobby.variant'), variantSelect),
      field('new-count', t('lobby.players'), countSelect),
      seatRows,
      optionFields,
      h('details', { class: 'advanced' }, h('summary', {}, t('lobby.advanced')), field('new-seed', t('lobby.seed'), seedInput, t('lobby.seed-hint'))),
      h('p', { class: 'form-error', role: 'alert', hidden: true }),
      h('button', { type: 'submit', class: 'primary big', 'data-action': 'create' }, t('lobby.create')),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.create(form);
    });
    replace(this.createPanel, h('h1', { id: 'create-title' }, t('lobby.new-game')), form);
  }

  optionField(ruleset, option) {
    const id = `opt-${option.name}`;
    const f = this.form;
    const description = option.description ? nameOf(ruleset.id, option.description) : option.name;
    const kindName = Object.keys(option.kind && typeof option.kind === 'object' ? option.kind : { [option.kind]: null })[0];
    const spec = option.kind && typeof option.kind === 'object' ? option.kind[kindName] : null;
    let control;
    if (kindName === 'boolean') {
      control = h('input', { type: 'checkbox', id, checked: !!f.options[option.name] });
      control.addEventListener('change', () => (f.options[option.name] = control.checked));
      return h('div', { class: 'field checkbox' }, control, h('label', { for: id }, description));
    }
    if (kindName === 'choice' && (spec || []).length <= MAX_RADIO_CHOICES) {
      // Radio buttons: their labels wrap, where a select cut a long one short on a phone ("Side
      // a: the same start for every…", "Card 5: points for each town square surr…").
      const choices = (spec || []).map((value, i) => {
        const radio = h('input', { type: 'radio', name: id, id: `${id}-${i}`, value, checked: value === f.options[option.name] });
        radio.addEventListener('change', () => {
          if (radio.checked) f.options[option.name] = value;
        });
        return h('div', { class: 'choice' }, radio, h('label', { for: `${id}-${i}` }, choiceName(ruleset.id, option.name, value)));
      });
      return h('fieldset', { class: 'field choices', id }, h('legend', {}, description), choices);
    }
    if (kindName === 'choice') {
      control = h('select', { id }, (spec || []).map((value) => h('option', { value, selected: value === f.options[option.name] }, choiceName(ruleset.id, option.name, value))));
      control.addEventListener('change', () => (f.options[option.name] = control.value));
    } else {
      const integer = kindName === 'integer';
      control = h('input', { type: 'number', id, min: spec && spec.min, max: spec && spec.max, step: integer ? 1 : 'any', value: f.options[option.name], required: true });
      control.addEventListener('input', () => (f.options[option.name] = control.value === '' ? '' : Number(control.value)));
    }
    const range = spec && typeof spec === 'object' && 'min' in spec ? t('lobby.option-range', { min: spec.min, max: spec.max }) : null;
    return h('div', { class: 'field' }, h('label', { for: id }, description), control, range ? h('p', { class: 'hint' }, range) : null);
  }

  /** Checks the form; returns an error text or null. */
  check() {
    const ruleset = this.ruleset();
    const f = this.form;
    if (!f.map && !takesNoMap(ruleset)) return t('lobby.error-map');
    for (const option of ruleset.options || []) {
      const kindName = Object.keys(option.kind && typeof option.kind === 'object' ? option.kind : { [option.kind]: null })[0];
      const spec = option.kind && typeof option.kind === 'object' ? option.kind[kindName] : null;
      const value = f.options[option.name];
      if (kindName === 'integer' || kindName === 'decimal') {
        const bad = typeof value !== 'number' || !Number.isFinite(value) || (kindName === 'integer' && !Number.isInteger(value)) || value < spec.min || value > spec.max;
        if (bad) return t('lobby.error-option', { name: nameOf(ruleset.id, option.description) || option.name, min: spec.min, max: spec.max });
      }
    }
    if (f.seed && !/^[0-9a-fA-F]{64}$/.test(f.seed)) return t('lobby.error-seed');
    return null;
  }

  async create(form) {
    const error = form.querySelector('.form-error');
    const problem = this.check();
    if (problem) {
      error.textContent = problem;
      error.hidden = false;
      return;
    }
    error.hidden = true;
    const ruleset = this.ruleset();
    const f = this.form;
    const options = {};
    for (const option of ruleset.options || []) {
      if (JSON.stringify(f.options[option.name]) !== JSON.stringify(plainValue(option.default))) options[option.name] = f.options[option.name];
    }
    const body = {
      ruleset: f.ruleset,
      // 'human' is a seat played on this device (its token comes back); 'invite' one for another
      // person (an invite code comes back).
      seats: f.seats
        .slice(0, f.count)
        .map((s) => (s.kind === 'bot' ? { kind: 'bot', bot: s.bot } : { kind: 'human', ...(s.kind === 'human' ? { creator: true } : {}), ...(s.name.trim() ? { name: s.name.trim() } : {}) })),
    };
    if (!takesNoMap(ruleset)) body.map = f.map;
    if (f.variant) body.variant = f.variant;
    if (Object.keys(options).length) body.options = options;
    if (f.seed) body.seed = f.seed.toLowerCase();
    const button = form.querySelector('[data-action="create"]');
    button.disabled = true;
    try {
      const created = await post('/api/games', body);
      saveHost(created.id, created.host_token, { ruleset: f.ruleset });
      for (const seat of created.seats || []) if (seat.token) saveSeat(created.id, seat.seat, seat.token, { ruleset: f.ruleset });
      this.showCreated(created);
      await this.renderGames();
    } catch (err) {
      error.textContent = errorText(err);
      error.hidden = false;
    } finally {
      button.disabled = false;
    }
  }

  showCreated(created) {
    const id = encodeURIComponent(created.id);
    const own = (created.seats || []).filter((s) => s.token);
    const rows = (created.seats || [])
      .filter((s) => s.token || s.invite)
      .map((seat) =>
        seat.token
          ? h(
              'li',
              { class: 'invite own' },
              seatChip(created.seats, seat.seat),
              h('span', { class: 'invite-state' }, t('lobby.seat-yours')),
              h('a', { class: 'button small primary', href: `#/play/${id}?seat=${seat.seat}`, 'data-play-seat': seat.seat }, t('lobby.play-here')),
            )
          : inviteRow({ gameId: created.id, seats: created.seats, seat: seat.seat, state: 'code', code: seat.invite }),
      );
    this.createdPanel.dataset.gameId = created.id;
    replace(
      this.createdPanel,
      h('h2', { id: 'created-title' }, t('lobby.created')),
      rows.length > own.length ? h('p', { class: 'hint' }, t('lobby.invite-hint')) : null,
      h('ul', { class: 'invites' }, rows),
      h(
        'p',
        { class: 'created-actions' },
        own.length > 1 ? h('a', { class: 'button', href: `#/hotseat/${id}`, 'data-action': 'hotseat' }, t('lobby.hotseat')) : null,
        ' ',
        h('a', { class: 'button secondary', href: `#/watch/${id}` }, t('lobby.watch')),
      ),
    );
    this.createdPanel.hidden = false;
    this.createdPanel.focus();
  }

  async renderGames() {
    let games = [];
    try {
      games = await get('/api/games');
    } catch (err) {
      toast(errorText(err), 'error');
    }
    const byId = new Map(games.map((g) => [g.id, g]));
    await Promise.all([...new Set(games.map((g) => g.ruleset))].filter((id) => this.rulesets.some((r) => r.id === id)).map((id) => loadCatalogue(id)));
    const what = (game) => {
      const ruleset = this.rulesets.find((r) => r.id === game.ruleset);
      const map = ruleset && (ruleset.maps || []).find((m) => m.id === game.map);
      const when = Number(game.created_at) ? new Date(Number(game.created_at)).toLocaleString(language(), { dateStyle: 'short', timeStyle: 'short' }) : '';
      const rulesetName = ruleset ? ruleset.name : game.ruleset;
      const mapName = map ? nameOf(ruleset.id, map.name) : ruleset && takesNoMap(ruleset) ? '' : game.map;
      return h('span', { class: 'game-what' }, mapName ? `${rulesetName} · ${mapName}` : rulesetName, when ? h('span', { class: 'game-when' }, ` · ${when}`) : null);
    };
    const status = (g) => (g && g.status === 'finished' ? t('lobby.status-finished') : t('lobby.status-active'));
    const mine = myGames().filter((g) => byId.has(g.id));
    const mineList = h('ul', { class: 'game-list' });
    for (const entry of mine) {
      const game = byId.get(entry.id);
      const seats = seatsOf(entry.id);
      const links = seats.map((s) => h('a', { class: 'button small', href: `#/play/${encodeURIComponent(entry.id)}?seat=${s.seat}`, title: t('lobby.play-as', { seat: seatName(game.seats, s.seat) }) }, seatChip(game.seats, s.seat)));
      if (seats.length > 1) links.push(h('a', { class: 'button small secondary', href: `#/hotseat/${encodeURIComponent(entry.id)}` }, t('lobby.hotseat-short')));
      if (game.status === 'finished') links.push(h('a', { class: 'button small secondary', href: `#/replay/${encodeURIComponent(entry.id)}` }, t('lobby.replay')));
      const row = h('li', { class: 'game-row', 'data-game': entry.id }, what(game), h('span', { class: `badge ${game.status}` }, status(game)), h('span', { class: 'game-links' }, links));
      if (entry.host && game.status !== 'finished' && game.seats.some((s) => s.kind === 'human' && !seats.some((own) => own.seat === s.seat))) {
        // The creator's invite controls, fetched when asked for.
        const toggle = h('button', { type: 'button', class: 'button small secondary', 'aria-expanded': 'false', 'data-invites': entry.id }, t('lobby.invites'));
        toggle.addEventListener('click', async () => {
          const open = row.querySelector('.invites-panel');
          if (open) {
            open.remove();
            toggle.setAttribute('aria-expanded', 'false');
            return;
          }
          toggle.setAttribute('aria-expanded', 'true');
          row.append(await invitesPanel(entry.id));
        });
        row.querySelector('.game-links').append(toggle);
      }
      mineList.append(row);
    }
    replace(this.mine, h('h2', { id: 'mine-title' }, t('lobby.your-games')), mine.length ? mineList : h('p', { class: 'hint' }, t('lobby.none')));

    const allList = h('ul', { class: 'game-list' });
    for (const game of [...games].sort((a, b) => (Number(b.created_at) || 0) - (Number(a.created_at) || 0)).slice(0, 50)) {
      const links = [h('a', { class: 'button small secondary', href: `#/watch/${encodeURIComponent(game.id)}` }, t('lobby.watch'))];
      if (game.status === 'finished') links.push(h('a', { class: 'button small secondary', href: `#/replay/${encodeURIComponent(game.id)}` }, t('lobby.replay')));
      allList.append(
        h(
          'li',
          { class: 'game-row', 'data-game': game.id },
          what(game),
          h('span', { class: 'game-seats' }, (game.seats || []).map((s) => seatChip(game.seats, s.seat, { withName: false }))),
          h('span', { class: `badge ${game.status}` }, status(game)),
          h('span', { class: 'game-links' }, links),
        ),
      );
    }
    replace(this.all, h('h2', { id: 'all-title' }, t('lobby.all-games')), games.length ? allList : h('p', { class: 'hint' }, t('lobby.none')));
  }
}
