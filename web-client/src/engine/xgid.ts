/**
 * Writing an XGID (eXtreme Gammon's position and match state, docs/analysis.md "Position setup:
 * XGID") for the analysis board's editor: the player on roll is XG's bottom player. The server
 * reads it (`engine/xgid.py`, the one reader); this writer is checked against that module's
 * writer on shared vectors (test/vectors/xgid-vectors.json, written by
 * tools/make_xgid_vectors.py).
 */

import { BAR, type Position, POINTS } from './position';

/** The match state set on the board, from the player on roll's side. */
export interface BoardState {
  /** Cube value, a power of two from 1. */
  readonly cube: number;
  /** Who owns the cube: 'mover' (the player on roll), 'opponent', or null (centred). */
  readonly owner: 'mover' | 'opponent' | null;
  /** Match length, 0 for money. */
  readonly length: number;
  /** [the player on roll's score, the opponent's]. */
  readonly score: readonly [number, number];
  /** The Crawford game (match play only). */
  readonly crawford: boolean;
}

const letter = (n: number, lower: boolean): string => {
  const c = String.fromCharCode((lower ? 96 : 64) + n);
  return n === 0 ? '-' : c;
};

/** The XGID of `position` (the mover on roll, not yet rolled) in `state`. */
export function xgidOf(position: Position, state: BoardState): string {
  const bottom = position.mover;
  const top = position.opponent;
  let squares = letter(top[BAR]!, true);
  for (let p = 1; p <= POINTS; p++) squares += bottom[p]! ? letter(bottom[p]!, false) : letter(top[25 - p]!, true);
  squares += letter(bottom[BAR]!, false);
  const owner = state.owner === null ? 0 : state.owner === 'mover' ? 1 : -1;
  const rules = state.length ? (state.crawford ? 1 : 0) : 0;
  const fields = [squares, String(Math.log2(state.cube)), String(owner), '1', '00', String(state.score[0]), String(state.score[1]), String(rules), String(state.length), '10'];
  return `XGID=${fields.join(':')}`;
}
