/**
 * GameView: everything the board UI shows, as plain data. Two drivers feed it: the hot-seat
 * LocalGame (localGame.ts) and the network NetGame (netGame.ts, built from a net/ session). The
 * UI never reads anything else, and it talks back only through GameActions.
 *
 * Board numbering: boards[s] is seat s's checkers counted from seat s's own side (the 26-slot
 * model of the engine: [0] off, [1..24] points, [25] bar). Times are client epoch milliseconds
 * (Date.now()), already corrected by the network layer for the server's clock offset.
 */

import type { Board } from '../engine/position';
import type { Move } from '../engine/movegen';
import type { Seat } from '../engine/seat';
import { type MatchKind, mayDouble } from '../engine/matchRules';
import type { DiceCheck } from '../fairdice';
import type { GameVariant, VariantName } from '../engine/variants';

export type { Seat, DiceCheck, MatchKind };
export { other } from '../engine/seat';

/** 'empty': nobody has taken the seat yet (a network match waiting for its opponent). */
export type Presence = 'online' | 'reconnecting' | 'gone' | 'empty';

export interface PlayerView {
  readonly name: string;
  readonly presence: Presence;
  /** When a reconnecting or gone player forfeits (client ms), else null. */
  readonly forfeitAt: number | null;
}

export interface ClockView {
  /** Deadline of the decision this seat owes now (client ms), its time reserve included when
   * the decision may use it; null when its clock is stopped. */
  readonly deadline: number | null;
  /** The full time per decision (ms), to draw how much is left. */
  readonly budgetMs: number;
  /** The seat's time reserve, null when the match has none. */
  readonly reserve: ReserveView | null;
}

/** A time bank for the whole match, used when a decision takes longer than the budget. */
export interface ReserveView {
  /** What the seat had left as its current decision began (ms). */
  readonly leftMs: number;
  /** True when the running deadline includes it: the last `leftMs` before the deadline are reserve. */
  readonly inDeadline: boolean;
}

export interface DiceView {
  /** Roll index k of the fair-dice scheme. */
  readonly k: number;
  readonly values: readonly [number, number];
  /** Whose roll this is; null for an opening roll-off die pair (values[0] is seat 0's die). */
  readonly seat: Seat | null;
  readonly check: DiceCheck;
}

export interface CubeView {
  readonly value: number;
  /** null while centred. */
  readonly owner: Seat | null;
  /** false in a cubeless game or in the Crawford game: the cube is not drawn as usable. */
  readonly enabled: boolean;
}

export interface MatchView {
  readonly kind: MatchKind;
  /** Match length in points (kind 'match'), else 0. */
  readonly length: number;
  readonly score: readonly [number, number];
  /** This game is the Crawford game. */
  readonly crawford: boolean;
  readonly gameNo: number;
  /** What the match is played under (absent: backgammon); 'tavli' rotates its games' variants. */
  readonly variant?: VariantName;
}

/**
 * Phases of a game as the UI needs them. 'decide' = the seat on turn may double or roll;
 * 'rolling' = dice are being derived (reveals in flight); 'moving' = the seat on turn plays the
 * dice; 'offer' = a double or resignation waits for the other seat's answer.
 */
export type Phase = 'waiting' | 'rolloff' | 'decide' | 'rolling' | 'moving' | 'offer' | 'gameover';

export type Offer =
  /** `beaver`: the answering seat may beaver (money sessions with beavers). */
  | { readonly kind: 'double'; readonly by: Seat; readonly value: number; readonly beaver?: boolean }
  | { readonly kind: 'resign'; readonly by: Seat; readonly level: 1 | 2 | 3 };

export type ResultReason =
  | 'single'
  | 'gammon'
  | 'backgammon'
  /** Plakoto: won by pinning the loser's mother checker. */
  | 'mother'
  /** Plakoto: both mothers pinned, a draw (no winner, no points). */
  | 'mothers'
  | 'resign'
  | 'drop'
  | 'timeout'
  | 'forfeit'
  | 'invalid_reveal'
  | 'no_reveal'
  /** A money session stopped between games: the result is the session's. */
  | 'stopped';

export interface ResultView {
  /** The game's winner; for a stopped session its leader, null when level. */
  readonly winner: Seat | null;
  readonly reason: ResultReason;
  /** Points won (result multiplier x cube): the game's own, whatever the match needed; for a
   * stopped session, the winner's margin over the session. */
  readonly points: number;
  readonly score: readonly [number, number];
  readonly matchOver: boolean;
  /** Links of the finished game (network phase), e.g. transcript and .mat export. */
  readonly links?: readonly { readonly label: string; readonly href: string }[];
}

