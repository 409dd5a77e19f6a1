/**
 * A client's picture of a match, kept up to date from the snapshot and the events: the
 * TypeScript twin of the Python client's Tracker (protocol/client/tracker.py), checked against
 * it on real frames (test/tracker.test.ts), plus what a screen needs besides (offers, the last
 * play, the rolls with their reveals, presence, the end of the game). Pure: no I/O, no clock.
 */

import { type MatchKind, type MatchRules, MAX_CUBE, cubeInPlay, mayDouble } from '../engine/matchRules';
import { decodePositionId } from '../engine/positionId';
import { type Board, type Position, startPosition } from '../engine/position';
import { type GameVariant, type VariantRules, rulesOf } from '../engine/variants';
import { other } from '../engine/seat';
import {
  DAY_MS,
  type Clock,
  type EventFrame,
  type ForfeitReason,
  type GameOver,
  type MatchCreated,
  type MatchOver,
  type MatchStateWire,
  type Move,
  type RematchOffered,
  type Seat,
  type SeatStatus,
} from './protocol';

const START: Board = startPosition().mover;

/** The wire's match modes in the engine's terms (src/engine/matchRules.ts). */
export const MATCH_KIND: Readonly<Record<MatchCreated['mode'], MatchKind>> = { single_game: 'single', match: 'match', money: 'money' };

/** One roll of the current game, as published (both reveals, the dice). */
export interface RollRecord {
  readonly game: number;
  readonly k: number;
  readonly kind: 'rolloff' | 'turn';
  readonly roller: Seat | null;
  readonly reveals: readonly [Uint8Array, Uint8Array];
  readonly dice: readonly [number, number];
}

export class Tracker {
  version = 0;
  settings: MatchCreated | null = null;
  names: [string | null, string | null] = [null, null];
  /** Each seat's connection: from the snapshot, `seated` and `presence`. */
  status: [SeatStatus, SeatStatus] = ['empty', 'empty'];
  /** When a reconnecting seat that owes a decision loses on time (server ms). */
  presenceDeadline: [number | null, number | null] = [null, null];
  score: readonly [number, number] = [0, 0];
  game = 0;
  /** The index of the next roll. */
  k = 1;
  /** The turn being played (what `move.turn` must say), 0 before the roll-off is decided. */
  turn = 0;
  crawford = false;
  onRoll: Seat | null = null;
  /** The dice to play (phase move), else null. */
  dice: readonly [number, number] | null = null;
  boards: [Board, Board] = [START, START];
  cube = 1;
  cubeOwner: Seat | null = null;
  double: { seat: Seat; value: number } | null = null;
  resignation: { seat: Seat; level: 1 | 2 | 3 } | null = null;
  commitments: [Uint8Array | null, Uint8Array | null] = [null, null];
  recommits: [number, number] = [0, 0];
  /**
   * Each seat's latest re-commitment in this game: the link its next reveal hashes to and the
   * roll it applies from; null when it has none, or when it came before a snapshot (then only
   * the count is known).
   */
  lastRecommit: [{ commitment: Uint8Array; k: number } | null, { commitment: Uint8Array; k: number } | null] = [null, null];
  /**
   * From the last snapshot: each seat's latest link then (index `snapshotK`), which its next
   * reveal hashes to; null when none was sent (or before both committed).
   */
  snapshotHeads: { k: number; links: readonly [Uint8Array | null, Uint8Array | null] } | null = null;
  clock: Clock = { phase: 'waiting', seats: [], deadline: null, reserves: [0, 0] };
  /** The last `clock_credit`: whose server process died, and how much later its decision is due. */
  lastCredit: { seat: Seat; ms: number } | null = null;
  over: MatchOver | null = null;
  /** The rematch offered after the match (event or snapshot), if any. */
  rematch: RematchOffered | null = null;
  lastGame: GameOver | null = null;
  /** The forfeit that ended the last game, if one did. */
  forfeit: { game: number; seat: Seat; reason: ForfeitReason } | null = null;
  /** The last play of the current game (arrows). */
  lastPlay: { seat: Seat; moves: readonly Move[] } | null = null;
  /** The current (or next) game's variant (`game_started.variant`; never tavli). */
  variant: GameVariant = 'backgammon';
  /** Plakoto: each seat's pinned checkers, a bitmask of its own points. */
  pinned: [number, number] = [0, 0];
  /** Rolls of the current game seen so far (after a snapshot: only the later ones). */
  rolls: RollRecord[] = [];
  /** Events that did not follow the previous version (should stay 0). */
  gaps = 0;
  /**
   * Correspondence: the next game's roll-off wants each seat's reveal `k` (its last
   * `rolloff_ahead`); null before, once that game started, or after a snapshot (which does not say).
   */
  ahead: { game: number; k: number } | null = null;
  private beavered = false;

  // ---- queries --------------------------------------------------------------------------------

  /** The decision `seat` owes now (a clock phase), or null. */
  owes(seat: Seat): Clock['phase'] | null {
    return this.clock.seats.includes(seat) ? this.clock.phase : null;
  }

