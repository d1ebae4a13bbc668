// The variant lab: pick a ruleset, the rules to try (a variant and options, in the lobby's own
// option form) and the rules to compare with; "Try it" asks the server to play that many bot
// games of each (POST /api/lab). The page follows the job's progress, can cancel it, and shows
// the figures and the balance report (a page without script, in a sandboxed frame) when it is
// done. Nothing here knows a game: everything comes from the ruleset's schema.

import { api, get, post } from './api.js';
import { botKindLabel } from './botlevels.js';
import { errorText, h, replace, loadOrExplain } from './dom.js';
import { hasKey, loadCatalogue, locale, messageText, t } from './i18n.js';
import { changedOptions, optionFieldset, optionProblem, standardVariant, variantDescription, variantName, variantOptions } from './lobby.js';
import { mapOptions } from './maps.js';

/** How often a running job is asked for its progress, in milliseconds. */
const POLL_MS = 500;

/** Games per rule set the form suggests. */
const DEFAULT_GAMES = 20;

/** The bots a lab job can seat (the lobby's names for them). */
const BOTS = ['random', 'search'];

/** Mounts the lab; `ruleset` and `map` preselect the form (the maps page links here). */
export async function mountLab(root, { ruleset, map, job } = {}) {
  const lab = new Lab(root);
  await lab.start({ ruleset, map, job });
  return lab;
}

