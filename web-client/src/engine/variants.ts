/**
 * The variants the client plays, one value each (the twin of the Python engine.variants; the
 * rules and their sources: docs/rules.md, "Variants"). test/vectors/variant-vectors.json, written
 * from engine/variants by tools/make_variant_vectors.py, holds these rules to the Python ones.
 *
 * Every variant's position is the engine's Position: two boards of 26 counts, each from its
 * owner's side ([0] off, [1..24] its points, 24 where its back checkers start, [25] its bar,
 * always 0 in plakoto and fevga), plus plakoto's pinned checkers (`moverPinned`,
 * `opponentPinned`: bitmasks of each owner's own points). What differs is how the boards face
 * each other (`theirPoint`): mirrored (p ↔ 25 − p) except in fevga, where both sides go the same
 * way round from diagonally opposite corners (p ↔ p ± 12).
 *
 * A variant gives the single steps a die allows in a position and what a step does; the legal
 * plays follow for all variants alike (`legalPlaysOf`): every order of the dice, one step at a
 * time, then fevga's whole-play rules (the starting quarter, opening a prime) select among the
 * results before the rule of using as many dice as possible, and the higher die, applies.
 */

import { cannotLose, worstPossible as backgammonWorst } from './matchRules';
import { type Move, type Play, applyMove as bgApply, compareMoves, distinctDice, highestHomePoint, isHit, singleMoves as bgSingles } from './movegen';
import { BAR, type Board, OFF, type Position, positionKey, resultLevel } from './position';

/** One game's rules, by name (the wire's `game_started.variant`). */
export type GameVariant = 'backgammon' | 'nackgammon' | 'hypergammon' | 'portes' | 'plakoto' | 'fevga';
/** What a match is played under (the wire's `match_created.variant`): a game's, or Tavli. */
export type VariantName = GameVariant | 'tavli';

export const GAME_VARIANTS: readonly GameVariant[] = ['backgammon', 'nackgammon', 'hypergammon', 'portes', 'plakoto', 'fevga'];
export const VARIANT_NAMES: readonly VariantName[] = [...GAME_VARIANTS, 'tavli'];
/** The games of a Tavli match, in turn. */
export const TAVLI_ROTATION: readonly GameVariant[] = ['portes', 'plakoto', 'fevga'];

export function isVariantName(name: unknown): name is VariantName {
  return typeof name === 'string' && (VARIANT_NAMES as readonly string[]).includes(name);
}

export function isGameVariant(name: unknown): name is GameVariant {
  return typeof name === 'string' && (GAME_VARIANTS as readonly string[]).includes(name);
}

/** The variant of game `gameNo` (1, 2, ...) of a match played under `name`. */
export function gameVariant(name: VariantName, gameNo: number): GameVariant {
  return name === 'tavli' ? TAVLI_ROTATION[(Math.max(1, gameNo) - 1) % TAVLI_ROTATION.length]! : name;
}

/** Whether the cube is in play in a match played under `name`. */
export function hasCube(name: VariantName): boolean {
  return name === 'tavli' ? false : RULES[name].cube;
}

/** How a game ended on the board: bearing off, plakoto's pinned mother, or both mothers (a draw). */
export type Finish = 'bear_off' | 'mother' | 'mothers';

export interface Ending {
  /** Relative to the position it is read from; null: a draw. */
  readonly winner: 'mover' | 'opponent' | null;
  /** The result's multiplier: 1 single, 2 gammon or double, 3 backgammon; 0 for a draw. */
  readonly points: 0 | 1 | 2 | 3;
  readonly finish: Finish;
}

/** What the whole-play rules allow of a play's end, decided at the start of the turn. */
export interface EndRules {
  /** Only plays whose end passes may be played (null: any). */
  readonly allowed: ((end: Position) => boolean) | null;
  /** When some allowed play passes this, only such plays are legal (null: none preferred). */
  readonly preferred: ((end: Position) => boolean) | null;
}

export interface VariantRules {
  readonly name: GameVariant;
  readonly checkers: number;
  readonly cube: boolean;
  /** 'rolloff': the roll-off's dice are the first play; 'reroll': its winner rolls both again. */
  readonly opening: 'rolloff' | 'reroll';
  /** The biggest win: 3 (backgammon) or 2 (the Greek games' double). */
  readonly largest: 2 | 3;
  /** Whether a side's point faces the other's mirrored (25 − p) or half a lap on (fevga). */
  readonly facing: 'mirrored' | 'same-way';
  start(): Position;
  /** Every legal single step of `die` (the variant's step rules, ignoring the other dice). */
  singleMoves(position: Position, die: number): Move[];
  /** The position after one step. */
  applyMove(position: Position, move: Move): Position;
  /** The step hits (backgammon family) or pins (plakoto) an opposing checker. */
  marks(position: Position, move: Move): boolean;
  /** The whole-play rules of a turn from `start` (fevga), or null. */
  endRules(start: Position): EndRules | null;
  /** After the mover's play (the position still seen by the mover): how the game ended, or null. */
  ending(position: Position): Ending | null;
  /** The largest loss still possible for `loser` (the resignation and forfeit ceiling). */
  worstPossible(loser: Board, winner: Board): 1 | 2 | 3;
  /** Whether `loser` surely cannot lose at `level` or worse (a resignation warning). */
  cannotLose(loser: Board, winner: Board, level: 1 | 2 | 3): boolean;
}

