/**
 * The board's SVG as plain data: the static board, and the layer that changes with each scene
 * (highlights, checkers, stacks, bar, trays, last-play arrows, dice with their check mark, the
 * cube). Pure functions of the scene, drawn from the bottom seat's side.
 *
 * Each element is an {@link SvgNode} (tag, attributes, text, children), never a markup string:
 * `boardSvg.ts` builds the nodes with createElementNS / setAttribute / textContent, so a player's
 * name in a label is an attribute value or text and can never become an element or a handler
 * (docs/architecture.md, "Player strings are text").
 */

import { t } from '../i18n';
import {
  BAR_W,
  BAR_X,
  FIELD_BOTTOM,
  FIELD_TOP,
  FRAME,
  H,
  LEFT_X,
  MID_Y,
  POINT_W,
  R,
  RIGHT_X,
  STACK_MAX,
  TRAY_W,
  TRAY_X,
  W,
  barCenter,
  checkerCenter,
  pointGeom,
  slabRect,
} from './geometry';
import type { Scene, SceneDie } from './scene';

/** One SVG element to build: attribute values and the text are set as data, never parsed. */
export interface SvgNode {
  readonly tag: string;
  readonly attrs: Readonly<Record<string, string | number>>;
  /** The element's text (a text node), if any. */
  readonly text?: string;
  readonly kids?: readonly SvgNode[];
}

/** An element: `node('rect', {x: 1})`, `node('text', {y: 5}, '6')`, `node('g', {}, [kid])`. */
export function node(tag: string, attrs: Record<string, string | number>, content?: string | readonly SvgNode[]): SvgNode {
  if (content === undefined) return { tag, attrs };
  return typeof content === 'string' ? { tag, attrs, text: content } : { tag, attrs, kids: content };
}

const f = (n: number) => (Math.round(n * 10) / 10).toString();

const PIPS: Record<number, [number, number][]> = {
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [1, -1], [-1, 0], [1, 0], [-1, 1], [1, 1]],
};

export const DIE = 46;

function dieNode(d: SceneDie, x: number, y: number, label: string): SvgNode {
  const pips = PIPS[d.value]!.map(([px, py]) => node('circle', { cx: f(px * 12), cy: f(py * 12), r: 4.6 }));
  return node('g', { class: `die s${d.seat}${d.used ? ' used' : ''}`, transform: `translate(${f(x)},${f(y)})`, role: 'img', 'aria-label': label }, [
    node('rect', { x: -DIE / 2, y: -DIE / 2, width: DIE, height: DIE, rx: 9 }),
    node('g', { class: 'dots' }, pips),
  ]);
}

/** A checker at (x, y); `label` (which may hold a player's name) is its aria-label. */
export function checkerNode(seat: number, x: number, y: number, cls: string, label: string, count = 0, key = ''): SvgNode {
  const attrs: Record<string, string> = { class: `checker s${seat}${cls}` };
  if (key) attrs['data-key'] = key;
  attrs.transform = `translate(${f(x)},${f(y)})`;
  attrs.role = 'img';
  attrs['aria-label'] = label;
  const kids = [node('circle', { class: 'body', r: R - 1 }), node('circle', { class: 'ring', r: R - 9 })];
  if (count > 0) kids.push(node('text', { class: 'count', y: 1 }, String(count)));
  return node('g', attrs, kids);
}

const stops = (prefix: string, offsets: readonly string[]): SvgNode[] =>
  offsets.map((offset, i) => node('stop', { offset, class: `${prefix}-${'abc'[i]}` }));

