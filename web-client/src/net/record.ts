/**
 * The move record: every turn of every game in standard notation (engine/notation.ts), built
 * from the events the client receives (or, for turns before a snapshot, from the server's record
 * of the game), as the tracker builds the match from the same events. Pure: no DOM, no I/O.
 */

import { playText } from '../engine/notation';
import { type Board, type Position, startPosition } from '../engine/position';
import { decodePositionId } from '../engine/positionId';
import { type GameVariant, rulesOf } from '../engine/variants';
import { type Seat, other } from '../engine/seat';
import type { EventFrame, GameOver, MatchStateWire } from './protocol';

/** What a record entry was (the Python engine's engine/turns.py Action, plus the game's end). */
export type RecordAction = 'move' | 'pass' | 'double' | 'take' | 'beaver' | 'drop' | 'resign' | 'accept' | 'reject' | 'forfeit' | 'win';

export interface RecordEntry {
  /** The version of the event it came from; 0 when it came from the server's game record. */
  readonly v: number;
  readonly game: number;
  readonly seat: Seat;
  readonly action: RecordAction;
  /** The dice of a play or a pass, the larger first. */
  readonly dice: readonly [number, number] | null;
  /** The play in standard notation, or the action in words ('doubles to 2', 'wins 2 points'). */
  readonly text: string;
}

const RESIGN_NAMES = { 1: 'single', 2: 'gammon', 3: 'backgammon' } as const;

/** The words of a game's end, as the record writes them. */
export function winText(over: GameOver): string {
  const kind = over.result === 'single' ? '' : ` (${over.result})`;
  return `wins ${over.points} point${over.points === 1 ? '' : 's'}${kind}`;
}

const sorted = (d1: number, d2: number): [number, number] => [Math.max(d1, d2), Math.min(d1, d2)];
const START: Board = startPosition().mover;

/**
 * The record of a match as the events arrive. After a snapshot the games before it are
 * unknown and the current one is known only from then on (`partial`); `fill` puts in what the
 * server's record of that game says.
 */
export class RecordBook {
  /** Entries by game number. */
  readonly games = new Map<number, RecordEntry[]>();
  /** Games known only from this version on (after a snapshot): game → version. */
  readonly partial = new Map<number, number>();
  private boards: [Board, Board] = [START, START];
  /** The current game's variant and plakoto's pins (each seat's own points). */
  private variant: GameVariant = 'backgammon';
  private pinned: [number, number] = [0, 0];
  private dice: [number, number] | null = null;
  private game = 0;

  entries(game: number): readonly RecordEntry[] {
    return this.games.get(game) ?? [];
  }

  /** The game numbers seen, in order. */
  gameNumbers(): number[] {
    return [...this.games.keys()].sort((a, b) => a - b);
  }

  applySnapshot(v: number, s: MatchStateWire): void {
    const g = s.game;
    if (g === null) return;
    this.game = g.game;
    this.boards = [g.boards[0], g.boards[1]];
    this.variant = g.variant ?? 'backgammon';
    this.pinned = g.pinned ? [g.pinned[0], g.pinned[1]] : [0, 0];
    this.dice = g.dice ? sorted(g.dice[0], g.dice[1]) : null;
    // This game and the earlier ones are known only from the server's records.
    for (let n = 1; n <= g.game; n++) {
      if (!this.partial.has(n) && !this.games.has(n)) {
        this.games.set(n, []);
        this.partial.set(n, v);
      }
    }
  }