/** The other side's number for a side's point `p` (1..24) in a variant. */
export function theirPoint(rules: Pick<VariantRules, 'facing'>, p: number): number {
  if (rules.facing === 'mirrored') return 25 - p;
  return p <= 12 ? p + 12 : p - 12;
}

const board = (points: Record<number, number>, checkers = 15): Board => {
  const b = new Array<number>(26).fill(0);
  let n = 0;
  for (const [p, c] of Object.entries(points)) {
    b[Number(p)] = c;
    n += c;
  }
  b[OFF] = checkers - n;
  return Object.freeze(b);
};

function moverBoardEmpty(position: Position): boolean {
  for (let p = 1; p <= BAR; p++) if (position.mover[p]! > 0) return false;
  return true;
}

/** The Greek scoring: single, or double when the loser has borne off nothing; no triple. */
function greek(loser: Board): 1 | 2 {
  return loser[OFF]! > 0 ? 1 : 2;
}

// ---- the backgammon family ----------------------------------------------------------------

const BACKGAMMON: VariantRules = {
  name: 'backgammon',
  checkers: 15,
  cube: true,
  opening: 'rolloff',
  largest: 3,
  facing: 'mirrored',
  start: () => {
    const b = board({ 6: 5, 8: 3, 13: 5, 24: 2 });
    return { mover: b, opponent: b };
  },
  singleMoves: bgSingles,
  applyMove: bgApply,
  marks: isHit,
  endRules: () => null,
  ending: (position) =>
    moverBoardEmpty(position) ? { winner: 'mover', points: resultLevel(position.opponent), finish: 'bear_off' } : null,
  worstPossible: backgammonWorst,
  cannotLose,
};

const NACK = board({ 6: 4, 8: 3, 13: 4, 23: 2, 24: 2 });
const HYPER = board({ 22: 1, 23: 1, 24: 1 }, 3);

/** Greek results: single or double, checked without contact words (no triple). */
const greekWorst = (loser: Board): 1 | 2 | 3 => greek(loser);
const greekCannotLose = (loser: Board, winner: Board, level: 1 | 2 | 3): boolean => level === 3 || (level === 2 && loser[OFF]! > 0) || cannotLose(loser, winner, level);

const PORTES: VariantRules = {
  ...BACKGAMMON,
  name: 'portes',
  cube: false,
  opening: 'reroll',
  largest: 2,
  ending: (position) => (moverBoardEmpty(position) ? { winner: 'mover', points: greek(position.opponent), finish: 'bear_off' } : null),
  worstPossible: greekWorst,
  cannotLose: greekCannotLose,
};

// ---- plakoto ------------------------------------------------------------------------------

const START_POINT = 24;
const TAVLI_START = board({ 24: 15 });
const bit = (mask: number | undefined, p: number): boolean => ((mask ?? 0) >> p) & 1 ? true : false;

function plakotoSingles(position: Position, die: number): Move[] {
  const { mover, opponent } = position;
  const mp = position.moverPinned ?? 0;
  const op = position.opponentPinned ?? 0;
  let allHome = mp === 0;
  for (let p = 7; p <= 24 && allHome; p++) if (mover[p]! > 0) allHome = false;
  const highest = highestHomePoint(mover);
  const moves: Move[] = [];
  for (let from = 24; from >= 1; from--) {
    if (mover[from]! - (bit(mp, from) ? 1 : 0) <= 0) continue;
    const to = from - die;
    if (to >= 1) {
      // Held: an opposing checker on top of one of ours, or two or more opposing checkers
      // there (unless one of them is the single checker we pin).
      if (bit(mp, to)) continue;
      const q = 25 - to;
      if (opponent[q]! < 2 || bit(op, q)) moves.push([from, to]);
    } else if (allHome && (to === 0 || from === highest)) {
      moves.push([from, OFF]);
    }
  }
  return moves;
}