/** The board that never changes: gradients, frame, felt, points and their numbers. */
export function staticNodes(): SvgNode[] {
  const checkerGradient = (id: string, prefix: string) =>
    node('radialGradient', { id, cx: 0.38, cy: 0.32, r: 0.75 }, stops(prefix, ['0', '0.7', '1']));
  const parts: SvgNode[] = [
    node('defs', {}, [
      node('linearGradient', { id: 'fg-wood', x1: 0, y1: 0, x2: 1, y2: 1 }, stops('wood', ['0', '0.5', '1'])),
      node('radialGradient', { id: 'fg-felt', cx: 0.5, cy: 0.5, r: 0.75 }, stops('felt', ['0', '1'])),
      checkerGradient('fg-c0', 'c0'),
      checkerGradient('fg-c1', 'c1'),
      node('marker', { id: 'fg-arrow', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 4, markerHeight: 4, orient: 'auto-start-reverse' }, [
        node('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrowhead' }),
      ]),
      node('filter', { id: 'fg-shadow', x: '-30%', y: '-30%', width: '160%', height: '160%' }, [
        node('feDropShadow', { dx: 0, dy: 2, stdDeviation: 2, 'flood-opacity': 0.45 }),
      ]),
    ]),
    node('rect', { class: 'frame', x: 0, y: 0, width: W, height: H, rx: 22, fill: 'url(#fg-wood)' }),
  ];
  for (const x0 of [LEFT_X, RIGHT_X]) {
    parts.push(node('rect', { class: 'felt', x: x0, y: FIELD_TOP, width: 6 * POINT_W, height: FIELD_BOTTOM - FIELD_TOP, fill: 'url(#fg-felt)' }));
  }
  parts.push(node('rect', { class: 'barwood', x: BAR_X, y: FIELD_TOP - 4, width: BAR_W, height: FIELD_BOTTOM - FIELD_TOP + 8, rx: 5 }));
  parts.push(node('rect', { class: 'tray', x: TRAY_X + 6, y: FIELD_TOP, width: TRAY_W - 12, height: MID_Y - FIELD_TOP - 6, rx: 8 }));
  parts.push(node('rect', { class: 'tray', x: TRAY_X + 6, y: MID_Y + 6, width: TRAY_W - 12, height: FIELD_BOTTOM - MID_Y - 6, rx: 8 }));
  for (let p = 1; p <= 24; p++) {
    const g = pointGeom(p);
    const inset = 3;
    const pts = `${g.x + inset},${g.baseY} ${g.x + POINT_W - inset},${g.baseY} ${g.cx},${g.tipY}`;
    parts.push(node('polygon', { class: `tri ${p % 2 ? 'odd' : 'even'}`, 'data-point': p, points: pts }));
    const ny = g.bottom ? H - FRAME / 2 + 7 : FRAME / 2 + 7;
    parts.push(node('text', { class: 'num', 'data-num': p, x: g.cx, y: ny }, String(p)));
  }
  return parts;
}

