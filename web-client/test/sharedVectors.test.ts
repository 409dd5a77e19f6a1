import { describe, expect, it } from 'vitest';
import fixture from './fixtures/fairdice-hashlib.json';
import { type SharedVectors, checkShared } from './sharedVectorsCheck';

// The shared vectors of the Python implementation, wherever the protocol package has them.
const shared = import.meta.glob<SharedVectors>('../../protocol/fairdice/vectors/*.json', {
  eager: true,
  import: 'default',
});

/** The local hashlib fixture, restated in the shared format (so the checker itself is tested). */
function fixtureAsShared(): SharedVectors {
  const ctx = { match_id: fixture.match_id, game_no: fixture.game_no };
  const chains = fixture.short_chains;
  return {
    chains: {
      cases: ([0, 1] as const).map((seat) => ({
        ...ctx,
        seat,
        secret: fixture.tops[seat]!,
        length: fixture.short_chain_length,
        links: chains[seat]!.map((link, i) => ({ i, link })),
      })),
    },
    rolls: {
      cases: fixture.rolls.map((r) => ({
        ...ctx,
        k: r.k,
        reveal0: chains[0]![r.k]!,
        reveal1: chains[1]![r.k]!,
        seed: r.seed,
        blocks: [r.first_block],
        d1: r.dice[0]!,
        d2: r.dice[1]!,
      })),
    },
    sampler: { cases: [{ blocks: fixture.rejecting.blocks, d1: fixture.rejecting.dice[0]!, d2: fixture.rejecting.dice[1]! }] },
    recommitment: undefined,
  };
}

describe('fair dice against vectors in the shared format', () => {
  it('agrees with the local hashlib fixture restated in that format', async () => {
    const { failures, counts } = await checkShared(fixtureAsShared());
    expect(failures).toEqual([]);
    expect(counts).toMatchObject({ chains: 2, rolls: 8, sampler: 1 });
  });

  it('catches a wrong value', async () => {
    const bad = fixtureAsShared();
    bad.rolls!.cases[0]!.d1 = (bad.rolls!.cases[0]!.d1 % 6) + 1;
    const { failures } = await checkShared(bad);
    expect(failures).toEqual(['roll dice k=1: 4,6']);
  });

  for (const [path, vectors] of Object.entries(shared)) {
    it(`agrees with ${path.replace(/^(\.\.\/)+/, '')}`, async () => {
      const { failures, counts } = await checkShared(vectors);
      expect(failures).toEqual([]);
      expect(Object.keys(counts).length).toBeGreaterThanOrEqual(5);
    });
  }
});