function plakotoApply(position: Position, move: Move): Position {
  const [from, to] = move;
  const mover = position.mover.slice();
  mover[from]!--;
  mover[to]!++;
  let pinning = position.opponentPinned ?? 0;
  if (mover[from] === 0) pinning &= ~(1 << (25 - from)); // the last one off a point frees what it pinned
  if (to !== OFF && position.opponent[25 - to]! > 0) pinning |= 1 << (25 - to);
  return { mover, opponent: position.opponent, moverPinned: position.moverPinned ?? 0, opponentPinned: pinning };
}

function plakotoEnding(position: Position): Ending | null {
  if (moverBoardEmpty(position)) return { winner: 'mover', points: greek(position.opponent), finish: 'bear_off' };
  const moverMother = bit(position.moverPinned, START_POINT);
  const opponentMother = bit(position.opponentPinned, START_POINT);
  if (moverMother && opponentMother) return { winner: null, points: 0, finish: 'mothers' };
  if (opponentMother && position.mover[START_POINT] === 0) return { winner: 'mover', points: 2, finish: 'mother' };
  if (moverMother && position.opponent[START_POINT] === 0) return { winner: 'opponent', points: 2, finish: 'mother' };
  return null;
}

const PLAKOTO: VariantRules = {
  name: 'plakoto',
  checkers: 15,
  cube: false,
  opening: 'reroll',
  largest: 2,
  facing: 'mirrored',
  start: () => ({ mover: TAVLI_START, opponent: TAVLI_START, moverPinned: 0, opponentPinned: 0 }),
  singleMoves: plakotoSingles,
  applyMove: plakotoApply,
  marks: (position, move) => move[1] !== OFF && position.opponent[25 - move[1]]! > 0 && !bit(position.opponentPinned, 25 - move[1]),
  endRules: () => null,
  ending: plakotoEnding,
  worstPossible: greekWorst,
  cannotLose: (loser, _winner, level) => level === 3 || (level === 2 && loser[OFF]! > 0),
};

// ---- fevga --------------------------------------------------------------------------------

const fevgaPoint = (p: number): number => (p <= 12 ? p + 12 : p - 12);

/** The first checker off the starting point has not passed the opponent's start (our 12) yet. */
export function runnerWaiting(mover: Board): boolean {
  if (mover[START_POINT] !== 14) return false;
  let n = 0;
  for (let p = 12; p <= 23; p++) n += mover[p]!;
  return n === 1;
}

function holdsStartQuarter(mover: Board): boolean {
  for (let p = 19; p <= 24; p++) if (mover[p] === 0) return false;
  return true;
}

/** The opponent's point where all its checkers wait behind a six-prime of the mover's, or null. */
function trappedPoint(position: Position): number | null {
  let x = 0;
  for (let q = 1; q <= 24; q++) {
    if (position.opponent[q]! > 0) {
      if (x) return null;
      x = q;
    }
  }
  if (x < 7) return null;
  for (let q = x - 6; q < x; q++) if (position.mover[fevgaPoint(q)] === 0) return null;
  return x;
}

function fevgaSingles(position: Position, die: number): Move[] {
  const { mover, opponent } = position;
  let allHome = true;
  for (let p = 7; p <= 24 && allHome; p++) if (mover[p]! > 0) allHome = false;
  const highest = highestHomePoint(mover);
  const waiting = runnerWaiting(mover);
  const moves: Move[] = [];
  for (let from = 24; from >= 1; from--) {
    if (mover[from] === 0 || (from === START_POINT && waiting)) continue;
    const to = from - die;
    if (to >= 1) {
      if (opponent[fevgaPoint(to)] === 0) moves.push([from, to]);
    } else if (allHome && (to === 0 || from === highest)) {
      moves.push([from, OFF]);
    }
  }
  return moves;
}

function fevgaApply(position: Position, move: Move): Position {
  const mover = position.mover.slice();
  mover[move[0]]!--;
  mover[move[1]]!++;
  return { mover, opponent: position.opponent };
}

const FEVGA: VariantRules = {
  name: 'fevga',
  checkers: 15,
  cube: false,
  opening: 'reroll',
  largest: 2,
  facing: 'same-way',
  start: () => ({ mover: TAVLI_START, opponent: TAVLI_START }),
  singleMoves: fevgaSingles,
  applyMove: fevgaApply,
  marks: () => false,
  endRules: (start) => {
    const trapped = trappedPoint(start);
    const opens = (end: Position) => {
      for (let q = trapped! - 6; q < trapped!; q++) if (end.mover[fevgaPoint(q)] === 0) return true;
      return false;
    };
    return { allowed: (end) => !holdsStartQuarter(end.mover), preferred: trapped === null ? null : opens };
  },
  ending: (position) => (moverBoardEmpty(position) ? { winner: 'mover', points: greek(position.opponent), finish: 'bear_off' } : null),
  worstPossible: greekWorst,
  cannotLose: (loser, _winner, level) => level === 3 || (level === 2 && loser[OFF]! > 0),
};