/** The changing layer for `scene`: highlights, checkers, last-play arrows, dice and cube. */
export function sceneNodes(scene: Scene, names: readonly [string, string]): SvgNode[] {
  const out: SvgNode[] = [];
  const name = (seat: number) => names[seat as 0 | 1];
  const tgt = new Set(scene.targets);
  const pick = scene.listPick !== null ? scene.options[scene.listPick] : undefined;

  // Destination and source tints under the checkers.
  for (const target of tgt) {
    if (target >= 1 && target <= 24) {
      const g = pointGeom(target);
      const pts = `${g.x + 3},${g.baseY} ${g.x + POINT_W - 3},${g.baseY} ${g.cx},${g.tipY}`;
      out.push(node('polygon', { class: `tgt-tri${pick?.step.to === target ? ' pick' : ''}`, points: pts }));
    }
  }
  if (tgt.has(0)) {
    const y = scene.mover === scene.bottom ? MID_Y + 6 : FIELD_TOP;
    out.push(node('rect', { class: `tgt-tray${pick?.step.to === 0 ? ' pick' : ''}`, x: TRAY_X + 6, y, width: TRAY_W - 12, height: FIELD_BOTTOM - MID_Y - 6, rx: 8 }));
  }

  // Checkers on points; a pinned checker (plakoto) lies at the edge, half under its pinners.
  for (let p = 1; p <= 24; p++) {
    const stack = scene.points[p];
    if (!stack) continue;
    const base = stack.pinned === undefined ? 0 : PIN_LIFT;
    if (stack.pinned !== undefined) {
      const { x, y } = checkerCenter(p, 0);
      out.push(checkerNode(stack.pinned, x, y, ' pinned', t('board.pinnedLabel', { name: name(stack.pinned), point: String(p) }), 0, `s${stack.pinned}-p${p}`));
    }
    const room = stack.pinned === undefined ? STACK_MAX : STACK_MAX - 1;
    const shown = Math.min(stack.count, room);
    for (let i = 0; i < shown; i++) {
      const { x, y } = checkerCenter(p, i + base);
      const top = i === shown - 1;
      let cls = '';
      if (top && stack.seat === scene.mover && scene.movable.includes(p)) cls += ' movable';
      if (top && scene.selected === p) cls += ' sel';
      if (stack.pinned !== undefined) cls += ' pinner';
      const count = top && stack.count > room ? stack.count : 0;
      const key = top ? `s${stack.seat}-p${p}` : '';
      out.push(checkerNode(stack.seat, x, y, cls, t('board.checkerLabel', { name: name(stack.seat), point: String(p) }), count, key));
    }
  }
  // Bar and trays.
  for (const seat of [scene.bottom, scene.top]) {
    const n = scene.bar[seat]!;
    const isBottom = seat === scene.bottom;
    const shown = Math.min(n, 4);
    for (let i = 0; i < shown; i++) {
      const { x, y } = barCenter(isBottom, i);
      const top = i === shown - 1;
      let cls = '';
      if (top && seat === scene.mover && scene.movable.includes(25)) cls += ' movable';
      if (top && seat === scene.mover && scene.selected === 25) cls += ' sel';
      const key = top ? `s${seat}-p25` : '';
      out.push(checkerNode(seat, x, y, cls, t('board.checkerBarLabel', { name: name(seat) }), top && n > 4 ? n : 0, key));
    }
    const off = scene.off[seat]!;
    for (let i = 0; i < off; i++) {
      const r = slabRect(isBottom, i);
      out.push(node('rect', { class: `slab s${seat}`, x: r.x, y: f(r.y), width: r.w, height: r.h, rx: 4 }));
    }
    if (off > 0) {
      const r = slabRect(isBottom, off - 1);
      const ty = isBottom ? r.y - 8 : r.y + r.h + 20;
      out.push(node('text', { class: 'offcount', x: TRAY_X + TRAY_W / 2, y: f(ty) }, String(off)));
    }
  }
  // Landing markers at each destination.
  for (const t of tgt) {
    if (t >= 1 && t <= 24) {
      const { x, y } = checkerCenter(t, landingIndex(scene, t));
      out.push(node('circle', { class: `land${pick?.step.to === t ? ' pick' : ''}`, cx: x, cy: f(y), r: R - 4 }));
    }
  }
  const arrows = arrowsNode(scene);
  if (arrows) out.push(arrows);
  out.push(...diceNodes(scene, names));
  const cube = cubeNode(scene, names);
  if (cube) out.push(cube);
  return out;
}

/** Where an arrow of the last play starts or ends. */
function arrowEnd(scene: Scene, seat: number, place: number, arriving: boolean): { x: number; y: number } {
  const isBottom = seat === scene.bottom;
  if (place === 25) return barCenter(isBottom, 0);
  if (place === 0) return { x: TRAY_X + TRAY_W / 2, y: isBottom ? (MID_Y + FIELD_BOTTOM) / 2 : (FIELD_TOP + MID_Y) / 2 };
  const stack = scene.points[place];
  const own = stack && stack.seat === seat ? stack.count + (stack.pinned === undefined ? 0 : PIN_LIFT) : 0;
  return checkerCenter(place, arriving ? Math.max(0, own - 1) : own);
}

/** How far up a stack pinned checkers lift their pinners (a fraction: they overlap). */
export const PIN_LIFT = 0.6;

/** Where the mover's next checker on place `p` would stand (a stack index, maybe fractional). */
export function landingIndex(scene: Scene, p: number): number {
  const stack = scene.points[p];
  if (!stack) return 0;
  if (stack.seat === scene.mover) return stack.count + (stack.pinned === undefined ? 0 : PIN_LIFT);
  // An opposing checker there: hit in the backgammon family (it goes), pinned in plakoto.
  return scene.variant === 'plakoto' ? PIN_LIFT : 0;
}

