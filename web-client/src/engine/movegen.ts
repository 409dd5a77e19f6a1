/**
 * Legal plays: every distinct way to play a roll (the same rules and output as the Python
 * engine's engine.movegen.legal_plays; test/vectors/rules-vectors.json proves it).
 *
 * A play must use as many dice as any legal sequence allows; if only one die of a non-double can
 * be used, the higher one must be used when it can be; two plays reaching the same position are
 * the same play.
 */

import { BAR, type Board, OFF, type Position, positionKey } from './position';

/** One checker move (from, to) from the mover's side: 25 = bar, 0 = off. */
export type Move = readonly [from: number, to: number];

export interface Play {
  /** One legal order of checker moves reaching `position`. */
  readonly moves: readonly Move[];
  /** The resulting position, still seen by the mover. */
  readonly position: Position;
}

/** Each distinct die of the multiset `dice` once, with the dice left after it: the orders a
 * turn's steps can take (a double's four equal dice are one choice at each step). */
export function* distinctDice(dice: readonly number[]): Generator<[number, number[]]> {
  const tried = new Set<number>();
  for (let i = 0; i < dice.length; i++) {
    const die = dice[i]!;
    if (tried.has(die)) continue;
    tried.add(die);
    yield [die, dice.slice(0, i).concat(dice.slice(i + 1))];
  }
}

/** The highest point of the home board (6..1) the mover has a checker on, 0 for none: a die
 * larger than every checker's distance bears off from there (every variant's rule). */
export function highestHomePoint(mover: Board): number {
  for (let p = 6; p >= 1; p--) if (mover[p]! > 0) return p;
  return 0;
}

/** Every legal single-checker move of `die` pips, ignoring the other dice. */
export function singleMoves(position: Position, die: number): Move[] {
  const { mover, opponent } = position;
  const open = (to: number) => opponent[25 - to]! < 2;
  if (mover[BAR]! > 0) {
    const to = BAR - die;
    return open(to) ? [[BAR, to]] : [];
  }
  let allHome = true;
  for (let p = 7; p <= BAR; p++) {
    if (mover[p]! > 0) {
      allHome = false;
      break;
    }
  }
  const highest = highestHomePoint(mover);
  const moves: Move[] = [];
  for (let from = 24; from >= 1; from--) {
    if (mover[from] === 0) continue;
    const to = from - die;
    if (to >= 1) {
      if (open(to)) moves.push([from, to]);
    } else if (allHome && (to === 0 || from === highest)) {
      moves.push([from, OFF]);
    }
  }
  return moves;
}

/** True when `move` lands on a lone opposing checker (a hit). */
export function isHit(position: Position, move: Move): boolean {
  return move[1] !== OFF && position.opponent[25 - move[1]] === 1;
}

/** The position after one checker move (hitting a lone opposing checker on landing). */
export function applyMove(position: Position, move: Move): Position {
  const [from, to] = move;
  const mover = position.mover.slice();
  mover[from]!--;
  mover[to]!++;
  let opponent = position.opponent;
  if (to !== OFF && opponent[25 - to] === 1) {
    const copy = opponent.slice();
    copy[25 - to] = 0;
    copy[BAR]!++;
    opponent = copy;
  }
  return { mover, opponent };
}

/** The dice a roll gives to play: four of a double, else the two dice. */
export function diceToPlay(d1: number, d2: number): number[] {
  return d1 === d2 ? [d1, d1, d1, d1] : [d1, d2];
}

/** The most dice that can be used from `position` with the multiset `dice`. */
export function maxDiceUsable(position: Position, dice: readonly number[]): number {
  if (dice.length === 0) return 0;
  let best = 0;
  for (const [die, rest] of distinctDice(dice)) {
    for (const move of singleMoves(position, die)) {
      const used = 1 + maxDiceUsable(applyMove(position, move), rest);
      if (used > best) best = used;
      if (best === dice.length) return best;
    }
  }
  return best;
}

/** Python's tuple order of two move sequences (both engines list plays alike). */
export function compareMoves(a: readonly Move[], b: readonly Move[]): number {
  // Python's tuple ordering of the move sequences, so both engines list plays alike.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = a[i]![0] - b[i]![0] || a[i]![1] - b[i]![1];
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * All distinct legal plays of d1-d2, sorted like the Python engine (by moves, descending).
 * An empty list means no die can be played: the turn passes.
 */
export function legalPlays(position: Position, d1: number, d2: number): Play[] {
  const orders = d1 === d2 ? [[d1, d1, d1, d1]] : [[d1, d2], [d2, d1]];
  interface Seq {
    moves: Move[];
    first: number;
    position: Position;
  }
  const sequences: Seq[] = [];
  let most = 0;
  const walk = (pos: Position, dice: number[], moves: Move[], first: number) => {
    if (moves.length >= most) {
      if (moves.length > most) {
        most = moves.length;
        sequences.length = 0;
      }
      sequences.push({ moves, first, position: pos });
    }
    if (dice.length === 0) return;
    const die = dice[0]!;
    for (const move of singleMoves(pos, die)) {
      walk(applyMove(pos, move), dice.slice(1), [...moves, move], moves.length ? first : die);
    }
  };
  for (const order of orders) walk(position, order, [], 0);
  if (most === 0) return [];
  let best = sequences;
  if (most === 1 && d1 !== d2) {
    const higher = Math.max(d1, d2);
    const withHigher = best.filter((s) => s.first === higher);
    if (withHigher.length) best = withHigher;
  }
  const plays = new Map<string, Play>();
  for (const s of best) {
    const key = positionKey(s.position);
    if (!plays.has(key)) plays.set(key, { moves: s.moves, position: s.position });
  }
  return [...plays.values()].sort((a, b) => compareMoves(b.moves, a.moves));
}
