import { describe, expect, it } from 'vitest';
import fixture from './fixtures/fairdice-hashlib.json';
import {
  OwnChain,
  RollVerifier,
  buildChain,
  chainLink,
  constantTimeEqual,
  deriveDice,
  forgetSecret,
  loadSecret,
  obtainSecret,
  diceFromSeed,
  fromHex,
  newSecret,
  rollOffWinner,
  rollSeed,
  toHex,
  u32be,
  verifyLink,
} from '../src/fairdice';

const matchId = fromHex(fixture.match_id);
const gameNo = fixture.game_no;
const tops = fixture.tops.map(fromHex) as [Uint8Array, Uint8Array];
const ctx = (seat: 0 | 1) => ({ matchId, gameNo, seat });

describe('scheme v1 against Python hashlib values', () => {
  it('builds the same short chains', async () => {
    for (const seat of [0, 1] as const) {
      const chain = await buildChain(ctx(seat), tops[seat], fixture.short_chain_length);
      expect(chain.map(toHex)).toEqual(fixture.short_chains[seat]);
    }
  });

  it('makes the same 1024-link commitments', async () => {
    for (const seat of [0, 1] as const) {
      const own = await OwnChain.create(ctx(seat), tops[seat]);
      expect(own.length).toBe(1024);
      expect(toHex(own.commitment)).toBe(fixture.commitments_1024[seat]);
      expect(toHex(await chainLink(ctx(seat), 1024, own.reveal(1024)))).toBe(toHex(own.reveal(1023)));
    }
  });

  it('derives the same seeds and dice', async () => {
    const chains = fixture.short_chains.map((c) => c.map(fromHex));
    for (const roll of fixture.rolls) {
      const seed = await rollSeed(matchId, gameNo, roll.k, chains[0]![roll.k]!, chains[1]![roll.k]!);
      expect(toHex(seed)).toBe(roll.seed);
      expect(await diceFromSeed(seed)).toEqual(roll.dice);
    }
  });

  it('rejects bytes >= 252', async () => {
    const r = fixture.rejecting;
    const [s0, s1] = r.reveals.map(fromHex) as [Uint8Array, Uint8Array];
    expect(toHex(await rollSeed(matchId, gameNo, r.k, s0, s1))).toBe(r.seed);
    expect(fromHex(r.blocks[0]!)[0]).toBeGreaterThanOrEqual(252);
    expect(await deriveDice(matchId, gameNo, r.k, s0, s1)).toEqual(r.dice);
  });

  it('reports a roll-off tie', async () => {
    const t = fixture.tie;
    const [s0, s1] = t.reveals.map(fromHex) as [Uint8Array, Uint8Array];
    const [d1, d2] = await deriveDice(matchId, gameNo, t.k, s0, s1);
    expect([d1, d2]).toEqual(t.dice);
    expect(rollOffWinner(d1, d2)).toBeNull();
    expect(rollOffWinner(6, 1)).toBe(0);
    expect(rollOffWinner(2, 5)).toBe(1);
  });
});

describe('links and verification', () => {
  it('verifies a reveal against the previous link only', async () => {
    const chain = fixture.short_chains[0]!.map(fromHex);
    expect(await verifyLink(ctx(0), 3, chain[3]!, chain[2]!)).toBe(true);
    expect(await verifyLink(ctx(0), 4, chain[3]!, chain[2]!)).toBe(false); // wrong index
    expect(await verifyLink(ctx(1), 3, chain[3]!, chain[2]!)).toBe(false); // wrong seat
    expect(await verifyLink({ ...ctx(0), gameNo: gameNo + 1 }, 3, chain[3]!, chain[2]!)).toBe(false);
    const flipped = chain[3]!.slice();
    flipped[31]! ^= 1;
    expect(await verifyLink(ctx(0), 3, flipped, chain[2]!)).toBe(false);
    expect(await verifyLink(ctx(0), 3, chain[3]!.slice(0, 31), chain[2]!)).toBe(false);
  });

  it('follows a game of rolls and raises the alarm on a bad reveal or wrong dice', async () => {
    const chains = fixture.short_chains.map((c) => c.map(fromHex));
    const commitments: [Uint8Array, Uint8Array] = [chains[0]![0]!, chains[1]![0]!];
    const verifier = new RollVerifier(matchId, gameNo, commitments);
    for (const roll of fixture.rolls.slice(0, 3)) {
      const reveals: [Uint8Array, Uint8Array] = [chains[0]![roll.k]!, chains[1]![roll.k]!];
      expect(await verifier.check(roll.k, reveals, roll.dice as [number, number])).toEqual({
        ok: true,
        dice: roll.dice,
      });
    }
    const roll4 = fixture.rolls[3]!;
    const good: [Uint8Array, Uint8Array] = [chains[0]![4]!, chains[1]![4]!];
    const wrongDice: [number, number] = [roll4.dice[0]! % 6 + 1, roll4.dice[1]!];
    expect(await verifier.check(4, good, wrongDice)).toEqual({ ok: false, reason: 'dice_mismatch' });
    expect(await verifier.check(4, [chains[0]![5]!, good[1]], [1, 1])).toEqual({
      ok: false,
      reason: 'bad_link_seat0',
    });
    expect(await verifier.check(4, [good[0], newSecret()], [1, 1])).toEqual({
      ok: false,
      reason: 'bad_link_seat1',
    });
    expect(await verifier.check(5, good, [1, 1])).toEqual({ ok: false, reason: 'out_of_order' });
    // Failures changed nothing: the honest roll 4 still verifies.
    expect((await verifier.check(4, good, roll4.dice as [number, number])).ok).toBe(true);
    expect(verifier.expected).toBe(5);
  });

  it('accepts a re-commitment for a lost secret', async () => {
    const chains = fixture.short_chains.map((c) => c.map(fromHex));
    const verifier = new RollVerifier(matchId, gameNo, [chains[0]![0]!, chains[1]![0]!]);
    const fresh = await buildChain(ctx(1), newSecret(), 8);
    // The fresh chain continues at the next roll index: its link k hashes to its link k-1.
    verifier.recommit(1, fresh[0]!);
    const dice = await deriveDice(matchId, gameNo, 1, chains[0]![1]!, fresh[1]!);
    expect((await verifier.check(1, [chains[0]![1]!, fresh[1]!], dice)).ok).toBe(true);
  });
});

