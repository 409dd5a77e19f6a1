/**
 * The match rules of the hot-seat game are the engine's: src/engine/matchRules.ts against the
 * tables of test/fixtures/match-rules.json (the Python engine's answers, written by
 * tools/make_match_rules.py; tests/web/test_web_match_rules.py fails when the file is stale),
 * and src/view/localGame.ts playing the engine's own matches step by step, its view compared
 * with what the engine said after every step.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type EndReason,
  type ResultLevel,
  type MatchRules,
  cannotLose,
  cubeInPlay,
  cubeIsDead,
  matchScore,
  mayDouble,
  nextGameIsCrawford,
  resignationLevels,
  resultPoints,
  scoreGame,
  worstPossible,
} from '../src/engine/matchRules';
import { decodePositionId } from '../src/engine/positionId';
import { legalPlays } from '../src/engine/movegen';
import { type Board, type Position, OFF, boardFromPoints, isContact } from '../src/engine/position';
import type { Move } from '../src/engine/movegen';
import { type Seat, other } from '../src/engine/seat';
import type { DiceSource, LocalRoll } from '../src/view/dice';
import type { GameView } from '../src/view/gameView';
import { LocalGame } from '../src/view/localGame';
import { Tracker } from '../src/net/tracker';

type Score = [number, number];
type Cube = [number, Seat | null];

interface Step {
  readonly do: 'start' | 'rolloff' | 'roll' | 'move' | 'double' | 'take' | 'drop' | 'resign' | 'accept' | 'reject' | 'forfeit' | 'next';
  readonly dice?: [number, number];
  readonly moves?: Move[];
  readonly level?: ResultLevel;
  readonly refused?: boolean;
  readonly then: Record<string, unknown>;
}

interface Fixture {
  readonly format: string;
  readonly crawford: { rules: MatchRules; score: Score; crawford_played: boolean; next_is_crawford: boolean }[];
  readonly double: { rules: MatchRules; score: Score; crawford_played: boolean; cube: Cube; crawford: boolean; cube_in_play: boolean; may_double: boolean; dead: boolean }[];
  readonly endings: {
    rules: MatchRules;
    score: Score;
    cube: Cube;
    end: EndReason;
    winner: Seat;
    level: ResultLevel;
    points: number;
    new_score: Score;
    shown_score: Score;
    over: boolean;
  }[];
  readonly levels: { id: string; worst: ResultLevel; levels: ResultLevel[][] }[];
  readonly matches: { name: string; rules: MatchRules; position?: string; steps: Step[] }[];
}

const FIXTURE: Fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'match-rules.json'), 'utf8'));

describe('match rules: the engine’s tables', () => {
  it('is the fixture this test reads', () => {
    expect(FIXTURE.format).toBe('fairgammon-match-rules/1');
  });

  it('knows the Crawford game: the first game after one player reaches N−1, once', () => {
    expect(FIXTURE.crawford.length).toBeGreaterThan(250);
    const bad = FIXTURE.crawford.filter((c) => nextGameIsCrawford(c.rules, c.score, c.crawford_played) !== c.next_is_crawford);
    expect(bad).toEqual([]);
    expect(FIXTURE.crawford.filter((c) => c.next_is_crawford).length).toBeGreaterThan(10);
  });

  it('lets the cube be turned where the engine does (a match to 1, dead cubes and post-Crawford too)', () => {
    expect(FIXTURE.double.length).toBeGreaterThan(500);
    const bad = FIXTURE.double.filter((c) => {
      const crawford = nextGameIsCrawford(c.rules, c.score, c.crawford_played);
      const inPlay = cubeInPlay(c.rules.kind, crawford);
      const may = inPlay && mayDouble({ value: c.cube[0], owner: c.cube[1] }, 1);
      return crawford !== c.crawford || inPlay !== c.cube_in_play || may !== c.may_double;
    });
    expect(bad).toEqual([]);
    const seen = new Set(FIXTURE.double.map((c) => `${c.crawford}/${c.cube_in_play}/${c.may_double}`));
    expect(seen).toEqual(new Set(['false/true/true', 'false/true/false', 'true/false/false', 'false/false/false']));
  });

  it('knows a dead cube: legal to turn, and worth nothing to the doubler', () => {
    const bad = FIXTURE.double.filter((c) => cubeIsDead(c.rules, c.score, c.cube[0], 1) !== c.dead);
    expect(bad).toEqual([]);
    expect(FIXTURE.double.some((c) => c.dead && c.may_double && c.rules.length === 1)).toBe(true);
  });

  it('gives the network tracker the same cube rule (the Double button and the hint agree)', () => {
    const MODE = { single: 'single_game', match: 'match', money: 'money' } as const;
    const bad = FIXTURE.double.filter((c) => {
      const t = new Tracker();
      t.settings = { mode: MODE[c.rules.kind], length: c.rules.length || null, jacoby: c.rules.jacoby, beavers: false, move_time: 30_000, reserve: 0 };
      t.crawford = c.crawford;
      t.cube = c.cube[0];
      t.cubeOwner = c.cube[1];
      return t.mayDouble(1) !== c.may_double;
    });
    expect(bad).toEqual([]);
  });

  it('scores a game as the engine does: level × cube, Jacoby, a forfeit in match play, the end of the match', () => {
    expect(FIXTURE.endings.length).toBeGreaterThan(500);
    const bad = FIXTURE.endings.filter((c) => {
      const worth = resultPoints(c.level, c.cube[0], c.end, c.rules.jacoby, c.cube[1] !== null);
      const got = scoreGame(c.rules, c.score, c.winner, worth, c.end);
      const shown = matchScore(c.rules, got.score);
      return (
        got.points !== c.points ||
        got.score[0] !== c.new_score[0] ||
        got.score[1] !== c.new_score[1] ||
        shown[0] !== c.shown_score[0] ||
        shown[1] !== c.shown_score[1] ||
        got.over !== c.over
      );
    });
    expect(bad).toEqual([]);
    const ends = new Set(FIXTURE.endings.map((c) => `${c.rules.kind}/${c.end}/${c.level}`));
    for (const kind of ['single', 'match', 'money']) {
      for (const end of ['bear_off', 'resign', 'forfeit']) for (const level of [1, 2, 3]) expect(ends, `${kind} ${end} ${level}`).toContain(`${kind}/${end}/${level}`);
    }
    expect(ends).toContain('match/drop/1');
    expect(ends).toContain('money/drop/1');
  });

  it('grades forfeits and offers resignations up to the worst result still possible', () => {
    expect(FIXTURE.levels.length).toBeGreaterThan(40);
    for (const c of FIXTURE.levels) {
      const { mover, opponent } = decodePositionId(c.id);
      expect(worstPossible(mover, opponent), c.id).toBe(c.worst);
      ([null, 1, 2, 3] as const).forEach((declined, i) => {
        expect(resignationLevels(mover, opponent, declined), `${c.id} after ${declined}`).toEqual(c.levels[i]);
      });
    }
    expect(new Set(FIXTURE.levels.map((c) => c.worst))).toEqual(new Set([1, 2, 3]));
  });
});

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random race: `n` checkers of a side spread over points 1..`top`, the rest borne off. */
function side(rnd: () => number, n: number, top: number): Board {
  const points: Record<number, number> = {};
  for (let i = 0; i < n; i++) {
    const p = 1 + Math.floor(rnd() * top);
    points[p] = (points[p] ?? 0) + 1;
  }
  return boardFromPoints(points);
}

