// Answers the decisions the web UI shows, by clicking, for any ruleset: on the board where the
// ruleset's SVG marks choices, items and slots, else through the UI's generic forms. Used by the
// tests that play whole games.

/** A small seeded random generator, so runs are repeatable. */
export function rng(seed) {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4294967296;
  };
}

/** The version and status the game screen shows. */
export async function screenState(page) {
  return page.evaluate(() => {
    const game = document.querySelector('.game');
    return game ? { version: Number(game.dataset.version || -1), status: game.dataset.status, pending: Number(game.dataset.pending || 0) } : null;
  });
}

/**
 * Sets how fast the story of each move plays (slow, normal, fast, instant) before the game page
 * opens; tests that do not watch the animations play at `instant`.
 */
export async function setPace(page, pace) {
  await page.evaluate((value) => localStorage.setItem('tenka.pace', value), pace);
  // The story's own select, when shown (the stored pace applies from the next step either way).
  if (await page.locator('.story-pace').isVisible()) await page.locator('.story-pace').selectOption(pace);
}

/** Acknowledges a summary pause if one is open; returns whether there was one. */
export async function acknowledgeSummary(page, stats) {
  const button = page.locator('dialog.summary-dialog[open] [data-action="summary-continue"]');
  if (!(await button.count())) return false;
  await button.click();
  if (stats) stats.summaries = (stats.summaries || 0) + 1;
  await page.waitForFunction(() => !document.querySelector('dialog.summary-dialog[open]'));
  return true;
}

/** Waits until the screen shows a decision of the viewer, the final results, a summary pause or a hand-over. */
export async function waitForTurn(page, timeout = 120000) {
  await page.waitForFunction(
    () => {
      const game = document.querySelector('.game');
      if (!game) return false;
      if (document.querySelector('dialog.summary-dialog[open]')) return true;
      if (game.dataset.status === 'finished' && !document.querySelector('.story:not([hidden]):not(.idle)')) return true;
      if (document.querySelector('.handover:not([hidden])')) return true;
      const panel = document.querySelector('.decision-panel:not([hidden])');
      return !!panel && !panel.classList.contains('busy') && Number(game.dataset.pending) > 0;
    },
    null,
    { timeout, polling: 100 },
  );
}

/** The kind of the decision on screen: choose, number or assign. */
async function decisionKind(page) {
  return page.evaluate(() => {
    const form = document.querySelector('.decision-panel:not([hidden]) form.decision');
    if (!form) return null;
    return ['choose', 'number', 'assign'].find((k) => form.classList.contains(`decision-${k}`)) || null;
  });
}

/** Whether the board shows an element matching `selector` inside its visible area. */
async function boardHas(page, selector) {
  const element = page.locator(`.board-canvas ${selector}`).first();
  if (!(await element.count())) return false;
  await page.locator('.board-canvas').scrollIntoViewIfNeeded();
  const [box, canvas] = await Promise.all([element.boundingBox(), page.locator('.board-canvas').boundingBox()]);
  if (!box || !canvas) return false;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  return cx > canvas.x && cx < canvas.x + canvas.width && cy > canvas.y && cy < canvas.y + canvas.height;
}