  /** The game the commitments now due are for: after a game ends, the next one. */
  get commitGame(): number {
    if (this.lastGame !== null && this.lastGame.game === this.game) return this.game + 1;
    return this.game || 1;
  }

  /**
   * Between two games of a match: the last one is over and the next has not started (its
   * commitments are still being collected; one may have arrived already).
   */
  get betweenGames(): boolean {
    const last = this.lastGame;
    if (this.over !== null || last === null) return false;
    return last.game === this.game || (last.game === this.game - 1 && this.clock.phase === 'commit');
  }

  /** A correspondence match: its clock is whole days (docs/protocol.md). */
  get correspondence(): boolean {
    const t = this.settings?.move_time ?? 0;
    return t >= DAY_MS && t % DAY_MS === 0;
  }

  /** A game is under way: started, not over. */
  get inGame(): boolean {
    const started = this.game > 0 && this.commitments[0] !== null;
    return started && (this.lastGame === null || this.lastGame.game !== this.game);
  }


  /** The match's rules in the engine's terms (null until the match is known). */
  get rules(): MatchRules | null {
    const s = this.settings;
    return s === null ? null : { kind: MATCH_KIND[s.mode], length: s.length ?? 0, jacoby: s.jacoby };
  }

  /** Whether `seat` may double at its next roll decision: the engine's rule (matchRules.ts,
   * held to the Python engine's vectors), a dead cube included; never in a variant without one. */
  mayDouble(seat: Seat): boolean {
    const rules = this.rules;
    if (!this.variantRules.cube) return false;
    return rules !== null && cubeInPlay(rules.kind, this.crawford) && mayDouble({ value: this.cube, owner: this.cubeOwner }, seat);
  }

  /** The rules of the current game's variant. */
  get variantRules(): VariantRules {
    return rulesOf(this.variant);
  }

  /** The position seen by `seat` (plakoto's pins included). */
  position(seat: Seat): Position {
    const o = other(seat);
    return { mover: this.boards[seat], opponent: this.boards[o], moverPinned: this.pinned[seat], opponentPinned: this.pinned[o] };
  }

  /** Whether `seat` may beaver the pending double. */
  mayBeaver(seat: Seat): boolean {
    return (
      this.settings?.beavers === true &&
      this.double !== null &&
      this.double.seat !== seat &&
      !this.beavered &&
      this.double.value * 2 <= MAX_CUBE
    );
  }

  // ---- updates --------------------------------------------------------------------------------

  /** Apply the next event (in version order) and return it. */
  applyEvent(frame: EventFrame): void {
    if (this.version && frame.v !== this.version + 1) this.gaps++;
    this.version = frame.v;
    this.on(frame);
    // More events of the same transition follow when `n` is nil: nobody owes anything until
    // its clock arrives.
    this.clock = frame.n ?? { ...this.clock, seats: [] };
  }

  applySnapshot(v: number, s: MatchStateWire): void {
    this.version = v;
    this.settings = s.settings;
    this.names = [s.seats[0].name, s.seats[1].name];
    this.status = [s.seats[0].status, s.seats[1].status];
    this.score = s.score;
    this.over = s.result;
    this.rematch = s.rematch ?? null;
    this.rolls = [];
    const g = s.game;
    const full = s.settings.reserve;
    if (g === null) {
      this.clock = { phase: 'waiting', seats: [], deadline: null, reserves: [full, full] };
      return;
    }
    this.game = g.game;
    this.k = g.k + 1;
    this.turn = g.turn;
    this.crawford = g.crawford;
    this.onRoll = g.on_roll;
    this.dice = g.dice;
    this.boards = [g.boards[0], g.boards[1]];
    this.variant = g.variant ?? 'backgammon';
    this.pinned = g.pinned ? [g.pinned[0], g.pinned[1]] : [0, 0];
    this.cube = g.cube.value;
    this.cubeOwner = g.cube.owner;
    this.double = g.double;
    this.resignation = g.resignation;
    this.commitments = [g.commitments[0], g.commitments[1]];
    this.recommits = [g.recommits[0], g.recommits[1]];
    this.lastRecommit = [null, null];
    this.snapshotHeads = g.heads ? { k: g.k, links: [g.heads[0], g.heads[1]] } : null;
    this.lastGame = g.result;
    this.lastPlay = null;
    this.ahead = null;
    this.clock = g.clock ?? { phase: s.result ? 'over' : g.phase, seats: [], deadline: null, reserves: this.clock.reserves };
  }

  /** A `presence` frame (not versioned). */
  applyPresence(seat: Seat, status: 'online' | 'reconnecting' | 'gone', deadline: number | null): void {
    this.status[seat] = status;
    this.presenceDeadline[seat] = status === 'online' ? null : deadline;
  }