/** All 15 checkers on the board, low in the home board (a few pips above the 15 they count). */
function lowHome(rnd: () => number): Board {
  const up = Math.floor(rnd() * 5);
  const high = Math.floor(rnd() * 2);
  const points: Record<number, number> = { 1: 15 - up - high, 2: up };
  if (high) points[4] = 1;
  return boardFromPoints(points);
}

/** One game from `position` (its mover rolls first), random dice and random legal plays: what
 * the mover lost (0: it won; 1, 2: a single, a gammon). */
function playOut(start: Position, rnd: () => number, untilOneOff: boolean): 0 | 1 | 2 {
  let pos = start;
  let moverToPlay = true;
  for (;;) {
    // Only a gammon at stake: decided once the resigner has a checker off.
    const resigner = moverToPlay ? pos.mover : pos.opponent;
    if (untilOneOff && resigner[OFF]! > 0) return 0;
    const d1 = 1 + Math.floor(rnd() * 6);
    const d2 = 1 + Math.floor(rnd() * 6);
    const plays = legalPlays(pos, d1, d2);
    if (plays.length) pos = plays[Math.floor(rnd() * plays.length)]!.position;
    if (pos.mover[OFF] === 15) {
      if (moverToPlay) return 0;
      return pos.opponent[OFF]! > 0 ? 1 : 2; // the resigner (now the opponent) lost
    }
    pos = { mover: pos.opponent, opponent: pos.mover };
    moverToPlay = !moverToPlay;
  }
}