/** Fills an assign decision: slots in a random order, each with a random accepted unused item. */
async function planAssign(page, random, attempt, stats) {
  const slots = await page.evaluate(() =>
    [...document.querySelectorAll('[data-slot-select]')].map((select) => ({
      slot: Number(select.dataset.slotSelect),
      items: [...select.options].filter((o) => o.value !== '').map((o) => Number(o.value)),
    })),
  );
  await page.click('.decision-panel [data-focus-key="clear"]');
  const used = new Set();
  // The most selective slots first, so a slot that takes few items still finds one free.
  const order = slots
    .map((s) => ({ slot: s.slot, key: s.items.length + random() }))
    .sort((a, b) => a.key - b.key)
    .map((s) => s.slot);
  // After a refusal, leave a few slots empty (fewer placements may be what the rules want).
  const skip = attempt > 0 ? Math.floor(random() * Math.min(3, attempt + 1)) : 0;
  let placed = 0;
  for (const slotIndex of order.slice(skip)) {
    const slot = slots.find((s) => s.slot === slotIndex);
    const free = slot.items.filter((i) => !used.has(i));
    if (!free.length) continue;
    const item = free[Math.floor(random() * free.length)];
    used.add(item);
    const onBoard = (await boardHas(page, `[data-item="${item}"]`)) && (await boardHas(page, `[data-slot="${slotIndex}"]`));
    if (onBoard && placed === 0) {
      // The first placement by dragging on the board.
      const from = await page.locator(`.board-canvas [data-item="${item}"]`).first().boundingBox();
      const to = await page.locator(`.board-canvas [data-slot="${slotIndex}"]`).first().boundingBox();
      if (from && to) {
        await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
        await page.mouse.down();
        await page.mouse.move(from.x + from.width / 2 + 12, from.y + from.height / 2 + 12, { steps: 4 });
        await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
        await page.mouse.up();
        stats.boardDrags += 1;
      }
    } else if (onBoard && placed === 1) {
      // The second by tapping item then slot on the board.
      await page.locator(`.board-canvas [data-item="${item}"]`).first().click();
      await page.locator(`.board-canvas [data-slot="${slotIndex}"]`).first().click();
      stats.boardTaps += 1;
    } else {
      await page.click(`[data-item-button="${item}"]`);
      await page.click(`[data-put="${slotIndex}"]`);
    }
    placed += 1;
  }
  // If the board placement did not take (a drawing may hide a slot), the form fixes it.
  const placedNow = await page.evaluate(() => [...document.querySelectorAll('[data-slot-select]')].filter((s) => s.value !== '').length);
  stats.placements.push(placedNow);
}

/**
 * Waits until the ruleset's preview of the answer being composed is on screen and checks it
 * against the server's own preview of the same answer: every warning is flagged before sending.
 * Returns the number of warnings shown, or null when the server has no preview.
 */
export async function checkPreview(page, stats, token, gameId) {
  const settled = await page
    .waitForFunction(() => {
      const form = document.querySelector('.decision-panel form.decision');
      return form && form.dataset.draft && form.dataset.draft !== 'null' && form.dataset.draft === form.dataset.previewed;
    }, null, { timeout: 5000 })
    .then(() => true, () => false);
  if (!settled) return null;
  const draft = JSON.parse(await page.locator('.decision-panel form.decision').getAttribute('data-draft'));
  const response = await fetch(`${new URL(page.url()).origin}/api/games/${gameId}/preview`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ action: draft }) });
  if (response.status !== 200) return null;
  const { notes } = await response.json();
  const serverWarnings = notes.filter((note) => note.level === 'warning').length;
  const shown = await page.evaluate(() => ({
    warnings: document.querySelectorAll('.decision-panel .preview-note.warning').length,
    flag: !!document.querySelector('.decision-panel .send-warning:not([hidden])'),
    keys: [...document.querySelectorAll('.decision-panel .preview-note.warning')].map((n) => n.textContent),
  }));
  if (shown.warnings !== serverWarnings) throw new Error(`the preview shows ${shown.warnings} warnings, the server gives ${serverWarnings}`);
  if (serverWarnings && !shown.flag) throw new Error('a warning is not flagged next to the send button');
  stats.previews = (stats.previews || 0) + 1;
  stats.previewNotes = (stats.previewNotes || 0) + notes.length;
  if (serverWarnings) {
    stats.previewWarnings = (stats.previewWarnings || 0) + 1;
    stats.warningTexts = [...(stats.warningTexts || []), ...shown.keys];
    stats.warningNotes = [...(stats.warningNotes || []), ...notes.filter((n) => n.level === 'warning').map((n) => n.text.key)];
  }
  return serverWarnings;
}

/**
 * Answers the decision on screen once. Returns 'sent', 'rejected' or 'none'. `stats` counts what
 * was done: {choose, number, assign, rejected, boardChoices, boardDrags, boardTaps, placements}.
 */