  private on(e: EventFrame): void {
    switch (e.k) {
      case 'match_created':
        this.settings = e.p;
        break;
      case 'seated':
        this.names[e.p.seat] = e.p.name;
        if (this.status[e.p.seat] === 'empty') this.status[e.p.seat] = 'online';
        break;
      case 'commit_received':
        if (!this.inGame) this.game = e.p.game; // (a commitment to the next game made ahead leaves this one)
        break;
      case 'rolloff_ahead':
        this.ahead = { game: e.p.game, k: e.p.k };
        break;
      case 'committed':
        this.game = e.p.game;
        this.k = 1;
        this.commitments = [e.p.commitment0, e.p.commitment1];
        this.recommits = [0, 0];
        this.lastRecommit = [null, null];
        break;
      case 'recommitted':
        this.recommits[e.p.seat]++;
        this.lastRecommit[e.p.seat] = { commitment: e.p.commitment, k: e.p.k };
        break;
      case 'game_started':
        this.game = e.p.game;
        this.k = 1;
        this.turn = 0;
        this.crawford = e.p.crawford;
        this.score = e.p.score;
        this.variant = e.p.variant ?? 'backgammon';
        this.pinned = [0, 0];
        {
          const start = this.variantRules.start();
          this.boards = [start.mover, start.opponent];
        }
        this.cube = 1;
        this.cubeOwner = null;
        this.onRoll = null;
        this.dice = null;
        // A Greek game after a won one: the previous winner opens (no roll-off).
        if (this.variantRules.opening === 'reroll' && this.lastGame !== null && this.lastGame.winner !== null) {
          this.onRoll = this.lastGame.winner;
          this.turn = 1;
        }
        this.double = null;
        this.resignation = null;
        this.lastPlay = null;
        this.forfeit = null;
        this.rolls = [];
        this.ahead = null;
        break;
      case 'dice': {
        const d = e.p;
        this.k = d.k + 1;
        this.rolls.push({
          game: d.game,
          k: d.k,
          kind: d.kind,
          roller: d.roller,
          reveals: [d.reveal0, d.reveal1],
          dice: [d.d1, d.d2],
        });
        if (d.kind === 'rolloff') {
          if (d.d1 !== d.d2) {
            this.onRoll = d.d1 > d.d2 ? 0 : 1;
            this.turn = 1;
            // The backgammon family plays the roll-off's dice; the Greek games roll again.
            if (this.variantRules.opening === 'rolloff') this.dice = [Math.max(d.d1, d.d2), Math.min(d.d1, d.d2)];
          }
        } else {
          this.onRoll = d.roller;
          this.dice = [d.d1, d.d2];
        }
        break;
      }
      case 'moved': {
        const seat = e.p.seat;
        let after: Position;
        if (this.variant === 'backgammon') {
          after = decodePositionId(e.p.position_id);
        } else {
          // The Position ID cannot hold pins nor hypergammon's borne-off checkers: play the
          // moves by the variant's rules (the snapshot's boards and pins resynchronise).
          const rules = this.variantRules;
          after = this.position(seat);
          for (const move of e.p.moves) after = rules.applyMove(after, move);
          const mine = after.moverPinned ?? 0;
          const theirs = after.opponentPinned ?? 0;
          this.pinned = seat === 0 ? [mine, theirs] : [theirs, mine];
        }
        this.boards[seat] = after.mover;
        this.boards[other(seat)] = after.opponent;
        this.lastPlay = { seat, moves: e.p.moves };
        this.nextTurn(seat, e.p.turn);
        break;
      }
      case 'passed':
        this.lastPlay = null;
        this.nextTurn(e.p.seat, e.p.turn);
        break;
      case 'doubled':
        this.double = { seat: e.p.seat, value: e.p.value };
        break;
      case 'taken':
        // Taking a beaver's redouble leaves the cube with the beaver.
        this.cube = e.p.value;
        if (!this.beavered) this.cubeOwner = e.p.seat;
        this.beavered = false;
        this.double = null;
        break;
      case 'beavered':
        this.cube = e.p.value;
        this.cubeOwner = e.p.seat;
        this.beavered = true;
        // The doubler now answers the redouble.
        this.double = { seat: e.p.seat, value: e.p.value };
        break;
      case 'dropped':
        this.beavered = false;
        this.double = null;
        break;
      case 'resign_offered':
        this.resignation = { seat: e.p.seat, level: e.p.level };
        break;
      case 'resign_accepted':
      case 'resign_rejected':
        this.resignation = null;
        break;
      case 'forfeit':
        this.forfeit = { game: e.p.game, seat: e.p.seat, reason: e.p.reason };
        break;
      case 'game_over':
        this.lastGame = e.p;
        this.score = e.p.score;
        this.dice = null;
        this.double = null;
        this.resignation = null;
        break;
      case 'match_over':
        this.over = e.p;
        this.score = e.p.score;
        break;
      case 'rematch_offered':
        this.rematch = e.p;
        break;
      case 'clock_credit':
        // The new deadline is the frame's clock; this says why it moved.
        this.lastCredit = e.p;
        break;
      case 'rolling':
      case 'revealed':
        break;
    }
  }

  private nextTurn(seat: Seat, turn: number): void {
    this.turn = turn + 1;
    this.onRoll = other(seat);
    this.dice = null;
  }
}