describe('a resignation the game cannot cost: cannotLose', () => {
  it('is never claimed where a game played any way, with any dice, loses that much', () => {
    const rnd = random(26);
    let claimed = [0, 0];
    let fullGammons = 0;
    for (let i = 0; i < 450; i++) {
      // Races near their end, where the claim bites: the resigner with few pips, the other with many.
      // A third of them with all 15 of the resigner's checkers on the board (a gammon at stake).
      const resigner = i % 3 === 0 ? lowHome(rnd) : side(rnd, 1 + Math.floor(rnd() * (i % 2 ? 15 : 5)), i % 2 ? 12 : 6);
      const opponent = side(rnd, (i % 3 === 0 ? 1 : 6) + Math.floor(rnd() * 6), 6);
      const position = { mover: resigner, opponent };
      if (isContact(position)) continue;
      const single = cannotLose(resigner, opponent, 1);
      const gammon = cannotLose(resigner, opponent, 2);
      claimed = [claimed[0]! + Number(single), claimed[1]! + Number(gammon)];
      if (gammon && resigner[OFF] === 0) fullGammons++;
      if (!single && !gammon) continue;
      for (let g = 0; g < 8; g++) {
        const lost = playOut(position, rnd, !single);
        if (single) expect(lost, JSON.stringify(position)).toBe(0);
        if (gammon) expect(lost, JSON.stringify(position)).toBeLessThan(2);
      }
    }
    expect(claimed[0]).toBeGreaterThan(30);
    expect(claimed[1]).toBeGreaterThan(30);
    expect(fullGammons).toBeGreaterThan(10);
  });

  it('claims the games a resignation would give away, and nothing with contact or a backgammon', () => {
    const last = boardFromPoints({ 1: 1 });
    const full = boardFromPoints({ 6: 15 });
    expect(cannotLose(last, full, 1)).toBe(true); // off with any roll, before anyone else
    expect(cannotLose(full, last, 1)).toBe(false);
    expect(cannotLose(full, last, 2)).toBe(false); // 19 rolls in 36 bear nothing off
    expect(cannotLose(boardFromPoints({ 1: 15 }), boardFromPoints({ 6: 3 }), 2)).toBe(true); // two 1s off at once
    const start = decodePositionId('4HPwATDgc/ABMA');
    expect(cannotLose(start.mover, start.opponent, 1)).toBe(false);
    expect(cannotLose(last, full, 3)).toBe(false);
  });
});

/** Dice handed over one roll at a time, when a step gives them. */
class FedDice implements DiceSource {
  private readonly queue: [number, number][] = [];
  private waiting: ((roll: LocalRoll) => void) | null = null;