/**
 * What is wrong with the screen as it stands, for any ruleset: a panel whose drawing or a text of
 * it reaches past its frame (cut off), a visible text saying "null", "undefined" or "NaN", and on
 * a phone-sized screen a visible map label under 11 px. Returns a list of problems (empty: none).
 */
export async function screenProblems(page) {
  return page.evaluate(() => {
    const problems = [];
    const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    for (const part of document.querySelectorAll('.board-part:not([hidden])')) {
      const host = part.querySelector('.part-canvas');
      const svg = host && host.shadowRoot && host.shadowRoot.querySelector('svg');
      if (!svg || !shown(host)) continue;
      const frame = host.getBoundingClientRect();
      const drawing = svg.getBoundingClientRect();
      const name = part.dataset.part;
      // A frame that scrolls sideways shows the whole drawing, a swipe at a time.
      const scrolls = ['auto', 'scroll'].includes(getComputedStyle(host).overflowX) && host.scrollWidth >= drawing.width - 1;
      const [left, right] = scrolls ? [drawing.left, drawing.right] : [Math.max(frame.left, drawing.left), Math.min(frame.right, drawing.right)];
      if (!scrolls && (drawing.right > frame.right + 1 || drawing.left < frame.left - 1)) problems.push(`part ${name}: drawn ${Math.round(drawing.width)} px wide in a ${Math.round(frame.width)} px frame`);
      for (const text of svg.querySelectorAll('text')) {
        if (!text.textContent.trim() || !shown(text)) continue;
        const r = text.getBoundingClientRect();
        if (r.right > right + 1 || r.left < left - 1) {
          problems.push(`part ${name}: "${text.textContent.trim().slice(0, 40)}" is cut at the edge`);
          break;
        }
      }
    }
    const texts = [document.body.innerText];
    for (const host of document.querySelectorAll('*')) if (host.shadowRoot) texts.push(host.shadowRoot.textContent || '');
    const bad = texts.join('\n').match(/.{0,30}\b(null|undefined|NaN)\b.{0,30}/);
    if (bad) problems.push(`the screen says "${bad[0].trim()}"`);
    if (innerWidth <= 480) {
      const map = document.querySelector('.board .board-canvas')?.shadowRoot?.querySelector('svg');
      for (const el of map ? map.querySelectorAll('text') : []) {
        if (!el.textContent.trim() || !shown(el)) continue;
        const ctm = el.getScreenCTM();
        const px = parseFloat(getComputedStyle(el).fontSize) * Math.hypot(ctm.a, ctm.b);
        if (px < 11 - 0.05) {
          problems.push(`map label "${el.textContent.trim().slice(0, 30)}" shows at ${px.toFixed(1)} px on a phone`);
          break;
        }
      }
    }
    return problems;
  });
}

/**
 * Checks convention 1 over the captions a game told (window.tenkaCaptions): every place a
 * caption's message names that the map knows was marked while it was told, and every battle
 * (a caption with drops) named a place the map knows. Returns {problems, skipped}: skipped (with
 * why) when no map element carries data-place, since then the ruleset does not emit the convention.
 */
export async function toldPlacesProblems(page) {
  const captions = await page.evaluate(() => window.tenkaCaptions || []);
  const anyPlace = captions.some((c) => (c.known || []).length) || (await page.evaluate(() => !!document.querySelector('.board .board-canvas')?.shadowRoot?.querySelector('[data-place]')));
  if (!anyPlace) return { problems: [], skipped: 'no map element carries data-place: the ruleset does not emit convention 1 yet' };
  const problems = [];
  for (const caption of captions) {
    const missed = (caption.known || []).filter((key) => !(caption.places || []).includes(key));
    if (missed.length) problems.push(`"${caption.text.slice(0, 60)}": ${missed.join(', ')} not marked on the map`);
    if (caption.drops > 0 && !(caption.places || []).length) problems.push(`battle "${caption.text.slice(0, 60)}" marked no place on the map`);
  }
  return { problems: [...new Set(problems)], skipped: null };
}

