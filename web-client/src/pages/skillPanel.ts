/**
 * The profile's skill record and dice audit (`GET /api/players/<name>/skill`, server/web/skill.py):
 * PR per match over time (dots) with the rolling average of the last 25 games (a line), and
 * the lifetime dice audit (every match of the player's history; the public ones when someone
 * else looks), one table per test with its chi-square and p.
 */

import { h } from '../ui/dom';

interface SkillMatch {
  readonly match: string;
  readonly at: number | null;
  readonly games: number;
  readonly pr: number | null;
  readonly luck_adjusted: number;
  readonly rolling: number | null;
}

interface AuditTable {
  readonly name: string;
  readonly cells: readonly string[];
  readonly observed: readonly number[];
  readonly expected: readonly number[];
  readonly rolls: number;
  readonly chi2: number;
  readonly df: number;
  readonly p: number;
}

export interface SkillDoc {
  readonly matches: readonly SkillMatch[];
  readonly rolling: number | null;
  readonly dice: LifetimeAudit;
}

/** The lifetime dice audit: `pending` older matches are still to count (a first look at an
 *  account with a long history: each request counts a bounded part of it). */
export interface LifetimeAudit {
  readonly rolls: number;
  readonly matches: number;
  readonly pending: number;
  readonly tables: readonly AuditTable[];
}

const NS = 'http://www.w3.org/2000/svg';
function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** PR per match (dots) and the rolling PR (line); lower is better, so the axis runs down. */
export function prChart(matches: readonly SkillMatch[]): SVGSVGElement {
  const W = 360;
  const H = 180;
  const pad = { l: 40, r: 10, t: 10, b: 20 };
  const values = matches.flatMap((m) => [m.pr, m.rolling]).filter((v): v is number => v !== null);
  const hi = Math.max(10, ...values);
  const x = (i: number) => pad.l + (matches.length > 1 ? (i / (matches.length - 1)) * (W - pad.l - pad.r) : (W - pad.l - pad.r) / 2);
  const y = (v: number) => pad.t + (v / hi) * (H - pad.t - pad.b);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'pr-chart', role: 'img' }) as SVGSVGElement;
  svg.append(el('title', {}, `PR over ${matches.length} match${matches.length === 1 ? '' : 'es'}`));
  for (const v of [0, hi / 2, hi]) {
    svg.append(el('line', { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: 'grid' }));
    svg.append(el('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, v.toFixed(0)));
  }
  const line = matches.map((m, i) => (m.rolling === null ? '' : `${x(i).toFixed(1)},${y(m.rolling).toFixed(1)}`)).filter(Boolean);
  if (line.length > 1) svg.append(el('path', { d: `M${line.join(' L')}`, class: 'line pr-rolling' }));
  matches.forEach((m, i) => {
    if (m.pr === null) return;
    const dot = el('circle', { cx: x(i), cy: y(m.pr), r: 3.5, class: 'dot pr-dot' });
    dot.append(el('title', {}, `PR ${m.pr.toFixed(1)}`));
    svg.append(dot);
  });
  return svg;
}

/** The luck-adjusted result per match (bars up for a gain, down for a loss, in points) and their
 *  running total (a line), on the same match axis as the PR chart. */
export function luckChart(matches: readonly SkillMatch[]): SVGSVGElement {
  const W = 360;
  const H = 120;
  const pad = { l: 40, r: 10, t: 10, b: 10 };
  let total = 0;
  const totals = matches.map((m) => (total += m.luck_adjusted));
  const hi = Math.max(1, ...matches.map((m) => Math.abs(m.luck_adjusted)), ...totals.map(Math.abs));
  const step = (W - pad.l - pad.r) / Math.max(1, matches.length);
  const x = (i: number) => pad.l + (i + 0.5) * step;
  const y = (v: number) => pad.t + ((hi - v) / (2 * hi)) * (H - pad.t - pad.b);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'luck-chart', role: 'img' }) as SVGSVGElement;
  svg.append(el('title', {}, `Luck-adjusted result over ${matches.length} match${matches.length === 1 ? '' : 'es'}`));
  for (const v of [hi, 0, -hi]) {
    svg.append(el('line', { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: 'grid' }));
    svg.append(el('text', { x: pad.l - 4, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, v.toFixed(1)));
  }
  matches.forEach((m, i) => {
    const v = m.luck_adjusted;
    const bar = el('rect', { x: x(i) - Math.min(8, step / 3), width: Math.min(16, (2 * step) / 3), y: Math.min(y(v), y(0)), height: Math.max(1, Math.abs(y(v) - y(0))), class: `luck-bar ${v >= 0 ? 'gain' : 'loss'}` });
    bar.append(el('title', {}, `Luck-adjusted ${v >= 0 ? '+' : ''}${v.toFixed(2)}`));
    svg.append(bar);
  });
  const line = totals.map((t, i) => `${x(i).toFixed(1)},${y(t).toFixed(1)}`);
  if (line.length > 1) svg.append(el('path', { d: `M${line.join(' L')}`, class: 'line luck-total' }));
  return svg;
}