  async startGame(): Promise<null> {
    return null;
  }

  roll(): Promise<LocalRoll> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.drain();
    });
  }

  feed(values: [number, number]): void {
    this.queue.push(values);
    this.drain();
  }

  private drain(): void {
    const waiting = this.waiting;
    const values = this.queue[0];
    if (!waiting || !values) return;
    this.queue.shift();
    this.waiting = null;
    waiting({ values, check: 'unverified', record: null });
  }
}

const CLOCK_SECONDS = 30;

/** The local game's view in the fixture's terms. */
function observe(v: GameView): Record<string, unknown> {
  const score = [v.match.score[0], v.match.score[1]];
  if (v.phase === 'gameover') {
    return { score, phase: 'over', result: [v.result!.winner, v.result!.points], match_over: v.result!.matchOver, crawford: v.match.crawford };
  }
  const phase =
    v.phase === 'moving' ? 'move' : v.phase === 'offer' ? (v.offer!.kind === 'double' ? 'take' : 'resign') : v.phase;
  const seen: Record<string, unknown> = {
    score,
    phase,
    turn: v.phase === 'offer' ? other(v.offer!.by) : v.turn,
    crawford: v.match.crawford,
    cube: [v.cube.value, v.cube.owner],
    cube_in_play: v.cube.enabled,
  };
  // The resignation levels the board offers (all three when the view names none).
  if (phase === 'decide' || phase === 'move') seen.resign_levels = v.resignLevels ?? [1, 2, 3];
  return seen;
}

describe('the hot-seat game plays the engine’s matches', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const settle = async () => {
    for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(0);
  };

  it('has whole matches of every kind to play', () => {
    expect(FIXTURE.matches.length).toBeGreaterThanOrEqual(10);
    expect(new Set(FIXTURE.matches.map((m) => m.rules.kind))).toEqual(new Set(['single', 'match', 'money']));
    const done = FIXTURE.matches.flatMap((m) => m.steps.map((s) => s.do));
    for (const step of ['rolloff', 'roll', 'move', 'double', 'take', 'drop', 'resign', 'accept', 'reject', 'forfeit', 'next'] as const) {
      expect(done).toContain(step);
    }
  });

  for (const scenario of FIXTURE.matches) {
    it(scenario.name, async () => {
      const dice = new FedDice();
      const game = new LocalGame({
        kind: scenario.rules.kind,
        length: scenario.rules.length,
        jacoby: scenario.rules.jacoby,
        clockSeconds: CLOCK_SECONDS,
        names: ['Ivory', 'Copper'],
        dice,
        passDelayMs: 0,
        ...(scenario.position ? { position: decodePositionId(scenario.position) } : {}),
      });
      for (const [i, step] of scenario.steps.entries()) {
        switch (step.do) {
          case 'start':
            void game.start();
            break;
          case 'rolloff':
            dice.feed(step.dice!);
            break;
          case 'roll':
            // With a cube decision the player rolls; without one the game already asked for dice.
            if (game.current().phase === 'decide') game.roll();
            dice.feed(step.dice!);
            break;
          case 'move':
            game.play(step.moves!);
            break;
          case 'double':
            game.double();
            break;
          case 'take':
            game.take();
            break;
          case 'drop':
            game.drop();
            break;
          case 'resign':
            game.resign(step.level!);
            break;
          case 'accept':
            game.acceptResign();
            break;
          case 'reject':
            game.rejectResign();
            break;
          case 'forfeit':
            await vi.advanceTimersByTimeAsync(CLOCK_SECONDS * 1000);
            break;
          case 'next':
            game.next();
            break;
        }
        await settle();
        expect(observe(game.current()), `step ${i}: ${JSON.stringify({ ...step, then: undefined })}`).toEqual(step.then);
      }
      game.dispose();
    });
  }
});
