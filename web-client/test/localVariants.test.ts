import { describe, expect, it } from 'vitest';
import type { Position } from '../src/engine/position';
import { type GameVariant, RULES, type VariantName } from '../src/engine/variants';
import { ScriptedDice, type DiceSource, type LocalRoll } from '../src/view/dice';
import type { GameView } from '../src/view/gameView';
import { LocalGame, type LocalGameOptions } from '../src/view/localGame';
import { buildScene, screenPlace } from '../src/ui/scene';
import { sceneNodes } from '../src/ui/boardNodes';
import { resultHeadline } from '../src/ui/format';

const flush = async () => {
  for (let i = 0; i < 2; i++) await new Promise((r) => setTimeout(r, 0));
};

/** Reproducible dice (a linear congruential generator) that record who rolled what. */
class SeededDice implements DiceSource {
  private state: number;
  constructor(seed: number) {
    this.state = seed;
  }
  private die(): number {
    this.state = (this.state * 1103515245 + 12345) % 2147483648;
    return (Math.floor(this.state / 65536) % 6) + 1;
  }
  async startGame(): Promise<null> {
    return null;
  }
  async roll(): Promise<LocalRoll> {
    return { values: [this.die(), this.die()], check: 'unverified', record: null };
  }
}

function game(variant: VariantName, dice: DiceSource, extra: Partial<LocalGameOptions> = {}): LocalGame {
  return new LocalGame({ kind: 'single', length: 1, clockSeconds: 0, names: ['Ivory', 'Copper'], dice, passDelayMs: 0, variant, ...extra });
}

/** Play the game on until it ends: the furthest-moving play each turn (a race ends quickly). */
async function playOut(g: LocalGame, seen: (v: GameView) => void = () => {}): Promise<GameView> {
  for (let turn = 0; turn < 2000; turn++) {
    await flush();
    const v = g.current();
    seen(v);
    if (v.phase === 'gameover') return v;
    if (v.phase === 'decide') g.roll();
    else if (v.phase === 'moving') {
      const plays = g.legalPlays();
      if (plays.length) g.play(plays[turn % plays.length]!);
    }
  }
  throw new Error('the game did not end');
}

describe('the hot-seat game plays every variant', () => {
  for (const variant of ['backgammon', 'nackgammon', 'hypergammon', 'portes', 'plakoto', 'fevga'] as GameVariant[]) {
    it(`${variant}: from its start to its end`, async () => {
      const g = game(variant, new SeededDice(7 + variant.length));
      const start = RULES[variant].start();
      expect(g.current().boards).toEqual([start.mover, start.opponent]);
      await g.start();
      let pins = 0;
      let drawnPinned = 0;
      const end = await playOut(g, (v) => {
        expect(v.variant).toBe(variant);
        expect(v.cube.enabled).toBe(false); // a single game: no cube in any variant
        if (v.pinned && (v.pinned[0] || v.pinned[1])) {
          pins++;
          drawnPinned += buildScene(v, null).points.filter((s) => s?.pinned !== undefined).length;
        }
      });
      expect(end.result).not.toBeNull();
      const r = end.result!;
      if (r.winner === null) expect([r.reason, r.points]).toEqual(['mothers', 0]);
      else expect(r.points).toBeLessThanOrEqual(RULES[variant].largest);
      // Only plakoto pins, and the board draws each pinned checker under its pinner.
      if (variant === 'plakoto') expect(drawnPinned).toBeGreaterThan(0);
      else expect(pins).toBe(0);
    });
  }

  it('the Greek games: the roll-off winner rolls both dice again for the first play', async () => {
    const g = game('plakoto', new ScriptedDice(ScriptedDice.parse('52,66')));
    await g.start();
    await flush();
    const v = g.current();
    expect(v.phase).toBe('moving');
    expect(v.turn).toBe(0);
    expect(v.dice).toMatchObject({ k: 2, values: [6, 6], seat: 0 });
    const bg = game('backgammon', new ScriptedDice(ScriptedDice.parse('52,66')));
    await bg.start();
    expect(bg.current().dice).toMatchObject({ k: 1, values: [5, 2], seat: 0 });
  });

  it('plakoto: pinning the mother wins double; both mothers pinned is a draw', async () => {
    const b = (points: Record<number, number>) => {
      const board = new Array<number>(26).fill(0);
      for (const [p, n] of Object.entries(points)) board[Number(p)] = n;
      board[0] = 15 - board.reduce((a, n) => a + n, 0);
      return board;
    };
    // Ivory's checker on its 2-point reaches its 1-point, where Copper's mother stands alone.
    const mother: Position = { mover: b({ 2: 1, 13: 14 }), opponent: b({ 24: 1, 13: 14 }), moverPinned: 0, opponentPinned: 0 };
    const g = game('plakoto', new ScriptedDice(ScriptedDice.parse('21')), { position: mother, kind: 'match', length: 5 });
    await g.start();
    g.play([[13, 11], [2, 1]]);
    const won = g.current();
    expect(won.result).toMatchObject({ winner: 0, reason: 'mother', points: 2, score: [2, 0] });
    expect(resultHeadline(won, won.result!)).toMatch(/Ivory/);
    // Ivory's own mother is pinned already: pinning Copper's too is a draw.
    const both: Position = { mover: b({ 24: 1, 2: 1, 13: 13 }), opponent: b({ 24: 1, 1: 1, 13: 13 }), moverPinned: 1 << 24, opponentPinned: 0 };
    const d = game('plakoto', new ScriptedDice(ScriptedDice.parse('21')), { position: both, kind: 'match', length: 5 });
    await d.start();
    d.play([[13, 11], [2, 1]]);
    const drawn = d.current();
    expect(drawn.result).toMatchObject({ winner: null, reason: 'mothers', points: 0, score: [0, 0], matchOver: false });
    expect(resultHeadline(drawn, drawn.result!)).toBe('A draw: both mother checkers are pinned');
  });

  it('a Tavli match rotates portes, plakoto and fevga, the last winner opening, scored 1 or 2', async () => {
    const g = game('tavli', new SeededDice(99), { kind: 'match', length: 3 });
    await g.start();
    const played: string[] = [];
    let previous: 0 | 1 | null = null;
    for (let n = 1; n <= 12; n++) {
      const first = g.current();
      played.push(first.variant!);
      expect(first.cube.enabled).toBe(false);
      if (previous !== null) {
        // No roll-off: the last winner rolls both dice for the first play.
        await flush();
        expect(g.current().dice?.seat).toBe(previous);
        expect(g.current().dice?.k).toBe(1);
      }
      const before = first.match.score;
      const end = await playOut(g);
      const r = end.result!;
      if (r.winner !== null) {
        expect([1, 2]).toContain(r.points);
        expect(r.score[r.winner]).toBe(before[r.winner] + r.points);
      }
      previous = r.winner;
      if (r.matchOver) {
        expect(Math.max(...r.score)).toBeGreaterThanOrEqual(3);
        break;
      }
      g.next();
      await flush();
    }
    expect(played.slice(0, 4)).toEqual(['portes', 'plakoto', 'fevga', 'portes'].slice(0, Math.min(4, played.length)));
    expect(played.length).toBeGreaterThanOrEqual(3);
  });
});