export async function answer(page, random, stats, attempt = 0, { beforeSend } = {}) {
  if (await acknowledgeSummary(page, stats)) return 'summary';
  const kind = await decisionKind(page);
  if (!kind) return 'none';
  // Whatever the decision, the screen as it stands: nothing cut, nothing saying "null".
  if (stats) {
    stats.screenProblems = stats.screenProblems || [];
    if (stats.screenProblems.length < 20) for (const problem of await screenProblems(page)) if (!stats.screenProblems.includes(problem)) stats.screenProblems.push(problem);
  }
  const before = (await screenState(page)).version;
  if (kind === 'assign') await planAssign(page, random, attempt, stats);
  const responded = actionAnswered(page);
  if (kind === 'assign') {
    const send = page.locator('.decision-panel [data-action="send"]');
    if (await send.isDisabled()) {
      // The generic check refused the plan: fill every slot through the form instead.
      for (const select of await page.locator('[data-slot-select]').all()) {
        const values = await select.evaluate((el) => [...el.options].map((o) => o.value).filter(Boolean));
        const taken = await page.evaluate(() => [...document.querySelectorAll('[data-slot-select]')].map((s) => s.value));
        const free = values.find((v) => !taken.includes(v));
        if (free !== undefined && (await select.inputValue()) === '') await select.selectOption(free);
      }
    }
    if (beforeSend) await beforeSend(kind);
    await send.click();
  } else if (kind === 'number') {
    const quick = page.locator('.decision-panel [data-number]');
    const count = await quick.count();
    if (count) await quick.nth(count - 1 - Math.floor(random() * Math.min(count, 2))).click();
    else {
      const max = await page.locator('#decision-number').getAttribute('max');
      await page.fill('#decision-number', max);
      await page.click('.decision-panel [data-action="send"]');
    }
  } else {
    const multi = (await page.locator('.decision-panel [data-action="send"]').count()) > 0;
    const buttons = page.locator('.decision-panel [data-choice-button]');
    const count = await buttons.count();
    if (!multi) {
      const pick = Math.floor(random() * count);
      if (await boardHas(page, `[data-choice="${pick}"]`)) {
        await page.locator(`.board-canvas [data-choice="${pick}"]`).first().click();
        stats.boardChoices += 1;
      } else await buttons.nth(pick).click();
    } else {
      const min = Number(await page.locator('.decision-panel form.decision').getAttribute('data-min'));
      const picks = [...Array(count).keys()].sort(() => random() - 0.5).slice(0, Math.max(1, min));
      for (const pick of picks) await buttons.nth(pick).click();
      await page.click('.decision-panel [data-action="send"]');
    }
  }
  stats[kind] += 1;
  const response = await responded.catch(async (err) => {
    // Keep what the screen showed when an answer went nowhere.
    const { shot } = await import('./lib.mjs');
    await shot(page, `answer-timeout-${kind}`).catch(() => {});
    throw err;
  });
  if (response.status() === 200) {
    // The screen moves on, or holds the newest board while the story plays or pauses.
    await screenMovedOn(page, before);
    return 'sent';
  }
  stats.rejected += 1;
  return 'rejected';
}

/** A fresh stats record. */
export function newStats() {
  return { choose: 0, number: 0, assign: 0, rejected: 0, boardChoices: 0, boardDrags: 0, boardTaps: 0, placements: [], summaries: 0, previews: 0, previewWarnings: 0 };
}

/** The server's answer to the action the page is about to send (its POST of an action). */
export function actionAnswered(page) {
  return page.waitForResponse((r) => r.url().includes('/actions') && r.request().method() === 'POST', { timeout: 30000 });
}

/** Waits until the screen moves past `version`, or holds the newest board while the story plays or pauses. */
export function screenMovedOn(page, version) {
  return page.waitForFunction(
    (v) => Number(document.querySelector('.game')?.dataset.version) > v || !!document.querySelector('.handover:not([hidden]), dialog.summary-dialog[open], .story:not([hidden]):not(.idle)'),
    version,
    { timeout: 30000 },
  );
}
