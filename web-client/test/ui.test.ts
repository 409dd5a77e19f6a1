import { describe, expect, it } from 'vitest';
import { positionFromPoints, startPosition } from '../src/engine';
import { type SvgNode, sceneNodes, staticNodes } from '../src/ui/boardNodes';
import { clockFace, clockLeft, diceCheckLine, formatClock, recommitLine, resultHeadline, shownScore, statusLine } from '../src/ui/format';
import { gridOf, placeAt, pointAtGrid, pointGeom } from '../src/ui/geometry';
import { commandFor, moveFocus } from '../src/ui/keyboard';
import * as mc from '../src/ui/moveController';
import { buildScene } from '../src/ui/scene';
import type { GameView } from '../src/view/gameView';

const view = (over: Partial<GameView> = {}): GameView => ({
  viewer: 0,
  players: [
    { name: 'Ivory', presence: 'online', forfeitAt: null },
    { name: 'Copper', presence: 'online', forfeitAt: null },
  ],
  boards: [startPosition().mover, startPosition().opponent],
  turn: 0,
  phase: 'moving',
  dice: { k: 2, values: [3, 1], seat: 0, check: 'verified' },
  cube: { value: 1, owner: null, enabled: true },
  match: { kind: 'match', length: 5, score: [0, 0], crawford: false, gameNo: 1 },
  clocks: [
    { deadline: null, budgetMs: 30000, reserve: null },
    { deadline: null, budgetMs: 30000, reserve: null },
  ],
  offer: null,
  lastPlay: null,
  result: null,
  notice: null,
  fairness: null,
  spectators: 0,
  pending: false,
  version: 0,
  ...over,
});

describe('keyboard map', () => {
  it('maps the letters of the spec', () => {
    expect(['b', 'O', 'u', 'r', 'd', 'e', 'Escape'].map((k) => commandFor(k, false))).toEqual([
      'bar', 'off', 'undo', 'redo', 'roll', 'end', 'clear',
    ]);
    expect(commandFor('D', true)).toBe('double');
    expect(commandFor('x', false)).toBeNull();
  });

  it('moves the focus over the points as they are drawn', () => {
    expect(moveFocus(1, 'ArrowLeft')).toBe(2);
    expect(moveFocus(1, 'ArrowRight')).toBe(1); // the right edge
    expect(moveFocus(6, 'ArrowLeft')).toBe(7); // across the bar
    expect(moveFocus(5, 'ArrowUp')).toBe(20);
    expect(moveFocus(20, 'ArrowDown')).toBe(5);
    expect(moveFocus(17, 'Home')).toBe(13);
    expect(moveFocus(17, 'End')).toBe(24);
    expect(moveFocus(25, 'ArrowLeft')).toBe(2); // from the bar: start at point 1
    expect(moveFocus(3, 'Enter')).toBeNull();
  });
});

describe('geometry', () => {
  it('finds every point where it is drawn', () => {
    for (let p = 1; p <= 24; p++) {
      const g = pointGeom(p);
      const y = g.bottom ? g.baseY - 10 : g.baseY + 10;
      expect(placeAt(g.cx, y)).toBe(p);
      expect(pointAtGrid(gridOf(p).row, gridOf(p).col)).toBe(p);
    }
  });
});