describe('helpers', () => {
  it('encodes u32 big-endian and compares in constant time', () => {
    expect([...u32be(0x01020304)]).toEqual([1, 2, 3, 4]);
    expect(() => u32be(-1)).toThrow();
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2]))).toBe(true);
    expect(constantTimeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3]))).toBe(false);
    expect(constantTimeEqual(new Uint8Array([1]), new Uint8Array([1, 0]))).toBe(false);
    expect(toHex(fromHex('00ff10'))).toBe('00ff10');
  });

  it('draws distinct 32-byte secrets', () => {
    const a = newSecret();
    const b = newSecret();
    expect(a.length).toBe(32);
    expect(toHex(a)).not.toBe(toHex(b));
  });
});

describe('distribution', () => {
  it('derives fair faces and pairs (chi-square over 30000 seeded rolls)', async () => {
    const faces = new Array(6).fill(0);
    const pairs = new Map<string, number>();
    const n = 30000;
    const seed = new Uint8Array(32);
    for (let i = 0; i < n; i++) {
      seed.set(u32be(i));
      const [a, b] = await diceFromSeed(seed);
      faces[a - 1]++;
      faces[b - 1]++;
      const key = `${Math.max(a, b)}${Math.min(a, b)}`;
      pairs.set(key, (pairs.get(key) ?? 0) + 1);
    }
    const chi = (observed: number[], expected: number[]) =>
      observed.reduce((s, o, i) => s + (o - expected[i]!) ** 2 / expected[i]!, 0);
    // 5 degrees of freedom: p = 0.001 at 20.52; 20 degrees: p = 0.001 at 45.31.
    expect(faces.every((f) => f > 0)).toBe(true);
    expect(chi(faces, new Array(6).fill((2 * n) / 6))).toBeLessThan(20.52);
    const keys = [...pairs.keys()].sort();
    expect(keys.length).toBe(21);
    const expectedPairs = keys.map((k) => (k[0] === k[1] ? n / 36 : (2 * n) / 36));
    expect(chi(keys.map((k) => pairs.get(k)!), expectedPairs)).toBeLessThan(45.31);
  }, 60_000); // 30,000 WebCrypto digests: ~3 s alone, over 5 s when the suite shares 2 cores
});

describe('secret storage', () => {
  class MemoryStorage {
    readonly items = new Map<string, string>();
    getItem(key: string) {
      return this.items.get(key) ?? null;
    }
    setItem(key: string, value: string) {
      this.items.set(key, value);
    }
    removeItem(key: string) {
      this.items.delete(key);
    }
  }

  it('keeps one secret per match, game and seat so a reload rebuilds the same chain', async () => {
    const storage = new MemoryStorage();
    const first = obtainSecret(storage, ctx(0));
    expect(first.fresh).toBe(true);
    expect(first.stored).toBe(true);
    const again = obtainSecret(storage, ctx(0));
    expect(again.fresh).toBe(false);
    expect(toHex(again.secret)).toBe(toHex(first.secret));
    const a = await OwnChain.create(ctx(0), first.secret, 16);
    const b = await OwnChain.create(ctx(0), again.secret, 16);
    expect(toHex(b.commitment)).toBe(toHex(a.commitment));
    expect(toHex(obtainSecret(storage, ctx(1)).secret)).not.toBe(toHex(first.secret));
    expect(toHex(obtainSecret(storage, { ...ctx(0), gameNo: gameNo + 1 }).secret)).not.toBe(toHex(first.secret));
    forgetSecret(storage, ctx(0));
    expect(loadSecret(storage, ctx(0))).toBeNull();
  });

  it('reports a storage that refuses to keep the secret', () => {
    const refusing = {
      getItem: () => null,
      setItem: () => {
        throw new Error('quota');
      },
      removeItem: () => undefined,
    };
    const got = obtainSecret(refusing, ctx(0));
    expect(got.stored).toBe(false);
    expect(got.secret.length).toBe(32);
    const corrupt = { getItem: () => 'zz', setItem: () => undefined, removeItem: () => undefined };
    expect(loadSecret(corrupt, ctx(0))).toBeNull();
  });
});
