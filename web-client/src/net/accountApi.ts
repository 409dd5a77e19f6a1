/**
 * Accounts, profiles and the leaderboard over HTTP (docs/accounts.md). The session lives in an
 * HttpOnly cookie this code never sees: the browser sends it with every same-origin request.
 */

import { call } from './lobbyApi';

export interface AccountInfo {
  readonly username: string;
  readonly rating: number;
  readonly experience: number;
  readonly matches: number;
  /** A bot account: an outside engine, rated apart from people (docs/accounts.md, "Bot accounts"). */
  readonly bot?: boolean;
}

export interface HistoryEntry {
  readonly match: string;
  readonly at: number;
  readonly opponent: string;
  readonly opponent_account: boolean;
  /** The opponent is a bot account now (docs/accounts.md, "Bot accounts"). */
  readonly opponent_bot?: boolean;
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number;
  readonly score: readonly [number, number];
  readonly won: boolean | null;
  readonly rated: boolean;
  readonly change: number | null;
  readonly private: boolean;
  readonly link: string;
  /** The match's variant (absent in lines recorded before the variants: backgammon). */
  readonly variant?: string;
}

export interface ChartPoint {
  readonly at: number;
  readonly rating: number;
  readonly match: string | null;
}

export interface Profile extends AccountInfo {
  readonly wins: number;
  readonly created: number;
  readonly chart: readonly ChartPoint[];
  readonly history: readonly HistoryEntry[];
  readonly page: number;
  readonly pages: number;
  readonly total: number;
  readonly own: boolean;
  /** The tournaments the player finished, the newest first (docs/accounts.md). */
  readonly tournaments?: readonly TournamentResult[];
  /** Rating and experience in each variant but backgammon played rated (docs/accounts.md). */
  readonly variants?: Readonly<Record<string, { readonly rating: number; readonly experience: number }>>;
}

export interface TournamentResult {
  readonly tournament: string;
  readonly name: string;
  readonly kind: string;
  readonly rank: number;
  readonly players: number;
  readonly points: number;
  readonly won: number;
  readonly played: number;
  readonly winner: boolean;
  readonly end: string;
}

export interface Leader extends AccountInfo {
  readonly rank: number;
  readonly wins: number;
}

export const signUp = (username: string, password: string) => call<AccountInfo>('POST', '/api/account/signup', { username, password });
export const logIn = (username: string, password: string) => call<AccountInfo>('POST', '/api/account/login', { username, password });
export const logOut = () => call<{ signed_in: false }>('POST', '/api/account/logout', {});
export const deleteAccount = () => call<{ deleted: string }>('DELETE', '/api/account');

/** The signed-in account, or null when signed out (or the server cannot tell). */
export async function whoAmI(): Promise<AccountInfo | null> {
  try {
    const me = await call<AccountInfo & { signed_in: boolean }>('GET', '/api/account');
    return me.signed_in ? me : null;
  } catch {
    return null;
  }
}

export const getProfile = (name: string, page = 1) => call<Profile>('GET', `/api/players/${encodeURIComponent(name)}?page=${page}`);
export const getLeaderboard = (pool: 'humans' | 'bots' = 'humans') =>
  call<{ min_experience: number; pool: string; players: Leader[] }>('GET', `/api/leaderboard?pool=${pool}`);

/** One line of a Top Gamer board (docs/accounts.md, "Top Gamer"). */
export interface TopGamer {
  readonly rank: number;
  readonly username: string;
  readonly score: number;
  readonly rating_change: number;
  readonly tournament_points: number;
  readonly matches: number;
}

export const getTopGamers = (period: 'week' | 'month') =>
  call<{ period: string; kind: string; players: TopGamer[] }>('GET', `/api/top?period=${period}`);