const TITLES: Record<string, string> = { faces: 'Faces', doubles: 'Doubles', entering: 'Entering from the bar', hits: 'Chances to hit' };

function auditTable(t: AuditTable): HTMLElement {
  const table = h('table', { class: 'audit-table' });
  table.append(h('tr', {}, h('th', { text: TITLES[t.name] ?? t.name }), ...t.cells.map((c) => h('th', { text: c }))));
  table.append(h('tr', {}, h('th', { text: 'seen' }), ...t.observed.map((o) => h('td', { text: String(o) }))));
  table.append(h('tr', {}, h('th', { text: 'fair dice' }), ...t.expected.map((e) => h('td', { text: e.toFixed(1) }))));
  return h('div', { class: `audit audit-${t.name}` }, h('div', { class: 'audit-scroll' }, table), h('p', { class: 'sub', text: `${t.rolls} rolls · chi-square ${t.chi2.toFixed(2)} (${t.df} df) · p ${t.p.toFixed(3)}` }));
}

async function skillDoc(name: string): Promise<SkillDoc | null> {
  try {
    const response = await fetch(`/api/players/${encodeURIComponent(name)}/skill`, { credentials: 'same-origin', cache: 'no-store' });
    return response.ok ? ((await response.json()) as SkillDoc) : null;
  } catch {
    return null;
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The audit card's body: what it covers (lifetime; the public matches for others), the tables,
 *  and how many older matches are still being counted. */
export function auditBody(dice: LifetimeAudit, own: boolean): HTMLElement {
  const scope = own ? plural(dice.matches, 'match', 'matches') : plural(dice.matches, 'public match', 'public matches');
  const lines: HTMLElement[] = [
    h('p', { class: 'sub audit-scope', text: `Lifetime: ${plural(dice.rolls, 'roll', 'rolls')} in ${scope} (each game's opening roll aside), every one proven by its game's transcript.` }),
  ];
  if (dice.pending) lines.push(h('p', { class: 'sub audit-pending', text: `Counting older matches: ${dice.pending} still to look at…` }));
  if (dice.rolls) lines.push(...dice.tables.map(auditTable));
  else if (!dice.pending) lines.push(h('p', { class: 'sub', text: 'No rolls yet.' }));
  return h('div', { class: 'audit-body' }, ...lines);
}

/** While older matches are being counted, ask again (each answer counts a bounded part) and
 *  show each step, until none is left or the count stops moving. */
async function followBackfill(name: string, own: boolean, body: HTMLElement, first: LifetimeAudit): Promise<void> {
  let last = first;
  for (let stalled = 0; last.pending > 0 && stalled < 5 && body.isConnected; ) {
    if (stalled) await new Promise((r) => setTimeout(r, 1000)); // another reader is counting them
    const doc = await skillDoc(name);
    if (!doc) return;
    stalled = doc.dice.pending < last.pending ? 0 : stalled + 1;
    last = doc.dice;
    const next = auditBody(last, own);
    body.replaceWith(next);
    body = next;
  }
}

/** The two cards for the profile (none when the record cannot be read); `own`: the player's
 *  own profile (their private matches are in the audit). */
export async function skillCards(name: string, own = false): Promise<HTMLElement[]> {
  const doc = await skillDoc(name);
  if (!doc) return [];
  const analysed = doc.matches.filter((m) => m.pr !== null);
  const chart = analysed.length
    ? h('div', {}, prChart(doc.matches), h('p', { class: 'sub', text: `PR per match (dots) and over the last 25 games (line): ${doc.rolling === null ? '–' : doc.rolling.toFixed(1)}.` }), luckChart(doc.matches), h('p', { class: 'sub luck-sum', text: `Luck-adjusted result per match (bars) and in all (line): ${doc.matches.reduce((a, m) => a + m.luck_adjusted, 0).toFixed(2)} points; last match ${doc.matches.at(-1)?.luck_adjusted.toFixed(2) ?? '–'}.` }))
    : h('p', { class: 'sub', text: 'No analysed match yet.' });
  const audit = auditBody(doc.dice, own);
  if (doc.dice.pending) void followBackfill(name, own, audit, doc.dice);
  return [h('section', { class: 'card skill-card' }, h('h2', { text: 'Skill (PR)' }), chart), h('section', { class: 'card audit-card' }, h('h2', { text: 'Dice audit' }), audit)];
}
