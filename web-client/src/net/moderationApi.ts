/**
 * Reports and moderation over HTTP (docs/moderation.md): any signed-in player reports a
 * player, a match or a chat line; a moderator (named by the operator) reads the queue, the
 * evidence and the chat, and mutes, suspends rating, bans and lifts, each with a reason kept
 * in the audit log.
 */

import { call } from './lobbyApi';

/** What a moderator may lay on an account, mildest first (server/players/moderation.py). */
export type SanctionKind = 'mute' | 'suspend' | 'ban';
export const SANCTION_KINDS: readonly SanctionKind[] = ['mute', 'suspend', 'ban'];

export interface ChatLineSeen {
  readonly room: 'players' | 'spectators';
  readonly n: number;
  readonly seat: number | null;
  readonly name: string;
  readonly account: boolean;
  readonly text: string;
  readonly at: number;
}

export interface Report {
  readonly id: number;
  readonly at: number;
  readonly reporter: string;
  readonly target: string;
  readonly reason: string;
  readonly match?: string;
  readonly link?: string;
  readonly chat?: { readonly room: string; readonly line: number; readonly context: readonly ChatLineSeen[] };
}

export interface Laid {
  readonly by: string;
  readonly at: number;
  readonly reason: string;
}

export type Sanctions = Partial<Record<SanctionKind, Laid>>;

export interface AuditEntry {
  readonly at: number;
  readonly moderator: string;
  readonly action: SanctionKind | 'lift' | 'dismiss';
  readonly target: string;
  /** A lift's sanction; 'flag' for an engine-assist flag cleared. */
  readonly sanction: SanctionKind | 'flag' | null;
  readonly reason: string;
  readonly report: number | null;
}

export interface Flag {
  readonly name: string;
  readonly at: number;
  readonly summary: string;
  readonly pr: number;
  readonly best_share: number;
  readonly decisions: number;
  readonly games: readonly { readonly match: string; readonly link: string; readonly pr: number; readonly decisions: number }[];
}

export interface Evidence {
  readonly name: string;
  readonly rating: number;
  readonly matches: number;
  readonly sanctions: Sanctions;
  readonly reports: readonly Report[];
  readonly recent: readonly { readonly match: string; readonly link: string; readonly opponent: string; readonly won: boolean | null; readonly rated: boolean; readonly at: number }[];
  readonly audit: readonly AuditEntry[];
  /** The engine-assist detector's verdict on the latest analysed rated games, now. */
  readonly assist: Flag & { readonly flagged: boolean };
}

/** What a report names besides the player: the match, and one of its chat lines. */
export interface ReportTarget {
  readonly name: string;
  readonly match?: string;
  readonly room?: 'players' | 'spectators';
  readonly line?: number;
}

export const fileReport = (target: ReportTarget, reason: string) => call<{ id: number }>('POST', '/api/reports', { ...target, reason });
export const getQueue = () => call<{ reports: Report[]; flags: Flag[] }>('GET', '/api/moderation/reports');
export const getEvidence = (name: string) => call<Evidence>('GET', `/api/moderation/players/${encodeURIComponent(name)}`);
export const getChat = (match: string) => call<{ match: string; link: string; players: ChatLineSeen[]; spectators: ChatLineSeen[] }>('GET', `/api/moderation/chat/${encodeURIComponent(match)}`);
export const getAudit = (name?: string) => call<{ entries: AuditEntry[] }>('GET', `/api/moderation/audit${name ? `?name=${encodeURIComponent(name)}` : ''}`);
/** Lay a sanction, or lift one (`action` 'lift' with `sanction`). */
export const moderate = (name: string, action: SanctionKind | 'lift', reason: string, extra: { sanction?: SanctionKind; report?: number } = {}) =>
  call<{ name: string; sanctions: Sanctions }>('POST', '/api/moderation/actions', { name, action, reason, ...extra });
export const dismissReport = (id: number, reason: string) => call<{ id: number }>('POST', `/api/moderation/reports/${id}/dismiss`, { reason });
/** An engine-assist flag reviewed: it leaves the queue (audited). */
export const clearFlag = (name: string, reason: string) => call<{ name: string; cleared: true }>('DELETE', `/api/moderation/flags/${encodeURIComponent(name)}`, { reason });