describe('words on screen', () => {
  it('formats clocks rounding up', () => {
    expect(formatClock(29_001)).toBe('0:30');
    expect(formatClock(61_000)).toBe('1:01');
    expect(formatClock(-5)).toBe('0:00');
    expect(formatClock(3_599_000)).toBe('59:59');
    // A correspondence clock: hours, then days.
    expect(formatClock(5 * 3_600_000 + 7 * 60_000 + 30_000)).toBe('5 h 07');
    expect(formatClock(2 * 86_400_000 + 3 * 3_600_000 + 59 * 60_000)).toBe('2 d 3 h');
    expect(formatClock(86_400_000)).toBe('1 d 0 h');
    // A deadline a little more than 30 s away (clock offset) still shows 0:30, never 0:31.
    expect(formatClock(clockLeft(1_030_400, 1_000_000, 30_000))).toBe('0:30');
    expect(formatClock(clockLeft(1_012_300, 1_000_000, 30_000))).toBe('0:13');
    expect(clockLeft(null, 5, 30_000)).toBe(30_000);
  });

  it('runs the time reserve once the time for the decision is up', () => {
    // 30 s per decision and 90 s of reserve left: the deadline is 120 s after the start (t = 0).
    const clock = { deadline: 120_000, budgetMs: 30_000, reserve: { leftMs: 90_000, inDeadline: true } };
    expect(clockFace(clock, 0)).toEqual({ leftMs: 30_000, reserveMs: 90_000, inReserve: false, toDeadline: 120_000 });
    expect(clockFace(clock, 29_999)).toMatchObject({ leftMs: 1, reserveMs: 90_000, inReserve: false });
    expect(clockFace(clock, 30_000)).toMatchObject({ leftMs: 90_000, reserveMs: 90_000, inReserve: true });
    expect(clockFace(clock, 100_000)).toEqual({ leftMs: 20_000, reserveMs: 20_000, inReserve: true, toDeadline: 20_000 });
    expect(clockFace(clock, 130_000)).toEqual({ leftMs: 0, reserveMs: 0, inReserve: true, toDeadline: 0 });
    // The reserve of a seat that does not owe a decision, or owes an automatic one, stands still.
    expect(clockFace({ ...clock, deadline: null }, 50_000)).toEqual({ leftMs: 30_000, reserveMs: 90_000, inReserve: false, toDeadline: null });
    const reveal = { ...clock, deadline: 30_000, reserve: { leftMs: 90_000, inDeadline: false } };
    expect(clockFace(reveal, 10_000)).toEqual({ leftMs: 20_000, reserveMs: 90_000, inReserve: false, toDeadline: 20_000 });
    // No reserve in the match: the plain clock.
    expect(clockFace({ deadline: 30_000, budgetMs: 30_000, reserve: null }, 0)).toEqual({ leftMs: 30_000, reserveMs: null, inReserve: false, toDeadline: 30_000 });
  });

  it('says what happens now', () => {
    // On your own device the words speak to you; on a shared screen they name the players.
    expect(statusLine(view(), true, 2, 0)).toBe('Your move, 3–1');
    expect(statusLine(view(), true, 2, 2)).toBe('Your move, 3–1: end the turn');
    expect(statusLine(view({ shared: true }), true, 1, 0)).toBe('Ivory to play 3–1 (only 1 can be played)');
    expect(statusLine(view({ shared: true }), true, 0, 0)).toBe('Ivory to play 3–1: no legal move');
    expect(statusLine(view({ viewer: 1 }), false, 2, 0)).toBe('Ivory to play 3–1');
    expect(statusLine(view({ pending: true }), false, 2, 2)).toBe('Sending your move…');
    expect(statusLine(view({ phase: 'offer', offer: { kind: 'double', by: 0, value: 2 } }), false, 0, 0)).toBe(
      'Copper to answer',
    );
    expect(diceCheckLine({ k: 4, values: [1, 2], seat: 1, check: 'alarm' })).toMatch(/ALARM/);
  });

  it('tells each player the result in their own words', () => {
    const timeout = { winner: 1 as const, reason: 'timeout' as const, points: 1, score: [0, 1] as const, matchOver: false };
    // The loser on their own device reads the second person, as elsewhere.
    expect(resultHeadline(view({ viewer: 0 }), timeout)).toBe('You lost on time');
    expect(resultHeadline(view({ viewer: 1 }), timeout)).toBe('You win on time');
    expect(resultHeadline(view({ viewer: null }), timeout)).toBe('Copper wins on time');
    expect(resultHeadline(view({ shared: true }), timeout)).toBe('Copper wins on time');
    expect(resultHeadline(view({ viewer: 0 }), { ...timeout, reason: 'resign' })).toBe('You resigned');
    const stopped = { winner: null, reason: 'stopped' as const, points: 0, score: [3, 3] as const, matchOver: true };
    expect(resultHeadline(view(), stopped)).toBe('The session ended level');
    expect(resultHeadline(view({ viewer: 1 }), { ...stopped, winner: 0, points: 2 })).toBe('You lose the session');
  });

  it('shows the match score, never beyond the length', () => {
    expect(shownScore({ kind: 'match', length: 1, score: [4, 0], crawford: false, gameNo: 1 })).toEqual([1, 0]);
    expect(shownScore({ kind: 'match', length: 5, score: [2, 26], crawford: false, gameNo: 7 })).toEqual([2, 5]);
    expect(shownScore({ kind: 'money', length: 0, score: [26, 3], crawford: false, gameNo: 9 })).toEqual([26, 3]);
  });
});