export const RULES: Readonly<Record<GameVariant, VariantRules>> = {
  backgammon: BACKGAMMON,
  nackgammon: { ...BACKGAMMON, name: 'nackgammon', start: () => ({ mover: NACK, opponent: NACK }) },
  hypergammon: { ...BACKGAMMON, name: 'hypergammon', checkers: 3, start: () => ({ mover: HYPER, opponent: HYPER }) },
  portes: PORTES,
  plakoto: PLAKOTO,
  fevga: FEVGA,
};

/** The rules of a game variant (backgammon's for anything unknown or absent). */
export function rulesOf(name: string | null | undefined): VariantRules {
  return isGameVariant(name) ? RULES[name] : BACKGAMMON;
}

// ---- legal plays, for every variant -------------------------------------------------------

/**
 * All distinct legal plays of d1-d2 in `position` under `rules`, sorted by moves (descending);
 * empty when the roll cannot be played.
 *
 * Every sequence of legal single steps is tried, in every order of the dice; the results are
 * grouped in levels — both dice, else the higher die alone, else the lower (a double: 4, 3, 2,
 * 1 steps) — and the first level holding a play the whole-play rules keep gives the legal plays.
 */
export function legalPlaysOf(rules: VariantRules, position: Position, d1: number, d2: number): Play[] {
  const double = d1 === d2;
  const hi = Math.max(d1, d2);
  const lo = Math.min(d1, d2);
  const levels: Map<string, Play>[] = double ? [new Map(), new Map(), new Map(), new Map()] : [new Map(), new Map(), new Map()];
  const walk = (pos: Position, dice: readonly number[], moves: Move[]) => {
    for (const [die, rest] of distinctDice(dice)) {
      for (const move of rules.singleMoves(pos, die)) {
        const after = rules.applyMove(pos, move);
        const now = [...moves, move];
        const level = double ? 4 - now.length : now.length === 2 ? 0 : die === hi ? 1 : 2;
        const found = levels[level]!;
        const key = positionKey(after);
        const had = found.get(key);
        if (!had || compareMoves(now, had.moves) > 0) found.set(key, { moves: now, position: after });
        if (rest.length) walk(after, rest, now);
      }
    }
  };
  walk(position, double ? [d1, d1, d1, d1] : [hi, lo], []);
  const end = rules.endRules(position);
  let keep = end?.allowed ?? null;
  if (end?.preferred) {
    const both = (p: Position) => (end.allowed === null || end.allowed(p)) && end.preferred!(p);
    if (levels.some((found) => [...found.values()].some((play) => both(play.position)))) keep = both;
  }
  for (const found of levels) {
    const plays = [...found.values()].filter((play) => keep === null || keep(play.position));
    if (plays.length) return plays.sort((a, b) => compareMoves(b.moves, a.moves));
  }
  return [];
}

// ---- tavli --------------------------------------------------------------------------------

/** A Tavli match between games (engine/variants/tavli.py): target, score, games, next opener. */
export interface TavliScore {
  readonly target: number;
  readonly score: readonly [number, number];
  readonly games: number;
  /** The seat that opens the next game (the last winner), or null: a roll-off decides. */
  readonly opener: 0 | 1 | null;
}

export function tavliNew(target: number): TavliScore {
  if (!Number.isInteger(target) || target < 1 || target > 25) throw new RangeError(`a Tavli match is played to 1..25 points, got ${target}`);
  return { target, score: [0, 0], games: 0, opener: null };
}

/** The match after a game won by `winner` for `points` (1 or 2), or drawn (null, 0). */
export function tavliRecord(m: TavliScore, winner: 0 | 1 | null, points: number): TavliScore {
  if (tavliWinner(m) !== null) throw new Error('the match is over');
  if (winner === null) {
    if (points !== 0) throw new Error('a drawn game scores no points');
    return { ...m, games: m.games + 1, opener: null };
  }
  if (points !== 1 && points !== 2) throw new Error(`a Tavli game scores 1 or 2, got ${points}`);
  const score: [number, number] = [m.score[0], m.score[1]];
  score[winner] += points;
  return { ...m, score, games: m.games + 1, opener: winner };
}

export function tavliWinner(m: TavliScore): 0 | 1 | null {
  if (m.score[0] >= m.target) return 0;
  if (m.score[1] >= m.target) return 1;
  return null;
}

export function tavliNext(m: TavliScore): GameVariant {
  return TAVLI_ROTATION[m.games % TAVLI_ROTATION.length]!;
}
