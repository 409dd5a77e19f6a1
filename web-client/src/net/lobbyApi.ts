/**
 * The lobby's HTTP API (JSON): create, join, list and look up matches; plus the paths of a
 * match's exports. Same origin as the page, so no configuration.
 */

import type { VariantName } from '../engine/variants';
import type { CreateOptions } from './storage';

export interface Created {
  readonly match: string;
  readonly seat: 0;
  readonly token: string;
  readonly page: string;
  readonly watch: string;
  readonly invite: string;
}

export interface Joined {
  readonly match: string;
  readonly seat: 1;
  readonly token: string;
}

/** A seat in a rematch: offered (seat 0), or the other player's offer accepted (seat 1). */
export interface Rematch {
  readonly match: string;
  readonly seat: 0 | 1;
  readonly token: string;
  readonly rematch_of: string;
  readonly offered_by: 0 | 1;
  readonly page: string;
  readonly watch: string;
}

export interface MatchSummary {
  readonly id: string;
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number;
  readonly clock: number;
  /** Time reserve per player for the match, in seconds (0: none). */
  readonly reserve: number;
  readonly names: readonly (string | null)[];
  readonly score: readonly number[];
  readonly phase: string;
  readonly private: boolean;
  readonly created: number;
  readonly winner: number | null;
  readonly rematch_of: string | null;
  readonly rematch: string | null;
  /** Listed and looked-up matches: whether it counts for the ratings (docs/accounts.md). */
  readonly rated?: boolean;
  /** The computer's level in a match against the computer (docs/bots.md), else null. */
  readonly bot?: string | null;
  /** A looked-up match: which seats are accounts (docs/accounts.md). */
  readonly accounts?: readonly [boolean, boolean];
  /** Which seats bot accounts hold (docs/accounts.md, "Bot accounts"; not the computer, `bot`). */
  readonly bot_accounts?: readonly [boolean, boolean];
  /** Days per decision of a correspondence match (docs/correspondence.md), 0 in real time. */
  readonly days?: number;
  /** What the match is played under (protocol version 5; absent from older servers: backgammon). */
  readonly variant?: VariantName;
}

export class LobbyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin', // the account cookie (docs/accounts.md)
    });
  } catch {
    throw new LobbyError(0, 'offline', 'The server cannot be reached. Check the connection and try again.');
  }
  let data: unknown = null;
  try {
    data = await response.json();
  } catch {
    // not JSON: reported below
  }
  if (!response.ok) {
    const err = (data ?? {}) as { error?: string; message?: string };
    throw new LobbyError(response.status, err.error ?? 'http', err.message ?? `HTTP ${response.status}`);
  }
  return data as T;
}

/** Create a match; `days` (a signed-in player's) makes it correspondence: days per decision
 * instead of the clock and reserve (docs/correspondence.md). */
export function createMatch(options: CreateOptions, name: string, rated = false, days = 0): Promise<Created> {
  const body: Record<string, unknown> = { mode: options.mode, private: options.private, name };
  if (days) body.days = days;
  else Object.assign(body, { clock: options.clock, reserve: options.reserve });
  if (rated) body.rated = true; // docs/accounts.md: a signed-in player's match to N points
  if (options.mode === 'match') body.length = options.length;
  if (options.mode === 'money') Object.assign(body, { jacoby: options.jacoby, beavers: options.beavers });
  if (options.variant && options.variant !== 'backgammon') body.variant = options.variant;
  return call<Created>('POST', '/api/matches', body);
}

export function joinMatch(match: string, name: string, invite: string | null): Promise<Joined> {
  return call<Joined>('POST', `/api/matches/${match}/join`, invite ? { name, invite } : { name });
}

/** Offer a rematch of finished match `match` with this seat's token (in the body, never the URL). */
export function offerRematch(match: string, token: string): Promise<Rematch> {
  return call<Rematch>('POST', `/api/matches/${match}/rematch`, { token });
}

/** Take the seat rematch `match` keeps for us, with our seat token of the finished match. */
export function acceptRematch(match: string, token: string): Promise<Joined & { watch: string }> {
  return call<Joined & { watch: string }>('POST', `/api/matches/${match}/join`, { rematch_token: token });
}

/** Decline rematch `match` (offered to us), with our seat token of the finished match. */
export function declineRematch(match: string, token: string): Promise<{ match: string; declined: boolean }> {
  return call<{ match: string; declined: boolean }>('POST', `/api/matches/${match}/decline`, { rematch_token: token });
}

export async function listMatches(status: 'open' | 'live'): Promise<MatchSummary[]> {
  return (await call<{ matches: MatchSummary[] }>('GET', `/api/matches?status=${status}`)).matches;
}

export function getMatch(match: string): Promise<MatchSummary> {
  return call<MatchSummary>('GET', `/api/matches/${match}`);
}

export const exportPaths = {
  gameTranscript: (match: string, game: number) => `/api/matches/${match}/games/${game}/transcript.json`,
  matchTranscript: (match: string) => `/api/matches/${match}/transcript.json`,
  mat: (match: string) => `/api/matches/${match}/match.mat`,
  verify: (match: string, game?: number) => `/verify?match=${match}${game ? `&game=${game}` : ''}`,
};
