// The battle tower, drawn by the UI for any ruleset: the host reports each drop as the cubes
// dropped and the cubes that came out. What stayed in is the difference, by owner (negative when
// cubes lodged by earlier drops were knocked loose).

import { h } from './dom.js';
import { hasKey, messageText, t } from './i18n.js';
import { seatName, seatSymbol } from './seats.js';

/** A stable text key of a cube owner: "seat:2" or "neutral:farmer". */
function ownerKey(owner) {
  if (owner && typeof owner === 'object' && 'seat' in owner) return `seat:${owner.seat}`;
  if (owner && typeof owner === 'object' && 'neutral' in owner) return `neutral:${owner.neutral}`;
  return `neutral:${String(owner)}`;
}

/** Counts per owner: Map ownerKey -> {owner, count}. */
function countByOwner(counts) {
  const map = new Map();
  for (const item of counts || []) {
    const key = ownerKey(item.owner);
    const entry = map.get(key) || { owner: item.owner, count: 0 };
    entry.count += Number(item.count) || 0;
    map.set(key, entry);
  }
  return map;
}

/** Dropped, came out and stayed (dropped minus came out) per owner, in a stable order. */
export function towerBalance(drop) {
  const dropped = countByOwner(drop.dropped);
  const cameOut = countByOwner(drop.came_out);
  const keys = [...new Set([...dropped.keys(), ...cameOut.keys()])].sort();
  return keys.map((key) => {
    const owner = (dropped.get(key) || cameOut.get(key)).owner;
    const d = dropped.has(key) ? dropped.get(key).count : 0;
    const o = cameOut.has(key) ? cameOut.get(key).count : 0;
    return { key, owner, dropped: d, cameOut: o, stayed: d - o };
  });
}

/** The name of a cube owner: a seat's player or the ruleset's name of a neutral owner. */
export function ownerName(owner, rulesetId, seats) {
  if (owner && typeof owner === 'object' && 'seat' in owner) return seatName(seats, owner.seat);
  const name = owner && typeof owner === 'object' ? owner.neutral : String(owner);
  for (const key of [name, `cube.${name}`, `tower.${name}`, `neutral.${name}`]) {
    if (hasKey(rulesetId, key)) return messageText(rulesetId, { key }, (s) => seatName(seats, s));
  }
  return name;
}

function cubeClass(owner) {
  if (owner && typeof owner === 'object' && 'seat' in owner) return `cube seat-${owner.seat % 8}`;
  return 'cube neutral';
}

function cubeSymbol(owner) {
  return owner && typeof owner === 'object' && 'seat' in owner ? seatSymbol(owner.seat) : '◇';
}

function cubes(owner, count, extraClass = '') {
  const list = [];
  for (let i = 0; i < Math.min(count, 40); i += 1) {
    list.push(h('span', { class: `${cubeClass(owner)} ${extraClass}`, 'aria-hidden': 'true' }, cubeSymbol(owner)));
  }
  return list;
}

/** A one-line, screen-reader friendly summary of a drop. */
export function towerSummaryText(drop, rulesetId, seats) {
  const rows = towerBalance(drop);
  const part = (field) =>
    rows
      .filter((row) => row[field] !== 0)
      .map((row) => `${ownerName(row.owner, rulesetId, seats)} ${row[field]}`)
      .join(', ') || '0';
  const stayed = rows.filter((row) => row.stayed > 0).map((row) => `${ownerName(row.owner, rulesetId, seats)} ${row.stayed}`).join(', ') || '0';
  const loose = rows.filter((row) => row.stayed < 0).map((row) => `${ownerName(row.owner, rulesetId, seats)} ${t('tower.from-earlier', { n: -row.stayed })}`).join(', ');
  return `${t('tower.dropped')}: ${part('dropped')}. ${t('tower.came-out')}: ${part('cameOut')}${loose ? ` (${loose})` : ''}. ${t('tower.stayed')}: ${stayed}.`;
}

/** A table of one drop: per owner, dropped, came out, stayed in. */
export function towerTable(drop, rulesetId, seats) {
  const rows = towerBalance(drop);
  return h(
    'table',
    { class: 'tower-table' },
    h('caption', { class: 'visually-hidden' }, t('tower.title')),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, t('tower.owner')), h('th', { scope: 'col' }, t('tower.dropped')), h('th', { scope: 'col' }, t('tower.came-out')), h('th', { scope: 'col' }, t('tower.stayed')))),
    h(
      'tbody',
      {},
      rows.map((row) =>
        h(
          'tr',
          { 'data-owner': row.key },
          h('th', { scope: 'row' }, h('span', { class: cubeClass(row.owner), 'aria-hidden': 'true' }, cubeSymbol(row.owner)), ' ', ownerName(row.owner, rulesetId, seats)),
          h('td', { 'data-field': 'dropped' }, String(row.dropped)),
          h('td', { 'data-field': 'came-out' }, String(row.cameOut)),
          // More came out than went in: cubes lodged by earlier drops were knocked loose. Said in
          // words, never as a negative count.
          h('td', { 'data-field': 'stayed', class: row.stayed < 0 ? 'released' : '' }, row.stayed < 0 ? t('tower.from-earlier', { n: -row.stayed }) : String(row.stayed)),
        ),
      ),
    ),
  );
}

/**
 * An animated drop: the dropped cubes fall into the tower, those that came out land in the tray
 * below, and the ones that stayed are shown held inside. Respects prefers-reduced-motion through
 * CSS.
 */
export function towerAnimation(drop, rulesetId, seats, { duration = 1600 } = {}) {
  const rows = towerBalance(drop);
  const falling = h('div', { class: 'tower-falling' });
  const inside = h('div', { class: 'tower-inside' });
  const tray = h('div', { class: 'tower-tray' });
  // The whole drop plays within `duration`: cubes fall during the first half, land in the second.
  const total = rows.reduce((sum, row) => sum + Math.min(40, row.dropped), 0) || 1;
  const fallStep = Math.min(60, (duration * 0.35) / total);
  let delay = 0;
  for (const row of rows) {
    for (const cube of cubes(row.owner, row.dropped, 'falling')) {
      cube.style.animationDelay = `${delay}ms`;
      cube.style.animationDuration = `${Math.round(duration * 0.45)}ms`;
      delay += fallStep;
      falling.append(cube);
    }
  }
  const outDelay = delay + duration * 0.3;
  let i = 0;
  for (const row of rows) {
    for (const cube of cubes(row.owner, row.cameOut, 'landing')) {
      cube.style.animationDelay = `${outDelay + i * Math.min(50, fallStep)}ms`;
      i += 1;
      tray.append(cube);
    }
    for (const cube of cubes(row.owner, Math.max(0, row.stayed), 'stuck')) {
      cube.style.animationDelay = `${outDelay}ms`;
      inside.append(cube);
    }
  }
  return h(
    'figure',
    { class: 'tower-figure' },
    h(
      'div',
      { class: 'tower-drawing', 'aria-hidden': 'true' },
      falling,
      h('div', { class: 'tower-body' }, h('span', { class: 'tower-shelf s1' }), h('span', { class: 'tower-shelf s2' }), h('span', { class: 'tower-shelf s3' }), inside),
      tray,
    ),
    h('div', { class: 'tower-numbers' }, towerTable(drop, rulesetId, seats)),
  );
}
