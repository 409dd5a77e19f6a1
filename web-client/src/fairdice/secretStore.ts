/**
 * Keeps each chain's secret top s[N] in browser storage, keyed by match, game and seat, so a
 * reloaded tab rebuilds the same chain (its commitment is already with the server).
 *
 * The value under the key is the chain this browser reveals from in that game:
 * - the chain committed at the start of the game: the secret as 64 hex digits;
 * - a chain re-committed after the secret was lost (docs/fairness.md, section 7) replaces it:
 *   `{"secret": hex, "from": k0, "length": N, "n": count}` — the first roll it serves, its
 *   length (its published link s'[k0 − 1] depends on it) and the seat's re-commitment count
 *   once it is applied (1, 2 or 3), which tells after a snapshot whether it is still current.
 */

import { fromHex, toHex } from './bytes';
import { type ChainContext, SECRET_BYTES, newSecret } from './scheme';

/** The subset of the Web Storage API used here (localStorage, or a stand-in in tests). */
export interface SecretStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

/** A stored chain: its secret, and for a re-committed one where it starts. */
export interface StoredChain {
  readonly secret: Uint8Array;
  /** The first roll index the chain serves: 1 for the game's commitment, k0 after a re-commit. */
  readonly from: number;
  /** Its length N (null: the default length the commitment was made with). */
  readonly length: number | null;
  /** The seat's re-commitment count with this chain applied (0 for the game's commitment). */
  readonly n: number;
}

const HEX_SECRET = new RegExp(`^[0-9a-f]{${SECRET_BYTES * 2}}$`, 'i');

export function secretKey(ctx: ChainContext): string {
  return `fairgammon.chain.${toHex(ctx.matchId)}.${ctx.gameNo}.${ctx.seat}`;
}

/** The stored secret of the game's committed chain, or null (none, re-committed, corrupt). */
export function loadSecret(storage: SecretStorage, ctx: ChainContext): Uint8Array | null {
  const stored = loadChain(storage, ctx);
  return stored && stored.n === 0 ? stored.secret : null;
}

/** The chain stored for this match, game and seat, or null (never stored, unreadable, corrupt). */
export function loadChain(storage: SecretStorage, ctx: ChainContext): StoredChain | null {
  let raw: string | null;
  try {
    raw = storage.getItem(secretKey(ctx));
  } catch {
    return null;
  }
  if (!raw) return null;
  if (HEX_SECRET.test(raw)) return { secret: fromHex(raw), from: 1, length: null, n: 0 };
  try {
    const r = JSON.parse(raw) as Record<string, unknown>;
    const int = (x: unknown, min: number, max: number) => Number.isSafeInteger(x) && (x as number) >= min && (x as number) <= max;
    if (typeof r.secret !== 'string' || !HEX_SECRET.test(r.secret)) return null;
    if (!int(r.from, 1, 2 ** 32 - 1) || !int(r.length, r.from as number, 2 ** 32 - 1) || !int(r.n, 1, 255)) return null;
    return { secret: fromHex(r.secret), from: r.from as number, length: r.length as number, n: r.n as number };
  } catch {
    return null;
  }
}

/**
 * Store a re-committed chain in place of the one before (which is of no more use: its secret
 * was lost, or it is not the one the seat's reveals must follow). False when storage refused.
 */
export function storeRecommitted(
  storage: SecretStorage,
  ctx: ChainContext,
  chain: { readonly secret: Uint8Array; readonly from: number; readonly length: number; readonly n: number },
): boolean {
  const value = JSON.stringify({ secret: toHex(chain.secret), from: chain.from, length: chain.length, n: chain.n });
  try {
    storage.setItem(secretKey(ctx), value);
    return storage.getItem(secretKey(ctx)) === value;
  } catch {
    return false;
  }
}

/**
 * The stored secret, or a fresh one that is stored first. `stored` is false when storage
 * refused it: the caller should warn that a reload will need a re-commitment.
 */
export function obtainSecret(storage: SecretStorage, ctx: ChainContext): { secret: Uint8Array; stored: boolean; fresh: boolean } {
  const known = loadSecret(storage, ctx);
  if (known) return { secret: known, stored: true, fresh: false };
  const secret = newSecret();
  try {
    storage.setItem(secretKey(ctx), toHex(secret));
    return { secret, stored: loadSecret(storage, ctx) !== null, fresh: true };
  } catch {
    return { secret, stored: false, fresh: true };
  }
}

/** Forget a finished game's secret (its transcript is public by then). */
export function forgetSecret(storage: SecretStorage, ctx: ChainContext): void {
  try {
    storage.removeItem(secretKey(ctx));
  } catch {
    // storage unavailable: nothing to forget
  }
}
