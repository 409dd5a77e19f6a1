/**
 * The replay of a recorded game: the server's record of the game (record.json) as a list of
 * steps, each the board after one entry of the move record, with its dice, cube, score and pip
 * counts. Step 0 is the starting position; step i shows the board after entry i - 1. Pure.
 */

import type { Move } from '../engine/movegen';
import { type Board, type Position, pipCount, startPosition } from '../engine/position';
import { rulesOf } from '../engine/variants';
import { decodePositionId } from '../engine/positionId';
import type { GameRecordDoc } from '../net/recordApi';
import type { Seat } from './gameView';
import { type RecordEntry, winText } from '../net/record';

export interface ReplayStep {
  readonly boards: readonly [Board, Board];
  /** Who acted at this step (null at the start). */
  readonly seat: Seat | null;
  readonly entry: RecordEntry | null;
  readonly dice: readonly [number, number] | null;
  readonly moves: readonly Move[];
  readonly cube: number;
  readonly owner: Seat | null;
  readonly score: readonly [number, number];
  readonly pips: readonly [number, number];
  /** Plakoto: each seat's pinned checkers (bitmasks of its own points). */
  readonly pinned: readonly [number, number];
}

/** The move record's entries of a recorded game (its end included). */
export function entriesOf(doc: GameRecordDoc): RecordEntry[] {
  const out: RecordEntry[] = doc.turns.map((t) => ({ v: 0, game: doc.game, seat: t.seat, action: t.action, dice: t.dice, text: t.text }));
  const r = doc.result;
  if (r && r.winner !== null) {
    const score = r.score ?? doc.score;
    out.push({ v: 0, game: doc.game, seat: r.winner, action: 'win', dice: null, text: winText({ game: doc.game, winner: r.winner, points: r.points, result: r.result, reason: r.reason, score }) });
  }
  return out;
}

/** Every step of the replay: the start, then one per entry of `entriesOf(doc)`. */
export function replaySteps(doc: GameRecordDoc): ReplayStep[] {
  const rules = rulesOf(doc.variant);
  const start = doc.variant && doc.variant !== 'backgammon' ? rules.start() : startPosition();
  let boards: [Board, Board] = [start.mover, start.opponent];
  let pinned: [number, number] = [0, 0];
  let cube = 1;
  let owner: Seat | null = null;
  const score = doc.score;
  const pips = (b: readonly [Board, Board]): [number, number] => [pipCount(b[0]), pipCount(b[1])];
  const steps: ReplayStep[] = [{ boards, seat: null, entry: null, dice: null, moves: [], cube, owner, score, pips: pips(boards), pinned }];
  const entries = entriesOf(doc);
  doc.turns.forEach((t, i) => {
    if (rules.name === 'backgammon') {
      const after = decodePositionId(t.position);
      boards = t.seat === 0 ? [after.mover, after.opponent] : [after.opponent, after.mover];
    } else {
      // The Position ID cannot hold pins nor hypergammon's borne-off checkers: play the moves.
      const o = t.seat === 0 ? 1 : 0;
      let at: Position = { mover: boards[t.seat], opponent: boards[o], moverPinned: pinned[t.seat], opponentPinned: pinned[o] };
      for (const move of t.moves) at = rules.applyMove(at, move);
      const [mp, op] = [at.moverPinned ?? 0, at.opponentPinned ?? 0];
      boards = t.seat === 0 ? [at.mover, at.opponent] : [at.opponent, at.mover];
      pinned = t.seat === 0 ? [mp, op] : [op, mp];
    }
    cube = t.cube;
    owner = t.owner;
    steps.push({ boards, seat: t.seat, entry: entries[i]!, dice: t.dice, moves: t.moves, cube, owner, score, pips: pips(boards), pinned });
  });
  if (doc.result) {
    const final = doc.result.score ?? score;
    const entry = doc.result.winner === null ? null : entries[entries.length - 1]!;
    steps.push({ boards, seat: doc.result.winner, entry, dice: null, moves: [], cube, owner, score: final, pips: pips(boards), pinned });
  }
  return steps;
}

/** The replay board's address: `/m/<match>/replay/<game>`, opening at `#turn=<step>` if given. */
export function replayPath(match: string, game: number, step?: number): string {
  return `/m/${match}/replay/${game}${step ? `#turn=${step}` : ''}`;
}

/** The step named by a replay address's fragment (`#turn=12`), or null. */
export function stepFromHash(hash: string): number | null {
  const m = /^#turn=(\d{1,5})$/.exec(hash);
  return m ? Number(m[1]) : null;
}