  /** Apply the next event; true when the record changed. */
  apply(e: EventFrame): boolean {
    const add = (seat: Seat, action: RecordAction, text: string, dice: readonly [number, number] | null = null): true => {
      const list = this.games.get(this.game) ?? [];
      list.push({ v: e.v, game: this.game, seat, action, dice, text });
      this.games.set(this.game, list);
      return true;
    };
    switch (e.k) {
      case 'game_started':
        this.game = e.p.game;
        this.variant = e.p.variant ?? 'backgammon';
        this.pinned = [0, 0];
        {
          const start = rulesOf(this.variant).start();
          this.boards = [start.mover, start.opponent];
        }
        this.dice = null;
        if (!this.games.has(this.game)) this.games.set(this.game, []);
        return true;
      case 'dice':
        // A decided roll-off is the first play's dice only where it is not rolled again.
        if (e.p.kind === 'turn' || (e.p.d1 !== e.p.d2 && rulesOf(this.variant).opening === 'rolloff')) this.dice = sorted(e.p.d1, e.p.d2);
        return false;
      case 'moved': {
        const seat = e.p.seat;
        const o = other(seat);
        const before: Position = { mover: this.boards[seat], opponent: this.boards[o], moverPinned: this.pinned[seat], opponentPinned: this.pinned[o] };
        const rules = rulesOf(this.variant);
        let after: Position;
        if (this.variant === 'backgammon') {
          after = decodePositionId(e.p.position_id);
        } else {
          // As the tracker does: the variant's rules play the moves (pins kept).
          after = before;
          for (const move of e.p.moves) after = rules.applyMove(after, move);
          const [mp, op] = [after.moverPinned ?? 0, after.opponentPinned ?? 0];
          this.pinned = seat === 0 ? [mp, op] : [op, mp];
        }
        this.boards[seat] = after.mover;
        this.boards[o] = after.opponent;
        const dice = this.dice;
        this.dice = null;
        return add(seat, 'move', playText(before, e.p.moves, rules), dice);
      }
      case 'passed': {
        const dice = this.dice;
        this.dice = null;
        return add(e.p.seat, 'pass', 'cannot move', dice);
      }
      case 'doubled':
        return add(e.p.seat, 'double', `doubles to ${e.p.value}`);
      case 'beavered':
        return add(e.p.seat, 'beaver', `beavers to ${e.p.value}`);
      case 'taken':
        return add(e.p.seat, 'take', 'takes');
      case 'dropped':
        return add(e.p.seat, 'drop', 'drops');
      case 'resign_offered':
        return add(e.p.seat, 'resign', `resigns a ${RESIGN_NAMES[e.p.level]}`);
      case 'resign_accepted':
        return add(e.p.seat, 'accept', 'accepts');
      case 'resign_rejected':
        return add(e.p.seat, 'reject', 'rejects');
      case 'forfeit':
        return add(e.p.seat, 'forfeit', `forfeits (${e.p.reason.replace('_', ' ')})`);
      case 'game_over':
        // A drawn game (plakoto's two pinned mothers) has no winner's entry: the game's end says it.
        return e.p.winner === null ? false : add(e.p.winner, 'win', winText(e.p));
      default:
        return false;
    }
  }

  /**
   * The server's record of a game known only partly (its entries up to version `upTo`): it
   * replaces what this book has of that game up to that version.
   */
  fill(game: number, upTo: number, entries: readonly RecordEntry[]): void {
    const later = this.entries(game).filter((e) => e.v > upTo);
    this.games.set(game, [...entries, ...later]);
    this.partial.delete(game);
  }
}

/** One numbered row of the two-column record: seat 0's entry, then seat 1's. */
export interface RecordRow {
  /** The row's number; null for the line of a game's end. */
  readonly n: number | null;
  readonly cells: [number | null, number | null];
}

/**
 * The entries laid out as the classic two-column record (gnubg, .mat): a row per exchange,
 * seat 0 left and seat 1 right; a seat-1 entry fills the right cell of the last row when it is
 * free, else starts a new row. Cells are indices into `entries`.
 */
export function recordRows(entries: readonly RecordEntry[]): RecordRow[] {
  const rows: { n: number | null; cells: [number | null, number | null] }[] = [];
  let n = 0;
  entries.forEach((e, i) => {
    const last = rows[rows.length - 1];
    if (e.action === 'win') {
      rows.push({ n: null, cells: e.seat === 0 ? [i, null] : [null, i] });
      return;
    }
    if (e.seat === 1 && last && last.n !== null && last.cells[1] === null) {
      last.cells[1] = i;
      return;
    }
    n++;
    rows.push({ n, cells: e.seat === 0 ? [i, null] : [null, i] });
  });
  return rows;
}

/** The text of an entry as the record shows it: the roll, then the play (`63: 24/18 13/10`). */
export function entryText(e: RecordEntry): string {
  if (e.dice === null) return e.text;
  return `${e.dice[0]}${e.dice[1]}: ${e.text}`;
}
