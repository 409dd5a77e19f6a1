/**
 * Backgammon positions seen from the player on roll (the *mover*), the same 26-slot model as
 * the Python engine (engine/position.py): each board is counted from its owner's own side,
 * [0] = borne off, [1..24] = points (1 = the last point of the owner's home board), [25] = bar.
 * The mover's point p is the opponent's point 25 - p.
 */

export const OFF = 0;
export const BAR = 25;
export const POINTS = 24;
export const CHECKERS = 15;
export const SLOTS = 26;

/** 26 checker counts from the owner's side. */
export type Board = readonly number[];

export interface Position {
  readonly mover: Board;
  readonly opponent: Board;
  /** Plakoto: the mover's pinned checkers, a bitmask of its own points (bit p: its checker on
   * point p is pinned under the opponent's); absent or 0 elsewhere. */
  readonly moverPinned?: number;
  /** Plakoto: the opponent's pinned checkers, a bitmask of the opponent's own points. */
  readonly opponentPinned?: number;
}

const START: Board = Object.freeze([
  0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0,
]);

export class PositionError extends Error {}

/** The standard starting position. */
export function startPosition(): Position {
  return { mover: START, opponent: START };
}

/** Raise PositionError unless `board` is 26 non-negative integer counts summing to 15. */
export function checkBoard(board: Board, who = 'board'): void {
  if (board.length !== SLOTS) throw new PositionError(`${who}: expected ${SLOTS} counts, got ${board.length}`);
  let total = 0;
  for (let i = 0; i < SLOTS; i++) {
    const n = board[i]!;
    if (!Number.isInteger(n) || n < 0) throw new PositionError(`${who}: bad count at index ${i}: ${n}`);
    total += n;
  }
  if (total !== CHECKERS) throw new PositionError(`${who}: has ${total} checkers, expected ${CHECKERS}`);
}

/** Raise PositionError unless `position` can occur in a game (counts, no shared point). */
export function checkPosition(position: Position): void {
  checkBoard(position.mover, 'mover');
  checkBoard(position.opponent, 'opponent');
  for (let p = 1; p <= POINTS; p++) {
    if (position.mover[p]! > 0 && position.opponent[25 - p]! > 0) {
      throw new PositionError(`both players have checkers on the mover's point ${p}`);
    }
  }
}

/** Build a board from a {point: count} map; the rest of the 15 checkers are borne off. */
export function boardFromPoints(points: Record<number, number>): Board {
  const board = new Array<number>(SLOTS).fill(0);
  let total = 0;
  for (const [key, n] of Object.entries(points)) {
    const p = Number(key);
    if (!(p >= 1 && p <= BAR)) throw new PositionError(`no such point ${p}`);
    board[p]! += n;
    total += n;
  }
  if (total > CHECKERS) throw new PositionError(`more than ${CHECKERS} checkers`);
  board[OFF] = CHECKERS - total;
  return board;
}

/** A checked position from {point: count} maps. */
export function positionFromPoints(
  mover: Record<number, number>,
  opponent: Record<number, number>,
): Position {
  const position = { mover: boardFromPoints(mover), opponent: boardFromPoints(opponent) };
  checkPosition(position);
  return position;
}

/** The same position seen by the other player (the turn passes). */
export function swapped(position: Position): Position {
  if (position.moverPinned || position.opponentPinned) {
    return { mover: position.opponent, opponent: position.mover, moverPinned: position.opponentPinned ?? 0, opponentPinned: position.moverPinned ?? 0 };
  }
  return { mover: position.opponent, opponent: position.mover };
}

/** Sum of distances to bear off: a checker on point p needs p pips, on the bar 25. */
export function pipCount(board: Board): number {
  let pips = 0;
  for (let p = 1; p < SLOTS; p++) pips += p * board[p]!;
  return pips;
}

/** True when either side has borne off all 15 checkers. */
export function isOver(position: Position): boolean {
  return position.mover[OFF] === CHECKERS || position.opponent[OFF] === CHECKERS;
}

function furthest(board: Board): number {
  for (let p = BAR; p > 0; p--) if (board[p]! > 0) return p;
  return 0;
}

/** True while the two sides can still hit each other. */
export function isContact(position: Position): boolean {
  const a = furthest(position.mover);
  const b = furthest(position.opponent);
  return a > 0 && b > 0 && a + b > 25;
}

/** How many times the cube value a win is worth: 1 single, 2 gammon, 3 backgammon. */
export function resultLevel(loser: Board): 1 | 2 | 3 {
  if (loser[OFF]! > 0) return 1;
  // The winner's home board is the loser's points 19..24; 25 is the bar.
  for (let p = 19; p <= BAR; p++) if (loser[p]! > 0) return 3;
  return 2;
}

export function boardsEqual(a: Board, b: Board): boolean {
  for (let i = 0; i < SLOTS; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function positionsEqual(a: Position, b: Position): boolean {
  return (
    boardsEqual(a.mover, b.mover) &&
    boardsEqual(a.opponent, b.opponent) &&
    (a.moverPinned ?? 0) === (b.moverPinned ?? 0) &&
    (a.opponentPinned ?? 0) === (b.opponentPinned ?? 0)
  );
}

/** A compact string key (for sets and maps) of a position (pinned checkers included). */
export function positionKey(position: Position): string {
  const key = position.mover.join(',') + '|' + position.opponent.join(',');
  const mp = position.moverPinned ?? 0;
  const op = position.opponentPinned ?? 0;
  return mp || op ? `${key}|${mp},${op}` : key;
}
