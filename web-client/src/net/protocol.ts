/**
 * The wire protocol (docs/protocol.md; its version `PROTOCOL_VERSION` is generated from
 * protocol/limits.py) as the browser speaks it: the server's frames as TypeScript types, a light
 * shape check of what arrives, and builders for every client frame with its keys in the
 * documented order (so a frame encodes to the same bytes as the Python codec's).
 */

import type { Seat } from '../engine/seat';
import { decodeFrame, encodeFrame } from './codec';
import { PROTOCOL_VERSION } from '../generated/catalog';

export { PROTOCOL_VERSION };

/** A day (ms): a match whose `move_time` is whole days, at least one, is a correspondence match. */
export const DAY_MS = 86_400_000;

import type { GameVariant, VariantName } from '../engine/variants';
export type { Seat };
export type Move = readonly [number, number];
export type ClockPhase = 'waiting' | 'commit' | 'rolloff' | 'decide' | 'reveal' | 'move' | 'take' | 'resign' | 'over';
export type SeatStatus = 'empty' | 'online' | 'reconnecting' | 'gone';

export interface Clock {
  readonly phase: ClockPhase;
  readonly seats: readonly Seat[];
  /** Server time (ms), null when nothing is due; a decide, move, take or resign deadline includes its seat's reserve. */
  readonly deadline: number | null;
  /** Each seat's time reserve left (ms) as this decision began (docs/protocol.md, "The time reserve"). */
  readonly reserves: readonly [number, number];
}

/** The decisions a player takes by hand: their deadline includes the seat's time reserve. */
export const RESERVE_PHASES: ReadonlySet<ClockPhase> = new Set(['decide', 'move', 'take', 'resign']);

// ---- event data (the `p` of an event frame, by kind) ------------------------------------------

export interface MatchCreated {
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number | null;
  readonly jacoby: boolean;
  readonly beavers: boolean;
  readonly move_time: number;
  /** Time reserve per player for the whole match (ms), 0 for none. */
  readonly reserve: number;
  /** Version 5: what the match is played under (absent before: backgammon). */
  readonly variant?: VariantName;
}
export interface GameOver {
  readonly game: number;
  /** Null: a drawn game (plakoto, both mothers pinned; version 5), with `result` null. */
  readonly winner: Seat | null;
  readonly points: number;
  readonly result: 'single' | 'gammon' | 'backgammon' | null;
  readonly reason: 'bear_off' | 'drop' | 'resign' | 'forfeit' | 'mother' | 'mothers';
  readonly score: readonly [number, number];
}
export interface MatchOver {
  readonly winner: Seat | null;
  readonly score: readonly [number, number];
  readonly reason: 'completed' | 'forfeit' | 'stopped' | 'abandoned' | 'cancelled' | 'declined';
}
/** After the match: `by` offered a rematch, the new match `match` (the other seat may take it). */
export interface RematchOffered {
  readonly by: Seat;
  readonly match: string;
}
export type ForfeitReason = 'timeout' | 'no_reveal' | 'invalid_reveal' | 'abandoned';

export interface EventKinds {
  match_created: MatchCreated;
  seated: { seat: Seat; name: string | null };
  commit_received: { game: number; seat: Seat };
  committed: { game: number; commitment0: Uint8Array; commitment1: Uint8Array };
  recommitted: { game: number; seat: Seat; commitment: Uint8Array; k: number };
  revealed: { game: number; k: number; seat: Seat };
  rolling: { game: number; k: number; seat: Seat };
  dice: {
    game: number;
    k: number;
    kind: 'rolloff' | 'turn';
    roller: Seat | null;
    reveal0: Uint8Array;
    reveal1: Uint8Array;
    d1: number;
    d2: number;
  };
  moved: { game: number; seat: Seat; turn: number; moves: Move[]; position_id: string };
  passed: { game: number; seat: Seat; turn: number };
  doubled: { game: number; seat: Seat; value: number };
  taken: { game: number; seat: Seat; value: number };
  beavered: { game: number; seat: Seat; value: number };
  dropped: { game: number; seat: Seat };
  resign_offered: { game: number; seat: Seat; level: 1 | 2 | 3 };
  resign_accepted: { game: number; seat: Seat };
  resign_rejected: { game: number; seat: Seat };
  /** `variant`: this game's (version 5; absent before: backgammon). */
  game_started: { game: number; crawford: boolean; score: readonly [number, number]; variant?: GameVariant };
  game_over: GameOver;
  match_over: MatchOver;
  forfeit: { game: number; seat: Seat; reason: ForfeitReason; evidence: Uint8Array | null };
  rematch_offered: RematchOffered;
  /** Correspondence: the next game's roll-off asks each seat for its reveal `k` (deposited ahead). */
  rolloff_ahead: { game: number; k: number };
  /** Correspondence: `seat`'s clock stands still until `until` (server time; null: its vacation ended). */
  vacation: { seat: Seat; until: number | null };
  /**
   * Version 4: the server process that served `seat` died while it owed the decision due; the
   * clock stood still `ms` and the decision is due that much later (the frame's `n`).
   */
  clock_credit: { seat: Seat; ms: number };
}
export type EventKind = keyof EventKinds;

