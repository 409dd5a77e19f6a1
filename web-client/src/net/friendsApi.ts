/**
 * A signed-in player's life between matches over HTTP: friends, blocks and privacy, direct
 * challenges, notices, e-mail of notices (docs/friends.md), and the player's games, seats on
 * any device and vacations (docs/correspondence.md). Every call needs the session cookie.
 */

import type { PrivacyLevel } from '../generated/catalog';
import { call } from './lobbyApi';

/** Whom a privacy setting lets in (generated from server/players/friends.py). */
export type Audience = PrivacyLevel;

export interface Followed {
  readonly name: string;
  /** Each follows the other. */
  readonly mutual: boolean;
  /** null: the player does not show it to us. */
  readonly online: boolean | null;
  readonly playing: readonly { readonly match: string; readonly watch: string }[] | null;
  /** A `friend_playing` notice when they start a match. */
  readonly tell: boolean;
  /** A bot account (docs/accounts.md, "Bot accounts"): tagged BOT. */
  readonly bot?: boolean;
}

export interface Friends {
  readonly following: readonly Followed[];
  readonly blocked: readonly string[];
  readonly privacy: { readonly show: Audience; readonly challenges: Audience };
}

const name = (n: string) => encodeURIComponent(n);

export const getFriends = () => call<Friends>('GET', '/api/my/friends');
/** Follow `n`; `tell`: hear when they start a match (unchanged when absent). */
export const follow = (n: string, tell?: boolean) => call<Friends>('POST', '/api/my/friends', tell === undefined ? { name: n } : { name: n, tell });
export const unfollow = (n: string) => call<Friends>('DELETE', `/api/my/friends/${name(n)}`);
export const block = (n: string) => call<Friends>('POST', '/api/my/blocks', { name: n });
export const unblock = (n: string) => call<Friends>('DELETE', `/api/my/blocks/${name(n)}`);
export const setPrivacy = (change: { show?: Audience; challenges?: Audience }) => call<Friends>('POST', '/api/my/privacy', change);

export interface Challenge {
  readonly match: string;
  readonly from: string;
  readonly to: string;
  /** The other player (the sender of one received, the receiver of one sent) is a bot account. */
  readonly bot?: boolean;
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number;
  /** Days per decision (a correspondence match), 0 in real time. */
  readonly days: number;
  readonly clock: number;
  readonly created: number;
  readonly page: string;
}

export const getChallenges = () => call<{ received: Challenge[]; sent: Challenge[] }>('GET', '/api/my/challenges');
export const challenge = (to: string, match: string, invite: string) => call<{ match: string; to: string }>('POST', '/api/challenges', { name: to, match, invite });
export const acceptChallenge = (match: string) => call<{ match: string; seat: 1; token: string; page: string }>('POST', `/api/challenges/${match}/accept`, {});
export const declineChallenge = (match: string) => call<{ match: string; declined: true }>('POST', `/api/challenges/${match}/decline`, {});

/** One of the notice kinds of docs/friends.md ("Notifications"). */
export interface Notice {
  readonly id: number;
  readonly kind: string;
  readonly at: number;
  /** Plain text: shown as text, never markup. */
  readonly text: string;
  readonly page: string;
  readonly data: Record<string, unknown>;
  readonly read?: boolean;
}

export interface NoticeList {
  readonly notices: readonly Notice[];
  readonly unread: number;
}

export const getNotices = () => call<NoticeList>('GET', '/api/my/notices');
export const markRead = (upto?: number) => call<NoticeList>('POST', '/api/my/notices/read', upto === undefined ? {} : { upto });

export interface EmailSettings {
  readonly address: string | null;
  readonly on: boolean;
  /** The server has an SMTP server to send with. */
  readonly available: boolean;
}

export const getEmail = () => call<EmailSettings>('GET', '/api/my/email');
export const setEmail = (change: { address?: string; on?: boolean }) => call<EmailSettings>('POST', '/api/my/email', change);

export interface MyGame {
  readonly match: string;
  readonly seat: 0 | 1;
  readonly opponent: string | null;
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number;
  /** Mine first. */
  readonly score: readonly [number, number];
  readonly days: number;
  readonly clock: number;
  readonly phase: string;
  readonly your_turn: boolean;
  readonly decision: string | null;
  readonly deadline: number | null;
  readonly time_left: number | null;
  readonly private: boolean;
  readonly page: string;
}

export interface MyGames {
  readonly games: readonly MyGame[];
  readonly count: number;
  readonly correspondence: number;
  readonly limit: number;
  readonly your_turn: number;
  readonly server_time: number;
}

export const getMyGames = () => call<MyGames>('GET', '/api/my/games');
/** The account's seat token of a match it plays, on any device. */
export const seatOf = (match: string) => call<{ match: string; seat: 0 | 1; token: string; page: string }>('POST', `/api/matches/${match}/seat`, {});

export interface Vacation {
  readonly on: boolean;
  readonly until: number | null;
  readonly days_used: number;
  readonly days_left: number;
  readonly allowance: number;
}

export const getVacation = () => call<Vacation>('GET', '/api/my/vacation');
export const startVacation = (days: number) => call<Vacation>('POST', '/api/my/vacation', { days });
export const endVacation = () => call<Vacation>('DELETE', '/api/my/vacation');
