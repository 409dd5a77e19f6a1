/** The server's record of a game (`/api/matches/<id>/games/<n>/record.json`, server/web/records.py). */

import type { Seat } from './protocol';
import type { GameVariant } from '../engine/variants';

export interface RecordTurnDoc {
  readonly seat: Seat;
  readonly action: 'move' | 'pass' | 'double' | 'take' | 'beaver' | 'drop' | 'resign' | 'accept' | 'reject' | 'forfeit';
  readonly dice: readonly [number, number] | null;
  readonly text: string;
  readonly moves: readonly (readonly [number, number])[];
  /** gnubg Position ID after the action, seen by `seat`. */
  readonly position: string;
  /** The cube after the action. */
  readonly cube: number;
  readonly owner: Seat | null;
  /** The decision this action answers, as the analysis board sets it up (plays, passes and
   * cube actions; null for the rest, and in every variant but backgammon). */
  readonly board?: { readonly position_id: string; readonly match_id: string } | null;
  /** Plakoto: the pinned checkers after the action, [the turn's seat's, the other's]. */
  readonly pinned?: readonly [number, number];
}

export interface GameRecordDoc {
  readonly match: string;
  readonly game: number;
  /** The numbers of all games of the match so far. */
  readonly games: readonly number[];
  /** The log version the record was read at. */
  readonly v: number;
  readonly names: readonly [string, string];
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number | null;
  /** The score before the game. */
  readonly score: readonly [number, number];
  readonly crawford: boolean;
  /** This game's variant (absent before protocol version 5: backgammon). */
  readonly variant?: GameVariant;
  readonly start: string;
  readonly turns: readonly RecordTurnDoc[];
  readonly result: {
    /** Null: a drawn plakoto game (both mothers pinned). */
    readonly winner: Seat | null;
    readonly points: number;
    readonly result: 'single' | 'gammon' | 'backgammon' | null;
    readonly reason: 'bear_off' | 'drop' | 'resign' | 'forfeit' | 'mother' | 'mothers';
    readonly score: readonly [number, number] | null;
  } | null;
}

export const recordPath = (match: string, game: number): string => `/api/matches/${match}/games/${game}/record.json`;

/** A game's record.json, from its path (a match's game: `recordPath`; an import's game). */
export async function fetchGameRecord(path: string): Promise<GameRecordDoc> {
  const response = await fetch(path, { cache: 'no-store' });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { message?: string };
    throw new Error(body.message ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as GameRecordDoc;
}