/** An event frame: `{t: "event", v, k, p, n}`. */
export type EventFrame = {
  [K in EventKind]: { readonly t: 'event'; readonly v: number; readonly k: K; readonly p: EventKinds[K]; readonly n: Clock | null };
}[EventKind];

// ---- snapshot state ---------------------------------------------------------------------------

export interface GameStateWire {
  readonly game: number;
  readonly crawford: boolean;
  readonly phase: ClockPhase;
  readonly turn: number;
  readonly on_roll: Seat | null;
  readonly k: number;
  readonly dice: readonly [number, number] | null;
  readonly boards: readonly [readonly number[], readonly number[]];
  readonly cube: { readonly value: number; readonly owner: Seat | null };
  readonly double: { readonly seat: Seat; readonly value: number } | null;
  readonly resignation: { readonly seat: Seat; readonly level: 1 | 2 | 3 } | null;
  readonly commitments: readonly [Uint8Array | null, Uint8Array | null];
  readonly recommits: readonly [number, number];
  readonly clock: Clock | null;
  readonly result: GameOver | null;
  /** Each seat's latest link (index `k`): its reveal of roll k + 1 hashes to it. */
  readonly heads?: readonly [Uint8Array | null, Uint8Array | null];
  /** Version 5: this game's variant, and plakoto's pinned checkers (each seat's own points). */
  readonly variant?: GameVariant;
  readonly pinned?: readonly [number, number];
}
export interface MatchStateWire {
  readonly match: string;
  readonly settings: MatchCreated;
  readonly seats: readonly [{ name: string | null; status: SeatStatus }, { name: string | null; status: SeatStatus }];
  readonly score: readonly [number, number];
  readonly game: GameStateWire | null;
  readonly result: MatchOver | null;
  readonly rematch: RematchOffered | null;
}

// ---- server frames ----------------------------------------------------------------------------

export type ServerFrame =
  | EventFrame
  | { readonly t: 'welcome'; readonly p: { role: 'seat0' | 'seat1' | 'spectator'; match: string; v: number; server_time: number; seq: number | null } }
  | { readonly t: 'ack'; readonly p: { seq: number; v: number } }
  | { readonly t: 'reject'; readonly p: { seq: number | null; code: string; message: string } }
  | { readonly t: 'snapshot'; readonly p: { v: number; state: MatchStateWire } }
  | { readonly t: 'presence'; readonly p: { seat: Seat; status: 'online' | 'reconnecting' | 'gone'; deadline: number | null } }
  | { readonly t: 'watchers'; readonly p: { count: number } }
  | { readonly t: 'pong'; readonly p: { t: number; server_time: number } }
  | { readonly t: 'probe'; readonly p: { t: number } }
  | { readonly t: 'error'; readonly p: { code: string; message: string } }
  | { readonly t: 'chat'; readonly p: ChatLine }
  // The server cannot reach its store (clocks stopped while no server can) / can again.
  | { readonly t: 'degraded'; readonly p: { since: number } }
  | { readonly t: 'restored'; readonly p: { since: number } };


const SERVER_TYPES = new Set(['event', 'welcome', 'ack', 'reject', 'snapshot', 'presence', 'watchers', 'pong', 'probe', 'error', 'chat', 'degraded', 'restored']);

// ---- chat (docs/protocol.md, "Chat") ----------------------------------------------------------

export type ChatRoom = 'players' | 'spectators';

