/**
 * What this browser keeps per match (localStorage), so that a reload returns to the same seat:
 *
 *   fairgammon.seat.<match>            {seat, token, invite?, watch?, rematchOf?}  the seat token (never in a URL)
 *   fairgammon.seq.<match>.<seat>      the last sequence number used by this seat
 *   fairgammon.chain.<match>.<game>.<seat>  the dice chain's secret, or after a re-commitment the
 *                                      new chain's, with the roll it serves from (secretStore.ts)
 *   fairgammon.name                    the display name
 *   fairgammon.options                 the options of the last match created (lobby, rematch)
 *
 * Every access tolerates blocked or corrupt storage (private windows): values then last for
 * the page only.
 */

import type { SecretStorage } from '../fairdice';
import type { Seat } from './protocol';

export interface SeatRecord {
  readonly seat: Seat;
  readonly token: string;
  /** The invite link (creator only), shown until the opponent joins. */
  readonly invite?: string;
  /** The spectator link as the server names it (creator only). */
  readonly watch?: string;
  /** Set for a rematch: the finished match it follows (its open seat is kept for the opponent). */
  readonly rematchOf?: string;
}

import type { VariantName } from '../engine/variants';

export interface CreateOptions {
  mode: 'single_game' | 'match' | 'money';
  length: number;
  clock: number;
  /** Time reserve per player for the match, in seconds (0: none). */
  reserve: number;
  private: boolean;
  jacoby: boolean;
  beavers: boolean;
  /** What is played (absent in options saved before variants: backgammon). */
  variant?: VariantName;
}

/** localStorage, or a page-lifetime stand-in when it is unavailable. */
export function browserStorage(): SecretStorage {
  try {
    const probe = 'fairgammon.probe';
    localStorage.setItem(probe, '1');
    localStorage.removeItem(probe);
    return localStorage;
  } catch {
    return memoryStorage();
  }
}

export function memoryStorage(): SecretStorage & { readonly data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getItem: (k) => data.get(k) ?? null,
    setItem: (k, v) => void data.set(k, v),
    removeItem: (k) => void data.delete(k),
  };
}

function read<T>(storage: SecretStorage, key: string): T | null {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function write(storage: SecretStorage, key: string, value: unknown): void {
  try {
    storage.setItem(key, JSON.stringify(value));
  } catch {
    // storage full or blocked: the value lasts for this page only
  }
}

export function loadSeat(storage: SecretStorage, match: string): SeatRecord | null {
  const r = read<SeatRecord>(storage, `fairgammon.seat.${match}`);
  return r && (r.seat === 0 || r.seat === 1) && typeof r.token === 'string' ? r : null;
}

export function saveSeat(storage: SecretStorage, match: string, record: SeatRecord): void {
  write(storage, `fairgammon.seat.${match}`, record);
}

/** The seat in a `#seat=<seat>.<token>` fragment, or null. */
export function parseSeatLink(hash: string): SeatRecord | null {
  const m = /^#seat=([01])\.([A-Za-z0-9_-]{16,128})$/.exec(hash);
  return m ? { seat: m[1] === '0' ? 0 : 1, token: m[2]! } : null;
}

/** The link that opens `record`'s seat on another device (its token rides in the fragment). */
export function seatLink(origin: string, matchId: string, record: SeatRecord): string {
  return `${origin}/m/${matchId}#seat=${record.seat}.${record.token}`;
}

export function loadSeq(storage: SecretStorage, match: string, seat: Seat): number {
  const n = read<number>(storage, `fairgammon.seq.${match}.${seat}`);
  return Number.isSafeInteger(n) && n! > 0 ? n! : 0;
}

export function saveSeq(storage: SecretStorage, match: string, seat: Seat, seq: number): void {
  write(storage, `fairgammon.seq.${match}.${seat}`, seq);
}

export function loadName(storage: SecretStorage): string {
  const n = read<string>(storage, 'fairgammon.name');
  return typeof n === 'string' ? n : '';
}

/** The offer of rematch `match` is done with here (declined, or the rematch has ended): it
 * stays hidden, also after a reload. */
export function dismissRematch(storage: SecretStorage, match: string): void {
  write(storage, `fairgammon.rematch-dismissed.${match}`, true);
}

export function rematchDismissed(storage: SecretStorage, match: string): boolean {
  return read<boolean>(storage, `fairgammon.rematch-dismissed.${match}`) === true;
}

export function saveName(storage: SecretStorage, name: string): void {
  write(storage, 'fairgammon.name', name);
}

export const DEFAULT_OPTIONS: CreateOptions = {
  mode: 'match',
  length: 5,
  clock: 30,
  reserve: 0,
  private: false,
  jacoby: true,
  beavers: false,
};

export function loadOptions(storage: SecretStorage): CreateOptions {
  return { ...DEFAULT_OPTIONS, ...(read<Partial<CreateOptions>>(storage, 'fairgammon.options') ?? {}) };
}

export function saveOptions(storage: SecretStorage, options: CreateOptions): void {
  write(storage, 'fairgammon.options', options);
}

/** The seats this browser holds (match and seat token), for the guests' trainer: every
 *  `fairgammon.seat.<match>` record, at most `limit` of them. */
export function heldSeats(storage: Storage, limit = 50): { match: string; token: string }[] {
  const out: { match: string; token: string }[] = [];
  try {
    for (let i = 0; i < storage.length && out.length < limit; i++) {
      const key = storage.key(i);
      if (!key?.startsWith('fairgammon.seat.')) continue;
      const match = key.slice('fairgammon.seat.'.length);
      const record = read<SeatRecord>(storage, key);
      if (/^[0-9a-f]{32}$/.test(match) && record && typeof record.token === 'string' && record.token) out.push({ match, token: record.token });
    }
  } catch {
    // blocked storage: no seats
  }
  return out;
}

/** The guests' trainer progress (`fairgammon.trainer`), as the server last answered it. */
export function loadTrainerProgress(storage: SecretStorage): unknown {
  return read<unknown>(storage, 'fairgammon.trainer');
}

export function saveTrainerProgress(storage: SecretStorage, progress: unknown): void {
  write(storage, 'fairgammon.trainer', progress);
}