export interface FairnessRoll {
  readonly k: number;
  readonly reveals: readonly [string, string];
  readonly dice: readonly [number, number];
  readonly check: DiceCheck;
}

export interface FairnessView {
  /** Hex commitments s[0] of seat 0 and seat 1 (null until published). */
  readonly commitments: readonly [string | null, string | null];
  readonly rolls: readonly FairnessRoll[];
  /** Each seat's re-commitments in this game (a new device, or a chain that ran out). */
  readonly recommits?: readonly [RecommitView | null, RecommitView | null];
}

export interface RecommitView {
  /** How many times the seat re-committed in this game (at most 3). */
  readonly count: number;
  /** The latest: the roll it applies from and its link (hex), unless it came before a snapshot. */
  readonly k: number | null;
  readonly link: string | null;
}

export interface GameView {
  /**
   * The seat this screen plays (board drawn from its side), or null for a spectator (drawn from
   * seat 0's side, read-only). A hot-seat driver sets it to the seat that acts next.
   */
  readonly viewer: Seat | null;
  readonly players: readonly [PlayerView, PlayerView];
  readonly boards: readonly [Board, Board];
  /** This game's variant (absent: backgammon). */
  readonly variant?: GameVariant;
  /** Plakoto: seat 0's and seat 1's pinned checkers, bitmasks of each owner's own points. */
  readonly pinned?: readonly [number, number];
  /** The seat on turn (or that must answer an offer is derived from `offer`). */
  readonly turn: Seat | null;
  readonly phase: Phase;
  readonly dice: DiceView | null;
  readonly cube: CubeView;
  readonly match: MatchView;
  readonly clocks: readonly [ClockView, ClockView];
  readonly offer: Offer | null;
  /** The last play made in this game (shown as arrows), with its seat; null when none. */
  readonly lastPlay: { readonly seat: Seat; readonly moves: readonly Move[] } | null;
  readonly result: ResultView | null;
  /** A short message to show once (e.g. "Copper cannot move"), with an id to show it once. */
  readonly notice: { readonly id: number; readonly text: string } | null;
  readonly fairness: FairnessView | null;
  /** Live spectators (network phase), else 0. */
  readonly spectators: number;
  /** Waiting for the server to acknowledge the sent play (the board shows the old position). */
  readonly pending: boolean;
  /** Last event version seen (network phase), else 0. */
  readonly version: number;
  /** The resignation levels the seat on turn may offer now (default: all three). */
  readonly resignLevels?: readonly (1 | 2 | 3)[];
  /** A status line that replaces the one derived from the phase (e.g. while dice are committed). */
  readonly status?: string;
  /** Between games of a money session: the session may be stopped (GameActions.stop). */
  readonly canStop?: boolean;
  /** The next game starts by itself at this time (client ms), unless started sooner. */
  readonly nextGameAt?: number | null;
  /** Both seats play on this screen (hot seat): words name the players instead of "you". */
  readonly shared?: boolean;
  /** The seat drawn at the bottom whoever plays (a hot-seat board kept from one side). */
  readonly side?: Seat | null;
  /** A local game on pause: nothing happens until it resumes (no roll by itself either). */
  readonly paused?: boolean;
}

/** What the UI asks for; a driver (local or network) decides what happens. */
export interface GameActions {
  roll(): void;
  double(): void;
  take(): void;
  drop(): void;
  /** Send a complete legal play (an empty list when no die can be played). */
  play(moves: readonly Move[]): void;
  resign(level: 1 | 2 | 3): void;
  acceptResign(): void;
  rejectResign(): void;
  /** Start the next game (or a rematch after the match is over). */
  next(): void;
  /** Beaver the pending double (money sessions with beavers). */
  beaver?(): void;
  /** Stop a money session between games. */
  stop?(): void;
}

/** A driver: the current view, change notifications, and the actions. */
export interface GameSource extends GameActions {
  current(): GameView;
  subscribe(listener: (view: GameView) => void): () => void;
}

/** The seat that must act now, or null when nobody can (waiting, rolling, game over). */
export function actingSeat(view: GameView): Seat | null {
  if (view.phase === 'offer' && view.offer) return view.offer.by === 0 ? 1 : 0;
  if (view.phase === 'decide' || view.phase === 'moving') return view.turn;
  return null;
}

/** Whether the cube can be offered now by the seat on turn (engine/matchRules.ts). */
export function canDouble(view: GameView): boolean {
  return view.phase === 'decide' && view.turn !== null && view.cube.enabled && mayDouble(view.cube, view.turn);
}
