/**
 * Dice statistics of finished games against what fair dice give: how often each face came,
 * doubles, pips rolled per player, and entering from the bar (against the chance the board
 * allowed). Descriptive only: the fairness proof is the commit-reveal check, and a few dozen
 * rolls are too few for a deviation to mean much (docs/analysis.md). Pure.
 *
 * Only turn rolls count: the opening roll comes from the roll-off, which never gives a double.
 */

import type { GameRecordDoc } from '../net/recordApi';
import { replaySteps } from './replay';

export interface SeatDice {
  rolls: number;
  doubles: number;
  /** Pips rolled (a double counts four times). */
  pips: number;
  /** Rolls made with a checker on the bar, those that entered one, and the expected entries. */
  barRolls: number;
  entered: number;
  expectedEntered: number;
}

export interface DiceStats {
  readonly rolls: number;
  /** How often each face 1..6 came (index 0 = face 1), over both dice of every roll. */
  readonly faces: readonly number[];
  readonly seats: readonly [SeatDice, SeatDice];
  /** Pearson's chi-square of the faces against 1/6 each (5 degrees of freedom). */
  readonly chiSquare: number;
}

/** The chi-square value that fair dice exceed 5% of the time, with 5 degrees of freedom. */
export const CHI_SQUARE_95 = 11.07;

/** Expected pips per roll: 2 × 3.5, with doubles counted twice more (1/6 of rolls × 2 × 3.5). */
export const PIPS_PER_ROLL = 49 / 6;

const empty = (): SeatDice => ({ rolls: 0, doubles: 0, pips: 0, barRolls: 0, entered: 0, expectedEntered: 0 });

export function diceStats(docs: readonly GameRecordDoc[]): DiceStats {
  const faces = [0, 0, 0, 0, 0, 0];
  const seats: [SeatDice, SeatDice] = [empty(), empty()];
  let rolls = 0;
  for (const doc of docs) {
    const steps = replaySteps(doc);
    let opening = true;
    doc.turns.forEach((t, i) => {
      if ((t.action !== 'move' && t.action !== 'pass') || t.dice === null) return;
      if (opening) {
        opening = false;
        return;
      }
      const s = seats[t.seat];
      const [a, b] = t.dice;
      rolls++;
      s.rolls++;
      faces[a - 1]!++;
      faces[b - 1]!++;
      s.doubles += a === b ? 1 : 0;
      s.pips += a === b ? 4 * a : a + b;
      // The board before this roll (step i), seen by the roller.
      const before = steps[i]!.boards;
      const mine = before[t.seat];
      const theirs = before[t.seat === 0 ? 1 : 0];
      if (mine[25]! > 0) {
        // Entry points: the roller's 19..24, the opponent's 6..1; closed with 2 or more.
        let closed = 0;
        for (let p = 1; p <= 6; p++) if (theirs[p]! >= 2) closed++;
        s.barRolls++;
        s.expectedEntered += 1 - (closed / 6) ** 2;
        if (t.moves.some(([from]) => from === 25)) s.entered++;
      }
    });
  }
  const n = 2 * rolls;
  const chiSquare = n ? faces.reduce((sum, f) => sum + (f - n / 6) ** 2 / (n / 6), 0) : 0;
  return { rolls, faces, seats, chiSquare };
}