function arrowsNode(scene: Scene): SvgNode | null {
  const out: SvgNode[] = [];
  for (const a of scene.arrows) {
    const p = arrowEnd(scene, a.seat, a.from, false);
    const q = arrowEnd(scene, a.seat, a.to, true);
    const dx = q.x - p.x;
    const dy = q.y - p.y;
    const len = Math.hypot(dx, dy) || 1;
    // Stop short of the checker's centre; bow the line a little so arrows along a row show.
    const ex = q.x - (dx / len) * (R * 0.55);
    const ey = q.y - (dy / len) * (R * 0.55);
    const bow = Math.min(60, len * 0.18);
    const cx = (p.x + ex) / 2 - (dy / len) * bow;
    const cy = (p.y + ey) / 2 + (dx / len) * bow;
    const d = `M${f(p.x)},${f(p.y)} Q${f(cx)},${f(cy)} ${f(ex)},${f(ey)}`;
    out.push(node('path', { class: 'arrow-under', d }), node('path', { class: 'arrow', d, 'marker-end': 'url(#fg-arrow)' }));
  }
  return out.length ? node('g', { class: scene.hinted ? 'lastplay hintplay' : 'lastplay', 'aria-hidden': 'true' }, out) : null;
}

function diceNodes(scene: Scene, names: readonly [string, string]): SvgNode[] {
  const d = scene.dice;
  if (!d) return [];
  const out: SvgNode[] = [];
  const y = MID_Y;
  const gap = DIE + 10;
  let badgeX: number;
  if (d.rollOff) {
    const bottomDie = d.dice[scene.bottom]!;
    const topDie = d.dice[scene.top]!;
    const rx = RIGHT_X + 3 * POINT_W;
    const lx = LEFT_X + 3 * POINT_W;
    out.push(dieNode(bottomDie, rx, y, t('board.rolledLabel', { name: names[scene.bottom]!, value: String(bottomDie.value) })));
    out.push(dieNode(topDie, lx, y, t('board.rolledLabel', { name: names[scene.top]!, value: String(topDie.value) })));
    badgeX = rx + DIE / 2 + 24;
  } else {
    const seat = d.dice[0]!.seat;
    const cx = (seat === scene.bottom ? RIGHT_X : LEFT_X) + 3 * POINT_W;
    const n = d.dice.length;
    const x0 = cx - ((n - 1) * gap) / 2;
    d.dice.forEach((die, i) => {
      out.push(dieNode(die, x0 + i * gap, y, t('board.dieLabel', { value: String(die.value), used: die.used ? 'yes' : 'no' })));
    });
    badgeX = x0 + (n - 1) * gap + DIE / 2 + 24;
  }
  const sym = { pending: '…', verified: '✓', alarm: '!', unverified: '?' }[d.check];
  out.push(
    node('g', { class: `dicecheck ${d.check}`, transform: `translate(${f(badgeX)},${f(y)})`, role: 'img', 'aria-label': t('board.diceCheckLabel', { check: d.check }) }, [
      node('circle', { r: 14 }),
      node('text', { y: 5 }, sym),
    ]),
  );
  return out;
}

function cubeNode(scene: Scene, names: readonly [string, string]): SvgNode | null {
  const c = scene.cube;
  if (!c.enabled && c.value === 1) return null;
  const size = 44;
  // The cube lives on the bar: in the middle while centred, at its owner's end once taken
  // (clear of the bar checkers, which stack outwards from the middle, four at most).
  let x = BAR_X + BAR_W / 2;
  let y = c.at === 'middle' ? MID_Y : c.at === 'top' ? FIELD_TOP + 6 + size / 2 : FIELD_BOTTOM - 6 - size / 2;
  if (c.at === 'offered-top' || c.at === 'offered-bottom') {
    // An offered cube sits in the middle of the doubler's half of the field, where dice go.
    x = (c.at === 'offered-bottom' ? RIGHT_X : LEFT_X) + 3 * POINT_W;
    y = MID_Y;
  }
  const shown = c.value === 1 ? 64 : c.value;
  const where = c.at === 'middle' ? 'middle' : c.at === 'bottom' || c.at === 'top' ? 'owned' : 'offered';
  const name = c.at === 'middle' ? '' : names[c.at === 'bottom' || c.at === 'offered-bottom' ? scene.bottom : scene.top]!;
  const cls = `cube${c.enabled ? '' : ' off'}${c.at.startsWith('offered') ? ' offered' : ''}`;
  return node('g', { class: cls, transform: `translate(${x},${f(y)})`, role: 'img', 'aria-label': t('board.cubeLabel', { value: String(c.value), where, name }) }, [
    node('rect', { x: -size / 2, y: -size / 2, width: size, height: size, rx: 8 }),
    node('text', { y: shown >= 10 ? 7 : 8, class: shown >= 10 ? 'two' : '' }, String(shown)),
  ]);
}
