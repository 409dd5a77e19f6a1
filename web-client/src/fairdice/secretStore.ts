/**
 * Keeps each chain's secret top s[N] in browser storage, keyed by match, game and seat, so a
 * reloaded tab rebuilds the same chain (its commitment is already with the server).
 */

import { fromHex, toHex } from './bytes';
import { type ChainContext, SECRET_BYTES, newSecret } from './scheme';

/** The subset of the Web Storage API used here (localStorage, or a stand-in in tests). */
export interface SecretStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function secretKey(ctx: ChainContext): string {
  return `fairgammon.chain.${toHex(ctx.matchId)}.${ctx.gameNo}.${ctx.seat}`;
}

/** The stored secret of this chain, or null (never stored, unreadable or corrupt). */
export function loadSecret(storage: SecretStorage, ctx: ChainContext): Uint8Array | null {
  try {
    const hex = storage.getItem(secretKey(ctx));
    if (!hex || hex.length !== SECRET_BYTES * 2) return null;
    return fromHex(hex);
  } catch {
    return null;
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
