/**
 * A chain made for a re-commitment (docs/fairness.md, section 7): its index arithmetic against
 * the shared vectors, how the browser stores it, and live verification across it.
 */

import { describe, expect, it } from 'vitest';
import { OwnChain, type Seat, fromHex, loadChain, loadSecret, obtainSecret, secretKey, storeRecommitted, toHex } from '../src/fairdice';
import { LiveVerifier } from '../src/net/liveVerifier';
import { memoryStorage } from '../src/net/storage';

interface RecommitmentVector {
  match_id: string;
  game_no: number;
  seat: Seat;
  applies_from: number;
  length: number;
  new_secret: string;
  recommitment: string;
  old_commitment: string;
  seat0_commitment: string;
  rolls: { k: number; reveal0: string; reveal1: string; chain1: 'old' | 'new'; d1: number; d2: number }[];
}
// The shared vectors, where the protocol package is beside the client (as in sharedVectors).
const shared = Object.values(
  import.meta.glob<{ recommitment: RecommitmentVector }>('../../protocol/fairdice/vectors/*.json', { eager: true, import: 'default' }),
);
const vector = shared[0]?.recommitment;

describe('the re-committed chain, its storage and its verification', () => {
  it.skipIf(!vector)('serves rolls from k0 with the roll index, as the shared vectors say', async () => {
    const v = vector!;
    const ctx = { matchId: fromHex(v.match_id), gameNo: v.game_no, seat: v.seat };
    const chain = await OwnChain.create(ctx, fromHex(v.new_secret), v.length, v.applies_from);
    expect(chain.from).toBe(v.applies_from);
    // Published: s'[k0 − 1]; revealed for roll k ≥ k0: s'[k].
    expect(toHex(chain.commitment)).toBe(v.recommitment);
    for (const r of v.rolls.filter((r) => r.chain1 === 'new')) expect(toHex(chain.reveal(r.k))).toBe(r.reveal1);
    expect(() => chain.reveal(v.applies_from - 1)).toThrow(RangeError);
    await expect(OwnChain.create(ctx, fromHex(v.new_secret), 3, 4)).rejects.toThrow(RangeError);
  });

  it.skipIf(!vector)('a live verifier applies a re-commitment after the checks before it, even in a burst', async () => {
    const v = vector!;
    const verifier = new LiveVerifier(fromHex(v.match_id), v.game_no);
    verifier.commit(fromHex(v.seat0_commitment), fromHex(v.old_commitment));
    const verdicts: Promise<{ check: string }>[] = [];
    for (const r of v.rolls) {
      // As a replayed log delivers them: each event at once, the checks still running.
      if (r.k === v.applies_from) verifier.recommit(v.seat, fromHex(v.recommitment), v.applies_from);
      verdicts.push(verifier.check({ k: r.k, reveals: [fromHex(r.reveal0), fromHex(r.reveal1)], dice: [r.d1, r.d2] }));
    }
    expect((await Promise.all(verdicts)).map((x) => x.check)).toEqual(v.rolls.map(() => 'verified'));
  });

  it('stores the new secret with the roll it applies from in place of the lost one', () => {
    const storage = memoryStorage();
    const ctx = { matchId: fromHex('00112233445566778899aabbccddeeff'), gameNo: 2, seat: 1 as const };
    const first = obtainSecret(storage, ctx);
    expect(loadChain(storage, ctx)).toEqual({ secret: first.secret, from: 1, length: null, n: 0 });
    const secret = new Uint8Array(32).fill(9);
    expect(storeRecommitted(storage, ctx, { secret, from: 12, length: 1024, n: 2 })).toBe(true);
    expect(JSON.parse(storage.getItem(secretKey(ctx))!)).toEqual({ secret: toHex(secret), from: 12, length: 1024, n: 2 });
    expect(loadChain(storage, ctx)).toEqual({ secret, from: 12, length: 1024, n: 2 });
    // Not a commitment's secret: a new game's commit would not reuse it.
    expect(loadSecret(storage, ctx)).toBeNull();
    for (const bad of ['{"secret":"zz","from":1,"length":9,"n":1}', '{"secret":"' + '00'.repeat(32) + '","from":5,"length":4,"n":1}', '{', '[]']) {
      storage.setItem(secretKey(ctx), bad);
      expect(loadChain(storage, ctx)).toBeNull();
    }
    const refusing = { getItem: () => null, setItem: () => { throw new Error('quota'); }, removeItem: () => undefined };
    expect(storeRecommitted(refusing, ctx, { secret, from: 2, length: 16, n: 1 })).toBe(false);
  });
});
