// The lobby: create a game (ruleset, board side, seats, bots, variant options generated from the
// ruleset's option schema), share one single-use invite link per invited person's seat (copy,
// revoke, new link), resume this browser's games and watch any game. The browser keeps the tokens
// of the seats it plays and the host token of the games it created, never another person's seat.

import { get, post } from './api.js';
import { errorText, h, replace, toast, loadOrExplain } from './dom.js';
import { hasKey, loadCatalogue, locale, messageText, noteUntranslated, t } from './i18n.js';
import { invitesPanel, inviteRow } from './invites.js';
import { mapOptions } from './maps.js';
import { seatChip, seatName, seatSymbol } from './seats.js';
import { botKindAbout, botKindLabel, DEFAULT_BOT_LEVEL, LOBBY_BOTS } from './botlevels.js';
import { defaultPace, paceFieldset, paceLabel, paceProblem, paceRequest } from './clocks.js';
import { botRatings, ratedField, ratedProblem } from './ratings.js';
import { localSeats } from './seatnames.js';
import { myGames, saveHost, saveSeat, seatsOf } from './store.js';

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

/** Words made readable: "open-war" -> "Open war". */
function readable(value) {
  const words = String(value).replace(/[-_]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The variant that changes no option (the standard game), if the ruleset has one. */
export function standardVariant(ruleset) {
  return (ruleset.variants || []).find((v) => !Object.keys(v.options || {}).length) || null;
}

/** A variant's name: the ruleset catalogue's `variant.<id>` if it has it, else the file's name. */
export function variantName(rulesetId, variant) {
  const key = `variant.${variant.id}`;
  if (hasKey(rulesetId, key)) return nameOf(rulesetId, { key });
  // A name given as a catalogue key is counted by the formatter itself.
  if (!(variant.name && typeof variant.name === 'object')) noteUntranslated(rulesetId, key);
  return nameOf(rulesetId, variant.name) || readable(variant.id);
}

/** What a variant changes: the catalogue's `variant.<id>.description`, else the file's text. */
export function variantDescription(rulesetId, variant) {
  const key = `variant.${variant.id}.description`;
  if (hasKey(rulesetId, key)) return nameOf(rulesetId, { key });
  if (variant.description && typeof variant.description !== 'object') noteUntranslated(rulesetId, key);
  return variant.description ? nameOf(rulesetId, variant.description) : '';
}

/** Every option's value under a variant ('' or unknown: the defaults). */
export function variantOptions(ruleset, variantId) {
  const values = Object.fromEntries((ruleset.options || []).map((o) => [o.name, plainValue(o.default)]));
  const variant = (ruleset.variants || []).find((v) => v.id === variantId);
  if (variant) for (const [name, value] of Object.entries(variant.options || {})) values[name] = plainValue(value);
  return values;
}

/** Whether a numeric option is a chance: a decimal from 0 to 1, shown as a percentage. */
function isProbability(kindName, spec) {
  return kindName === 'decimal' && spec && Number(spec.min) === 0 && Number(spec.max) === 1;
}

/**
 * The options in schema order, those that belong together folded into groups, found from their
 * names: options whose names end in the same word (`forest-points`, `lake-points`) or begin with
 * the same word (`tower-lodge-chance`, `tower-release-chance`). The largest groups form first (a
 * beginning before an ending when as large); a group needs two options. A group takes the place
 * of its first option. Returns [{option} | {group, options}].
 */
export function optionGroups(options) {
  const candidates = [];
  for (const [end, pick] of [
    [false, (parts) => parts[0]],
    [true, (parts) => parts[parts.length - 1]],
  ]) {
    const byWord = new Map();
    for (const option of options) {
      const parts = String(option.name).split(/[-_.]/).filter(Boolean);
      if (parts.length < 2) continue;
      byWord.set(pick(parts), [...(byWord.get(pick(parts)) || []), option]);
    }
    for (const [word, members] of byWord) candidates.push({ word, members, end });
  }
  candidates.sort((a, b) => b.members.length - a.members.length || Number(a.end) - Number(b.end));
  const groupOf = new Map();
  for (const { word, members } of candidates) {
    const free = members.filter((o) => !groupOf.has(o));
    if (free.length >= 2 && free.length === members.length) for (const option of free) groupOf.set(option, word);
  }
  const entries = [];
  const placed = new Set();
  for (const option of options) {
    const group = groupOf.get(option);
    if (!group) entries.push({ option });
    else if (!placed.has(group)) {
      placed.add(group);
      entries.push({ group, options: options.filter((o) => groupOf.get(o) === group) });
    }
  }
  // Groups next to each other whose options are all of one kind and range (points, then bonus
  // points, 0 to 20 each) are one group, named after the first.
  const shape = (group) => [...new Set(group.options.map((o) => JSON.stringify(o.kind)))];
  return entries.reduce((merged, entry) => {
    const last = merged[merged.length - 1];
    if (entry.group && last && last.group && shape(last).length === 1 && shape(entry).length === 1 && shape(last)[0] === shape(entry)[0]) {
      last.options = [...last.options, ...entry.options];
    } else merged.push(entry);
    return merged;
  }, []);
}

/** A group's heading: the ruleset catalogue's `option-group.<word>`, else the word. */
function groupName(rulesetId, word) {
  const key = `option-group.${word}`;
  if (hasKey(rulesetId, key)) return nameOf(rulesetId, { key });
  noteUntranslated(rulesetId, key);
  return readable(word);
}

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

/**
 * The option form of a ruleset, generated from its option schema: one field per option, the
 * options that belong together folded into a disclosure each (see optionGroups). Edits go into
 * `values` (option name -> plain value); `variantId` is the variant the values started from (a
 * group says how many of its options differ from it); `openGroups` (a Set the caller keeps)
 * remembers which disclosures are open when the form is drawn again. Shared by the lobby and the
 * variant lab.
 */
export function optionFieldset(ruleset, values, variantId, openGroups) {
  const optionFields = h('fieldset', { class: 'options' }, h('legend', {}, t('lobby.options')));
  // Options that belong together (by name, see optionGroups) fold into one disclosure each.
  for (const entry of optionGroups(ruleset.options || [])) {
    if (!entry.group) {
      optionFields.append(optionField(ruleset, entry.option, values));
      continue;
    }
    const baseline = variantOptions(ruleset, variantId);
    const changed = entry.options.filter((o) => JSON.stringify(values[o.name]) !== JSON.stringify(baseline[o.name])).length;
    const details = h(
      'details',
      { class: 'option-group', 'data-option-group': entry.group, open: openGroups.has(entry.group) || undefined },
      h('summary', {}, groupName(ruleset.id, entry.group), ' ', h('span', { class: 'hint' }, changed ? t('lobby.group-changed', { n: changed, total: entry.options.length }) : t('lobby.group-count', { n: entry.options.length }))),
      entry.options.map((option) => optionField(ruleset, option, values)),
    );
    details.addEventListener('toggle', () => {
      if (details.open) openGroups.add(entry.group);
      else openGroups.delete(entry.group);
    });
    optionFields.append(details);
  }
  if (!(ruleset.options || []).length) optionFields.append(h('p', { class: 'hint' }, t('lobby.no-options')));
  return optionFields;
}

/** One option's field: a checkbox, radio buttons or a select of names, a percentage or a number. */
function optionField(ruleset, option, values) {
  const id = `opt-${option.name}`;
  const description = option.description ? nameOf(ruleset.id, option.description) : option.name;
  const kindName = Object.keys(option.kind && typeof option.kind === 'object' ? option.kind : { [option.kind]: null })[0];
  const spec = option.kind && typeof option.kind === 'object' ? option.kind[kindName] : null;
  let control;
  if (kindName === 'boolean') {
    control = h('input', { type: 'checkbox', id, checked: !!values[option.name] });
    control.addEventListener('change', () => (values[option.name] = control.checked));
    return h('div', { class: 'field checkbox' }, control, h('label', { for: id }, description));
  }
  if (kindName === 'choice' && (spec || []).length <= MAX_RADIO_CHOICES) {
    // Radio buttons: their labels wrap, where a select cut a long one short on a phone ("Side
    // a: the same start for every…", "Card 5: points for each town square surr…").
    const choices = (spec || []).map((value, i) => {
      const radio = h('input', { type: 'radio', name: id, id: `${id}-${i}`, value, checked: value === values[option.name] });
      radio.addEventListener('change', () => {
        if (radio.checked) values[option.name] = value;
      });
      return h('div', { class: 'choice' }, radio, h('label', { for: `${id}-${i}` }, choiceName(ruleset.id, option.name, value)));
    });
    return h('fieldset', { class: 'field choices', id }, h('legend', {}, description), choices);
  }
  if (kindName === 'choice') {
    control = h('select', { id }, (spec || []).map((value) => h('option', { value, selected: value === values[option.name] }, choiceName(ruleset.id, option.name, value))));
    control.addEventListener('change', () => (values[option.name] = control.value));
  } else if (isProbability(kindName, spec)) {
    // A chance between 0 and 1 reads as a percentage: a slider and the number beside it.
    const percent = (value) => Math.round(Number(value) * 1000) / 10;
    const number = h('input', { type: 'number', id, min: 0, max: 100, step: 0.5, value: percent(values[option.name]), required: true, class: 'percent-input' });
    const slider = h('input', { type: 'range', min: 0, max: 100, step: 0.5, value: percent(values[option.name]), 'aria-label': description, 'data-option-slider': option.name });
    const set = (from, to) => {
      to.value = from.value;
      values[option.name] = from.value === '' ? '' : Math.round(Number(from.value) * 10) / 1000;
    };
    number.addEventListener('input', () => set(number, slider));
    slider.addEventListener('input', () => set(slider, number));
    control = h('span', { class: 'percent-control' }, slider, number, h('span', { 'aria-hidden': 'true' }, '%'));
    return h('div', { class: 'field' }, h('label', { for: id }, description), control);
  } else {
    const integer = kindName === 'integer';
    control = h('input', { type: 'number', id, min: spec && spec.min, max: spec && spec.max, step: integer ? 1 : 'any', value: values[option.name], required: true });
    control.addEventListener('input', () => (values[option.name] = control.value === '' ? '' : Number(control.value)));
  }
  const range = spec && typeof spec === 'object' && 'min' in spec ? t('lobby.option-range', { min: spec.min, max: spec.max }) : null;
  return h('div', { class: 'field' }, h('label', { for: id }, description), control, range ? h('p', { class: 'hint' }, range) : null);
}

/** What is wrong with the option values of the form (a number out of its range), or null. */
export function optionProblem(ruleset, values) {
  for (const option of ruleset.options || []) {
    const kindName = Object.keys(option.kind && typeof option.kind === 'object' ? option.kind : { [option.kind]: null })[0];
    const spec = option.kind && typeof option.kind === 'object' ? option.kind[kindName] : null;
    const value = values[option.name];
    if (kindName === 'integer' || kindName === 'decimal') {
      const bad = typeof value !== 'number' || !Number.isFinite(value) || (kindName === 'integer' && !Number.isInteger(value)) || value < spec.min || value > spec.max;
      if (bad) return t('lobby.error-option', { name: nameOf(ruleset.id, option.description) || option.name, min: spec.min, max: spec.max });
    }
  }
  return null;
}

/**
 * The option values to send with a variant: every value that differs from what the variant gives
 * (the server starts from the variant's values), so an option set back to its default by hand is
 * sent too.
 */
export function changedOptions(ruleset, variantId, values) {
  const options = {};
  const baseline = variantOptions(ruleset, variantId);
  for (const option of ruleset.options || []) {
    if (JSON.stringify(values[option.name]) !== JSON.stringify(baseline[option.name])) options[option.name] = values[option.name];
  }
  return options;
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
    this.rulesets = await loadOrExplain(this.root, () => get('/api/rulesets'));
    if (this.rulesets === undefined) return;
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
    // The form of the ruleset before stays on screen while the new one's texts arrive: its
    // controls are disabled meanwhile, so a choice made then (a seat count picked at once) is not
    // made on a form about to be replaced by the new ruleset's defaults.
    this.createPanel.setAttribute('aria-busy', 'true');
    // Disabling the focused list would drop a keyboard user's focus to the page's top: the new
    // form gives it back to the control of the same id.
    const focused = this.createPanel.contains(document.activeElement) ? document.activeElement.id : '';
    for (const control of this.createPanel.querySelectorAll('select, input, button, textarea')) control.disabled = true;
    await loadCatalogue(id);
    this.createPanel.removeAttribute('aria-busy');
    const valid = (ruleset.maps || []).filter((m) => m.valid !== false);
    const wanted = valid.find((m) => m.id === wantedMap);
    const count = Math.min(ruleset.max_seats, Math.max(ruleset.min_seats, 4));
    this.form = {
      ruleset: id,
      map: (wanted || valid[0] || (ruleset.maps || [])[0] || {}).id || null,
      variant: '',
      count,
      seats: Array.from({ length: ruleset.max_seats }, (_, i) => ({ kind: i === 0 ? 'human' : 'bot', bot: DEFAULT_BOT_LEVEL, name: '' })),
      options: Object.fromEntries((ruleset.options || []).map((o) => [o.name, plainValue(o.default)])),
      seed: '',
    };
    this.renderCreate(focused);
  }

  /** Draws the form; the control of id `focusId` (else the one focused now) keeps the focus. */
  renderCreate(focusId = this.createPanel.contains(document.activeElement) ? document.activeElement.id : '') {
    const ruleset = this.ruleset();
    const f = this.form;
    // Which ruleset the form is for, for scripts and tests (the select says so too, once drawn).
    this.createPanel.dataset.ruleset = ruleset.id;
    const field = (id, label, control, hint) => h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null);

    const rulesetSelect = h('select', { id: 'new-ruleset', name: 'ruleset' }, this.rulesets.map((r) => h('option', { value: r.id, selected: r.id === f.ruleset }, r.name)));
    rulesetSelect.addEventListener('change', () => this.selectRuleset(rulesetSelect.value));

    // Every map on offer; a map with errors is shown but cannot be chosen. A ruleset that ships no
    // map takes none: no picker, and the request names no map.
    const noMap = takesNoMap(ruleset);
    const mapSelect = noMap ? null : h('select', { id: 'new-map', name: 'map' }, mapOptions(ruleset, f.map, { disableInvalid: true }));
    if (mapSelect) mapSelect.addEventListener('change', () => (f.map = mapSelect.value));

    // A variant that changes nothing is the standard game: it names the first entry, not a second.
    const standard = standardVariant(ruleset);
    const variants = (ruleset.variants || []).filter((v) => v !== standard);
    const variantSelect = h(
      'select',
      { id: 'new-variant', name: 'variant', 'aria-describedby': 'new-variant-hint' },
      h('option', { value: '' }, standard ? variantName(ruleset.id, standard) : t('lobby.variant-none')),
      variants.map((v) => h('option', { value: v.id, selected: v.id === f.variant }, variantName(ruleset.id, v))),
    );
    variantSelect.addEventListener('change', () => {
      f.variant = variantSelect.value;
      f.options = variantOptions(ruleset, f.variant);
      this.renderCreate();
      this.createPanel.querySelector('#new-variant')?.focus();
    });
    const picked = (ruleset.variants || []).find((v) => v.id === f.variant) || (f.variant ? null : standard);
    const variantHint = picked ? variantDescription(ruleset.id, picked) : '';

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
        LOBBY_BOTS.map((bot) => h('option', { value: `bot:${bot}`, title: botKindAbout(bot), selected: seat.kind === 'bot' && seat.bot === bot }, botKindLabel(bot))),
      );
      kind.addEventListener('change', () => {
        if (kind.value === 'human' || kind.value === 'invite') seat.kind = kind.value;
        else {
          seat.kind = 'bot';
          seat.bot = kind.value.slice(4);
        }
        name.disabled = seat.kind === 'bot';
        showAbout();
      });
      const name = h('input', { type: 'text', id: `seat-${i}-name`, maxlength: 40, value: seat.name, placeholder: t('seat.default', { n: i + 1 }), 'aria-label': t('lobby.seat-name', { n: i + 1 }), disabled: seat.kind === 'bot' });
      name.addEventListener('input', () => (seat.name = name.value));
      seatRows.append(h('div', { class: 'seat-row' }, h('span', { class: `seat-chip seat-${i}` }, h('span', { class: 'seat-symbol', 'aria-hidden': 'true' }, seatSymbol(i)), h('span', { class: 'seat-name' }, t('seat.default', { n: i + 1 }))), kind, name));
    }
    // What each bot chosen for a seat is like, one line per kind chosen, as the kinds change.
    const about = h('ul', { class: 'hint bot-about', 'data-bot-about': '' });
    const showAbout = () => {
      const chosen = LOBBY_BOTS.filter((bot) => f.seats.slice(0, f.count).some((s) => s.kind === 'bot' && s.bot === bot));
      about.replaceChildren(...chosen.map((bot) => h('li', { 'data-bot-about-kind': bot }, botKindAbout(bot), this.botRatings && this.botRatings.has(bot) ? ` ${t('ratings.bot-rating', { rating: this.botRatings.get(bot) })}` : '')));
      about.hidden = chosen.length === 0;
    };
    showAbout();
    // A bot level's rating on this ladder, when known, so a newcomer can choose by strength.
    this.botRatings = null;
    botRatings(f.ruleset, f.count, (ratings) => {
      this.botRatings = ratings;
      showAbout();
    });
    seatRows.append(about);

    this.openGroups = this.openGroups || new Set();
    const optionFields = optionFieldset(ruleset, f.options, f.variant, this.openGroups);

    const seedInput = h('input', { type: 'text', id: 'new-seed', pattern: '[0-9a-fA-F]{64}', maxlength: 64, value: f.seed, spellcheck: 'false', autocomplete: 'off' });
    seedInput.addEventListener('input', () => (f.seed = seedInput.value.trim()));

    const form = h(
      'form',
      { class: 'create-form', novalidate: true },
      field('new-ruleset', t('lobby.ruleset'), rulesetSelect),
      noMap ? null : field('new-map', t('lobby.map'), mapSelect),
      h('div', { class: 'field' }, h('label', { for: 'new-variant' }, t('lobby.variant')), variantSelect, h('p', { class: 'hint variant-hint', id: 'new-variant-hint', hidden: !variantHint }, variantHint)),
      field('new-count', t('lobby.players'), countSelect),
      seatRows,
      optionFields,
      paceFieldset((f.pace ||= defaultPace())),
      ratedField(f),
      h('details', { class: 'advanced' }, h('summary', {}, t('lobby.advanced')), field('new-seed', t('lobby.seed'), seedInput, t('lobby.seed-hint'))),
      h('p', { class: 'form-error', role: 'alert', hidden: true }),
      // Kept in sight at the bottom of the window however long the form is.
      h('div', { class: 'create-bar' }, h('button', { type: 'submit', class: 'primary big', 'data-action': 'create' }, t('lobby.create'))),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.create(form);
    });
    replace(this.createPanel, h('h1', { id: 'create-title' }, t('lobby.new-game')), form);
    if (focusId) document.getElementById(focusId)?.focus();
  }

  /** Checks the form; returns an error text or null. */
  check() {
    const ruleset = this.ruleset();
    const f = this.form;
    if (!f.map && !takesNoMap(ruleset)) return t('lobby.error-map');
    const problem = optionProblem(ruleset, f.options);
    if (problem) return problem;
    if (f.seed && !/^[0-9a-fA-F]{64}$/.test(f.seed)) return t('lobby.error-seed');
    return paceProblem(f.pace || defaultPace()) || ratedProblem(f, (f.pace || defaultPace()).kind);
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
    const options = changedOptions(ruleset, f.variant, f.options);
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
    const pace = paceRequest(f.pace || defaultPace());
    if (pace) body.pace = pace;
    if (f.rated) body.rated = true;
    const button = form.querySelector('[data-action="create"]');
    button.disabled = true;
    try {
      const created = await post('/api/games', body);
      saveHost(created.id, created.host_token, { ruleset: f.ruleset });
      for (const seat of created.seats || []) if (seat.token) saveSeat(created.id, seat.seat, seat.token, { ruleset: f.ruleset });
      // Nobody to invite: straight to the game (hot-seat when this device plays several seats).
      const own = (created.seats || []).filter((seat) => seat.token);
      const invites = (created.seats || []).filter((seat) => seat.invite);
      if (own.length && !invites.length) {
        location.hash = own.length > 1 ? `#/hotseat/${encodeURIComponent(created.id)}` : `#/play/${encodeURIComponent(created.id)}?seat=${own[0].seat}`;
        return;
      }
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
    games = games.map((game) => ({ ...game, seats: localSeats(game.seats || []) }));
    const byId = new Map(games.map((g) => [g.id, g]));
    await Promise.all([...new Set(games.map((g) => g.ruleset))].filter((id) => this.rulesets.some((r) => r.id === id)).map((id) => loadCatalogue(id)));
    const what = (game) => {
      const ruleset = this.rulesets.find((r) => r.id === game.ruleset);
      const map = ruleset && (ruleset.maps || []).find((m) => m.id === game.map);
      const when = Number(game.created_at) ? new Date(Number(game.created_at)).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' }) : '';
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
      const row = h('li', { class: 'game-row', 'data-game': entry.id }, what(game), h('span', { class: `badge ${game.status}` }, status(game)), h('span', { class: 'badge pace', 'data-pace': (game.pace || {}).kind }, paceLabel(game.pace)), h('span', { class: 'game-links' }, links));
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
    replace(this.mine, h('h2', { id: 'mine-title' }, t('lobby.your-games')), h('p', { class: 'hint' }, h('a', { href: '#/my-games', 'data-action': 'my-games' }, t('lobby.my-games-everywhere'))), mine.length ? mineList : h('p', { class: 'hint' }, t('lobby.none')));

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
          h('span', { class: 'badge pace', 'data-pace': (game.pace || {}).kind }, paceLabel(game.pace)),
          h('span', { class: 'game-links' }, links),
        ),
      );
    }
    replace(this.all, h('h2', { id: 'all-title' }, t('lobby.all-games')), games.length ? allList : h('p', { class: 'hint' }, t('lobby.none')));
  }
}