class Lab {
  constructor(root) {
    this.root = root;
    this.rulesets = [];
    this.form = { ruleset: null, map: null, variant: '', options: {}, baseline: '', players: 2, games: DEFAULT_GAMES, bot: 'random' };
    this.openGroups = new Set();
    this.job = null;
    this.timer = null;
    this.destroyed = false;
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.timer);
  }

  async start({ ruleset: wanted, map, job } = {}) {
    this.rulesets = await loadOrExplain(this.root, () => get('/api/rulesets'));
    if (this.rulesets === undefined) return;
    this.formPanel = h('section', { class: 'panel lab-form', 'aria-labelledby': 'lab-title' });
    this.jobPanel = h('section', { class: 'panel lab-job', 'aria-live': 'polite', hidden: true, 'aria-labelledby': 'lab-job-title' });
    this.reportPanel = h('section', { class: 'panel lab-report', hidden: true, 'aria-labelledby': 'lab-report-title' });
    replace(this.root, h('div', { class: 'lab-page' }, h('div', { class: 'lab-top' }, this.formPanel, this.jobPanel), this.reportPanel));
    if (!this.rulesets.length) {
      replace(this.formPanel, h('h1', { id: 'lab-title' }, t('lab.title')), h('p', {}, t('lobby.no-rulesets')));
      return;
    }
    // A job in the address (after a reload or a change of language) is followed again, with
    // the form set to its ruleset.
    if (job) {
      try {
        this.job = await get(`/api/lab/${encodeURIComponent(job)}`);
      } catch {
        this.job = null;
      }
    }
    const first = this.rulesets.find((r) => r.id === (this.job ? this.job.request.ruleset : wanted)) || this.rulesets[0];
    await this.pickRuleset(first.id, this.job ? this.job.request.map : map);
    if (this.job) {
      this.takeRequest(this.job.request);
      this.follow();
    }
  }

  /** Shows the job and keeps following it while it runs; then shows its report. */
  follow() {
    this.showJob();
    if (['running', 'cancelling'].includes(this.job.status)) this.poll();
    else this.showReport();
  }

  /** Sets the form to what a job asked for (its rules, baseline, players, games and bot). */
  takeRequest(request) {
    const ruleset = this.ruleset();
    const variantId = (label) => ((ruleset.variants || []).find((v) => v.id === label) || {}).id || '';
    const f = this.form;
    f.variant = variantId(String(request.rules).replace(/ with .*$/, ''));
    f.options = { ...variantOptions(ruleset, f.variant), ...(request.options || {}) };
    f.baseline = variantId(String(request.baseline).replace(/ \(baseline\)$/, ''));
    Object.assign(f, { players: request.players, games: request.games, bot: request.bot || 'random' });
    this.renderForm();
  }

  ruleset() {
    return this.rulesets.find((r) => r.id === this.form.ruleset);
  }

  async pickRuleset(id, map) {
    const ruleset = this.rulesets.find((r) => r.id === id);
    await loadCatalogue(ruleset.id);
    const maps = ruleset.maps || [];
    const playable = maps.filter((m) => m.valid !== false);
    Object.assign(this.form, {
      ruleset: ruleset.id,
      map: (playable.find((m) => m.id === map) || playable[0] || {}).id || null,
      variant: '',
      baseline: '',
      options: variantOptions(ruleset, ''),
      players: Math.min(Math.max(this.form.players, ruleset.min_seats), ruleset.max_seats),
    });
    this.openGroups.clear();
    this.renderForm();
  }

  renderForm() {
    const ruleset = this.ruleset();
    const f = this.form;
    const field = (id, label, control, hint) => h('div', { class: 'field' }, h('label', { for: id }, label), control, hint ? h('p', { class: 'hint', id: `${id}-hint` }, hint) : null);

    const rulesetSelect = h('select', { id: 'lab-ruleset' }, this.rulesets.map((r) => h('option', { value: r.id, selected: r.id === f.ruleset }, r.name)));
    rulesetSelect.addEventListener('change', () => this.pickRuleset(rulesetSelect.value));
    const maps = ruleset.maps || [];
    const mapSelect = maps.length ? h('select', { id: 'lab-map' }, mapOptions(ruleset, f.map, { disableInvalid: true })) : null;
    mapSelect?.addEventListener('change', () => (f.map = mapSelect.value));

    // The rules under test and the rules compared with pick from the same list: the standard
    // rules (named after the ruleset's own standard variant where it has one), then each variant.
    const standard = standardVariant(ruleset);
    const variants = (ruleset.variants || []).filter((v) => v !== standard);
    const rulesOptions = (selected) => [
      h('option', { value: '' }, standard ? variantName(ruleset.id, standard) : t('lobby.variant-none')),
      variants.map((v) => h('option', { value: v.id, selected: v.id === selected }, variantName(ruleset.id, v))),
    ];
    const variantSelect = h('select', { id: 'lab-variant', 'aria-describedby': 'lab-variant-hint' }, rulesOptions(f.variant));
    variantSelect.addEventListener('change', () => {
      f.variant = variantSelect.value;
      f.options = variantOptions(ruleset, f.variant);
      this.renderForm();
      this.formPanel.querySelector('#lab-variant')?.focus();
    });
    const picked = variants.find((v) => v.id === f.variant);
    const variantHint = picked ? variantDescription(ruleset.id, picked) : '';
    const baselineSelect = h('select', { id: 'lab-baseline' }, rulesOptions(f.baseline));
    baselineSelect.addEventListener('change', () => (f.baseline = baselineSelect.value));

    const playersSelect = h('select', { id: 'lab-players' });
    for (let n = ruleset.min_seats; n <= ruleset.max_seats; n += 1) playersSelect.append(h('option', { value: n, selected: n === f.players }, String(n)));
    playersSelect.addEventListener('change', () => (f.players = Number(playersSelect.value)));
    const gamesInput = h('input', { type: 'number', id: 'lab-games', min: 1, max: 10000, step: 1, value: f.games, required: true, 'aria-describedby': 'lab-games-hint' });
    gamesInput.addEventListener('input', () => (f.games = gamesInput.value === '' ? '' : Number(gamesInput.value)));
    const botSelect = h('select', { id: 'lab-bot' }, BOTS.map((bot) => h('option', { value: bot, selected: bot === f.bot }, botKindLabel(bot))));
    botSelect.addEventListener('change', () => (f.bot = botSelect.value));

    const running = this.job && ['running', 'cancelling'].includes(this.job.status);
    const form = h(
      'form',
      { class: 'create-form', novalidate: true },
      field('lab-ruleset', t('lobby.ruleset'), rulesetSelect),
      mapSelect ? field('lab-map', t('lobby.map'), mapSelect) : null,
      h('div', { class: 'field' }, h('label', { for: 'lab-variant' }, t('lab.rules')), variantSelect, h('p', { class: 'hint', id: 'lab-variant-hint', hidden: !variantHint }, variantHint)),
      field('lab-baseline', t('lab.baseline'), baselineSelect),
      h('div', { class: 'lab-numbers' }, field('lab-players', t('lobby.players'), playersSelect), field('lab-games', t('lab.games'), gamesInput), field('lab-bot', t('lab.bots'), botSelect)),
      h('p', { class: 'hint', id: 'lab-games-hint' }, t('lab.games-hint')),
      optionFieldset(ruleset, f.options, f.variant, this.openGroups),
      h('p', { class: 'form-error', role: 'alert', hidden: true }),
      h('div', { class: 'create-bar' }, h('button', { type: 'submit', class: 'primary big', 'data-action': 'try', disabled: running }, t('lab.try'))),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit(form);
    });
    replace(this.formPanel, h('h1', { id: 'lab-title' }, t('lab.title')), h('p', { class: 'hint' }, t('lab.intro')), form);
  }

  async submit(form) {
    const error = form.querySelector('.form-error');
    const ruleset = this.ruleset();
    const f = this.form;
    let problem = optionProblem(ruleset, f.options);
    if (!problem && (!Number.isInteger(f.games) || f.games < 1)) problem = t('lab.error-games');
    if (!problem && (ruleset.maps || []).length && !f.map) problem = t('lobby.error-map');
    if (problem) {
      error.textContent = problem;
      error.hidden = false;
      return;
    }
    error.hidden = true;
    const body = { ruleset: f.ruleset, players: f.players, games: f.games, bot: f.bot };
    if (f.map) body.map = f.map;
    if (f.variant) body.variant = f.variant;
    const options = changedOptions(ruleset, f.variant, f.options);
    if (Object.keys(options).length) body.options = options;
    if (f.baseline) body.baseline = f.baseline;
    const button = form.querySelector('[data-action="try"]');
    button.disabled = true;
    try {
      this.job = await post('/api/lab', body);
    } catch (err) {
      button.disabled = false;
      error.textContent = err && err.code === 'too-many-jobs' ? t('lab.error-mine') : err && err.code === 'busy' ? t('lab.error-busy') : errorText(err);
      error.hidden = false;
      return;
    }
    this.reportPanel.hidden = true;
    this.reportPanel.replaceChildren();
    // The job goes into the address without a new route, so a reload finds it again.
    history.replaceState(null, '', `#/lab?job=${encodeURIComponent(this.job.id)}`);
    this.follow();
    // The button is at the end of a long form: bring the progress into sight.
    this.jobPanel.scrollIntoView({ block: 'nearest' });
  }

  poll() {
    clearTimeout(this.timer);
    this.timer = setTimeout(async () => {
      if (this.destroyed || !this.job) return;
      try {
        this.job = await get(`/api/lab/${encodeURIComponent(this.job.id)}`);
      } catch (err) {
        this.showJob(errorText(err));
        return;
      }
      if (this.destroyed) return;
      if (!['running', 'cancelling'].includes(this.job.status)) this.renderForm();
      this.follow();
    }, POLL_MS);
  }

  async cancel() {
    try {
      this.job = await api('DELETE', `/api/lab/${encodeURIComponent(this.job.id)}`);
    } catch (err) {
      this.showJob(errorText(err));
      return;
    }
    this.showJob();
  }

  /**
   * A rule set's label as the server gives it ("standard rules", a variant's id, either "with"
   * options) in the page's words: the variant's name where the label is a variant's id.
   */
  rulesName(label) {
    const ruleset = this.rulesets.find((r) => r.id === this.job?.request.ruleset) || this.ruleset();
    const bare = String(label).replace(/ \(baseline\)$/, '');
    const standard = standardVariant(ruleset);
    if (bare === 'standard rules') return standard ? variantName(ruleset.id, standard) : t('lobby.variant-none');
    const variant = (ruleset.variants || []).find((v) => v.id === bare);
    return variant ? variantName(ruleset.id, variant) : String(label);
  }

  /** The job's panel: progress while it runs, then the figures. */
  showJob(problem) {
    const job = this.job;
    const done = job.games_done || 0;
    const total = job.games_total || 0;
    const running = job.status === 'running' || job.status === 'cancelling';
    const state = {
      running: t('lab.running', { done, total }),
      cancelling: t('lab.cancelling'),
      finished: t('lab.finished', { done }),
      cancelled: t('lab.cancelled', { done, total }),
      failed: t('lab.failed', { message: job.error || '' }),
    }[job.status];
    this.jobPanel.hidden = false;
    replace(
      this.jobPanel,
      h('h2', { id: 'lab-job-title' }, t('lab.versus', { rules: this.rulesName(job.request.rules), baseline: this.rulesName(job.request.baseline) })),
      h('p', { class: 'hint' }, t('lab.setup', { players: job.request.players, games: job.request.games, seed: job.request.seed })),
      h('progress', { class: 'lab-progress', max: total || 1, value: done, 'aria-label': t('lab.progress') }),
      h('p', { class: job.status === 'failed' ? 'error' : 'lab-state', 'data-lab-status': job.status }, state),
      problem ? h('p', { class: 'error' }, problem) : null,
      running ? h('button', { type: 'button', 'data-action': 'cancel', disabled: job.status === 'cancelling', onclick: () => this.cancel() }, t('lab.cancel')) : null,
      job.summary ? this.figures(job.summary) : null,
    );
  }

  /** Win rates per seat (with their 95 % intervals), scores and length, side by side. */
  figures(summary) {
    const arms = summary.arms || [];
    const percent = (x) => `${Math.round(x * 1000) / 10} %`;
    const number = (x) => (Math.round(x * 10) / 10).toLocaleString();
    const seats = (arms[0] && arms[0].seats) || [];
    const head = h('tr', {}, h('th', { scope: 'col' }, ''), arms.map((arm) => h('th', { scope: 'col' }, this.rulesName(arm.label))));
    const rows = [
      ...seats.map((_, seat) =>
        h(
          'tr',
          { 'data-seat': seat },
          h('th', { scope: 'row' }, t('lab.win-rate', { seat: t('seat.default', { n: seat + 1 }) })),
          arms.map((arm) => {
            const line = arm.seats[seat];
            const whole = (x) => Math.round(x * 100);
            return h('td', {}, h('span', { class: 'lab-rate' }, percent(line.win_rate)), ' ', h('span', { class: 'hint lab-interval' }, `(${whole(line.win_rate_low)}–${whole(line.win_rate_high)} %)`));
          }),
        ),
      ),
      ...seats.map((_, seat) => h('tr', {}, h('th', { scope: 'row' }, t('lab.mean-score', { seat: t('seat.default', { n: seat + 1 }) })), arms.map((arm) => h('td', {}, number(arm.seats[seat].mean_score))))),
      h('tr', {}, h('th', { scope: 'row' }, t('lab.length')), arms.map((arm) => h('td', {}, number(arm.mean_actions)))),
      h('tr', {}, h('th', { scope: 'row' }, t('lab.games-played')), arms.map((arm) => h('td', {}, String(arm.games), arm.failed ? h('span', { class: 'error' }, ` (${t('lab.games-failed', { n: arm.failed })})`) : null))),
    ];
    // Each difference worded here from its data, in the page's language; a server that sends
    // only the English lines gets them shown as they are.
    const findings = Array.isArray(summary.findings) ? summary.findings : null;
    const differences = findings ? findings.map((finding) => this.findingText(finding, arms)) : summary.differences || [];
    return h(
      'div',
      { class: 'lab-figures' },
      h('div', { class: 'table-scroll' }, h('table', { class: 'lab-table' }, h('thead', {}, head), h('tbody', {}, rows))),
      h('h3', {}, t('lab.differences')),
      differences.length ? h('ul', { class: 'lab-differences', lang: findings ? null : 'en' }, differences.map((line) => h('li', {}, line))) : h('p', { class: 'lab-differences' }, t('lab.no-differences')),
      h('p', { class: 'hint' }, t('lab.interval-hint', { rate: Math.round((summary.games_per_second || 0) * 10) / 10 })),
    );
  }

  /** One significant difference in words: what, its value under each rule set, and p. */
  findingText(finding, arms) {
    const rulesetId = this.job?.request.ruleset;
    // A score line's or an event's name: the ruleset's `stat.<key>` label if it has one, else
    // its text for the key with "…" for what the text names (who, where: no one game's) when
    // that is short, else the key's last word spelled out ("attack-player-won").
    const named = (key) => {
      if (rulesetId && hasKey(rulesetId, `stat.${key}`)) return messageText(rulesetId, { key: `stat.${key}`, args: [] }, () => '…');
      if (rulesetId && hasKey(rulesetId, key)) {
        const text = messageText(rulesetId, { key, args: [] }, () => '…')
          .replace(/\{[^{}]*\}/g, '…')
          .replace(/…(\s*…)+/g, '…')
          .trim();
        if (text.length <= 48) return text;
      }
      return key.split('.').pop().replace(/-/g, ' ');
    };
    const args =
      finding.measure === 'seat-win-rate'
        ? { seat: t('seat.default', { n: Number(finding.seat) + 1 }) }
        : typeof finding.key === 'string'
          ? { name: named(finding.key) }
          : {};
    const rate = finding.test === 'two-proportions';
    const value = (x) => (rate ? `${(Math.round(x * 1000) / 10).toLocaleString(locale())} %` : (Math.round(x * 100) / 100).toLocaleString(locale()));
    const p = finding.p < 0.001 ? t('lab.p-below') : t('lab.p', { p: (Math.round(finding.p * 1000) / 1000).toLocaleString(locale()) });
    return t('lab.finding', {
      measure: t(`lab.measure.${finding.measure}`, args),
      tested: value(finding.tested),
      rules: this.rulesName((arms[0] || {}).label || ''),
      baseline: value(finding.baseline),
      other: this.rulesName((arms[1] || {}).label || ''),
      p,
    });
  }

  /** The report in the page (a sandboxed frame: it runs no script) and as a file to save. */
  showReport() {
    const job = this.job;
    if (!job.report_url) return;
    this.reportPanel.hidden = false;
    replace(
      this.reportPanel,
      h('div', { class: 'lab-report-head' }, h('h2', { id: 'lab-report-title' }, t('lab.report')), h('a', { class: 'button', href: `${job.report_url}?download`, download: `balance-report-${job.id}.html`, 'data-action': 'download' }, t('lab.download'))),
      h('p', { class: 'hint' }, t('lab.report-hint')),
      h('iframe', { class: 'lab-report-frame', src: job.report_url, sandbox: '', title: t('lab.report'), referrerpolicy: 'no-referrer' }),
    );
  }
}