/** The nodes written out as markup, escaped (only to match them here: the board never
 * parses markup, it builds these nodes through the DOM). */
const esc = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const written = (nodes: readonly SvgNode[]): string =>
  nodes
    .map((n) => {
      const attrs = Object.entries(n.attrs).map(([k, v]) => ` ${k}="${esc(String(v))}"`).join('');
      return `<${n.tag}${attrs}>${esc(n.text ?? '')}${written(n.kids ?? [])}</${n.tag}>`;
    })
    .join('');
const everyNode = (nodes: readonly SvgNode[]): SvgNode[] => nodes.flatMap((n) => [n, ...everyNode(n.kids ?? [])]);

describe('board nodes', () => {
  it('numbers all 24 points', () => {
    const text = written(staticNodes());
    for (let p = 1; p <= 24; p++) expect(text).toMatch(new RegExp(`data-num="${p}"[^>]*>${p}</text>`));
  });

  it('draws stacks over five with their count, the bar, trays, dice and the check mark', () => {
    const position = positionFromPoints({ 6: 7, 25: 1, 1: 2 }, { 23: 3, 12: 2 });
    const v = view({
      boards: [position.mover, position.opponent],
      dice: { k: 9, values: [4, 4], seat: 0, check: 'alarm' },
    });
    const markup = written(sceneNodes(buildScene(v, null), ['Ivory', 'Copper']));
    expect(markup.match(/class="checker s0/g)?.length).toBe(5 + 1 + 2); // 6-point shows 5
    expect(markup).toContain('<text class="count" y="1">7</text>');
    expect(markup).toContain('Ivory checker on the bar');
    expect(markup.match(/class="slab s0"/g)?.length).toBe(5);
    expect(markup.match(/class="slab s1"/g)?.length).toBe(10);
    expect(markup.match(/class="die s0/g)?.length).toBe(4); // a double shows four dice
    expect(markup).toContain('class="dicecheck alarm"');
    expect(markup).toContain('aria-label="cube 1, centred"');
  });

  it('lights the destinations of the selected checker', () => {
    const ui = mc.tap(mc.newMoveUi(startPosition(), 3, 1), 8);
    const markup = written(sceneNodes(buildScene(view(), ui), ['Ivory', 'Copper']));
    expect(markup.match(/class="land/g)?.length).toBe(3);
    expect(markup).toMatch(/class="checker s0[^"]* sel"/);
  });

  it('keeps a name with markup in it as the text of a label, never as an element', () => {
    const evil = '"><svg onload=__pw=1>';
    const other = '<img src onerror=__pw=1>';
    const scene = buildScene(view({ dice: { k: 1, values: [4, 2], seat: null, check: 'verified' } }), null);
    const nodes = everyNode(sceneNodes(scene, [evil, other]));
    const tags = new Set(nodes.map((n) => n.tag));
    expect([...tags].sort()).toEqual(['circle', 'g', 'rect', 'text']);
    expect(nodes.flatMap((n) => Object.keys(n.attrs)).filter((k) => /^on/i.test(k))).toEqual([]);
    const labels = nodes.map((n) => n.attrs['aria-label']).filter((l): l is string => typeof l === 'string');
    expect(labels.filter((l) => l === `${evil} checker on point 6`)).toHaveLength(5); // each checker of the stack
    expect(labels).toContain(`${other} checker on point 19`);
    expect(labels).toContain(`${evil} rolled 4`); // the roll-off's dice name their seats
    expect(labels).toContain(`${other} rolled 2`);
  });
});

describe('fairness panel lines', () => {
  it('names who re-committed, how often, from which roll', () => {
    const names = ['Ivory', 'Copper'] as const;
    expect(recommitLine(names, undefined)).toBeNull();
    expect(recommitLine(names, [null, null])).toBeNull();
    expect(recommitLine(names, [null, { count: 1, k: 7, link: 'ab12cd34ef' }])).toBe(
      'Re-committed: Copper from roll #7 (ab12cd34…)',
    );
    // After a snapshot only the count is known.
    expect(recommitLine(names, [{ count: 2, k: null, link: null }, { count: 1, k: 3, link: '00ff00ff11' }])).toBe(
      'Re-committed: Ivory 2× · Copper from roll #3 (00ff00ff…)',
    );
  });
});