/** One line of a chat room: numbered per room from 1, without gaps. */
export interface ChatLine {
  readonly room: ChatRoom;
  readonly n: number;
  readonly seat: Seat | null;
  readonly name: string;
  readonly account: boolean;
  readonly text: string;
  readonly t: number;
}

export const MAX_CHAT_CHARS = 200;

export function chatSend(room: ChatRoom, text: string, name: string | null): Uint8Array {
  return encodeFrame({ t: 'chat_send', p: { room, text, name } });
}

export function chatSync(room: ChatRoom, after: number): Uint8Array {
  return encodeFrame({ t: 'chat_sync', p: { room, after } });
}

const isMap = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Uint8Array);

/**
 * A server frame, or null when the bytes are not one (not msgpack, not a map, an unknown type,
 * or an event without an integer version): the caller ignores it. The server is trusted for
 * the details of each payload; the envelope is checked so that a stray frame cannot derail
 * the version bookkeeping.
 */
export function parseServerFrame(bytes: Uint8Array): ServerFrame | null {
  let frame: unknown;
  try {
    frame = decodeFrame(bytes);
  } catch {
    return null;
  }
  if (!isMap(frame) || typeof frame.t !== 'string' || !SERVER_TYPES.has(frame.t) || !isMap(frame.p)) return null;
  if (frame.t === 'event') {
    if (!Number.isSafeInteger(frame.v) || typeof frame.k !== 'string') return null;
    if (frame.n !== null && !isMap(frame.n)) return null;
  }
  return frame as unknown as ServerFrame;
}

// ---- client frames ----------------------------------------------------------------------------

export type ActionType =
  | 'commit'
  | 'recommit'
  | 'roll'
  | 'reveal'
  | 'double'
  | 'take'
  | 'drop'
  | 'beaver'
  | 'move'
  | 'resign'
  | 'resign_reply'
  | 'leave'
  | 'stop';

/** An action without its sequence number (the session numbers it when sending). */
export interface Action {
  readonly t: ActionType;
  readonly p: Record<string, unknown>;
}

export function hello(match: string, token: string | null, lastV: number | null, name: string | null): Uint8Array {
  return encodeFrame({ t: 'hello', p: { proto: PROTOCOL_VERSION, match, token, last_v: lastV, name } });
}

export function ping(t: number): Uint8Array {
  return encodeFrame({ t: 'ping', p: { t } });
}

/** The answer to the server's `probe{t}` (it measures the round trip for the lag allowance). */
export function echo(t: number): Uint8Array {
  return encodeFrame({ t: 'echo', p: { t } });
}

export function resync(lastV: number): Uint8Array {
  return encodeFrame({ t: 'resync', p: { last_v: lastV } });
}

/** The frame of `action` with sequence number `seq`: `{t, s, p}`. */
export function actionFrame(action: Action, seq: number): Uint8Array {
  return encodeFrame({ t: action.t, s: seq, p: action.p });
}

// Payload keys in the documented order.
export const actions = {
  commit: (game: number, commitment: Uint8Array): Action => ({ t: 'commit', p: { game, commitment } }),
  recommit: (game: number, commitment: Uint8Array): Action => ({ t: 'recommit', p: { game, commitment } }),
  roll: (game: number, k: number, reveal: Uint8Array): Action => ({ t: 'roll', p: { game, k, reveal } }),
  reveal: (game: number, k: number, reveal: Uint8Array): Action => ({ t: 'reveal', p: { game, k, reveal } }),
  double: (game: number): Action => ({ t: 'double', p: { game } }),
  take: (game: number): Action => ({ t: 'take', p: { game } }),
  drop: (game: number): Action => ({ t: 'drop', p: { game } }),
  beaver: (game: number): Action => ({ t: 'beaver', p: { game } }),
  move: (game: number, turn: number, moves: readonly Move[]): Action => ({
    t: 'move',
    p: { game, turn, moves: moves.map(([from, to]) => [from, to]) },
  }),
  resign: (game: number, level: 1 | 2 | 3): Action => ({ t: 'resign', p: { game, level } }),
  resignReply: (game: number, accept: boolean): Action => ({ t: 'resign_reply', p: { game, accept } }),
  leave: (): Action => ({ t: 'leave', p: {} }),
  stop: (): Action => ({ t: 'stop', p: {} }),
};