describe('the board of a variant', () => {
  it('fevga: both sides start at diagonally opposite corners, the same way round', async () => {
    const g = game('fevga', new ScriptedDice(ScriptedDice.parse('52,66')), { side: 0 });
    await g.start();
    await flush();
    const scene = buildScene(g.current(), null);
    expect(scene.facing).toBe('same-way');
    // Seat 0 on its 24 (top right), seat 1 on its 24 = seat 0's 12 (bottom left).
    expect(scene.points[24]).toEqual({ seat: 0, count: 15 });
    expect(scene.points[12]).toEqual({ seat: 1, count: 15 });
    // Seat 1's point q is drawn at q ± 12, its own inverse.
    for (let q = 1; q <= 24; q++) expect(screenPlace(1, 0, screenPlace(1, 0, q, 'same-way'), 'same-way')).toBe(q);
    expect(screenPlace(1, 0, 1, 'same-way')).toBe(13);
    expect(screenPlace(1, 0, 1)).toBe(24);
  });

  it("plakoto: a pinned checker is drawn under its pinner's stack, and a saved game keeps the pins", async () => {
    const b = (points: Record<number, number>) => {
      const board = new Array<number>(26).fill(0);
      for (const [p, n] of Object.entries(points)) board[Number(p)] = n;
      board[0] = 15 - board.reduce((a, n) => a + n, 0);
      return board;
    };
    // Ivory (seat 0, on roll) has a lone checker on its 20, pinned under two of Copper's (its 5).
    const position: Position = { mover: b({ 24: 14, 20: 1 }), opponent: b({ 24: 13, 5: 2 }), moverPinned: 1 << 20, opponentPinned: 0 };
    const g = game('plakoto', new ScriptedDice(ScriptedDice.parse('21')), { position, side: 0 });
    await g.start();
    const view = g.current();
    expect(view.pinned).toEqual([1 << 20, 0]);
    const scene = buildScene(view, null);
    expect(scene.points[20]).toEqual({ seat: 1, count: 2, pinned: 0 });
    const markup = JSON.stringify(sceneNodes(scene, ['Ivory', 'Copper']));
    expect(markup).toContain('checker s0 pinned');
    expect(markup).toContain('Ivory checker pinned on point 20');
    // The pinned checker never moves: no legal play starts from 20.
    expect(g.legalPlays().some((play) => play.some(([from]) => from === 20))).toBe(false);
    const saved = g.save()!;
    expect(saved.pinned).toEqual([1 << 20, 0]);
    const again = game('plakoto', new ScriptedDice([]), { side: 0 });
    again.restore(saved);
    expect(again.current().pinned).toEqual([1 << 20, 0]);
    expect(again.current().variant).toBe('plakoto');
  });
});
