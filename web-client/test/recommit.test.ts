/**
 * A seat whose browser lost its dice secret (opened on another device, storage cleared)
 * re-commits a fresh chain between rolls and plays on (docs/fairness.md, section 7), against
 * the scripted dice server of test/diceServer.ts, whose checks are the real server's.
 */

import { describe, expect, it } from 'vitest';
import { OwnChain, type Seat, chainLink, fromHex, loadChain, secretKey, toHex } from '../src/fairdice';
import { verifyTranscript } from '../src/fairdice/transcript';
import { MatchSession } from '../src/net/session';
import { memoryStorage } from '../src/net/storage';
import { DiceServer } from './diceServer';
import { FakeEnv, settle } from './fakeServer';

const MATCH = '00112233445566778899aabbccddeeff';
const M = fromHex(MATCH);
const LENGTH = 32;
const NEW_CHAIN = 'New dice chain committed for this device';

type Storage = ReturnType<typeof memoryStorage>;

/** A browser on one seat: its own clock, sockets and storage. */
function browser(server: DiceServer, seat: Seat, storage: Storage = memoryStorage(), chainLength = LENGTH) {
  const env = new FakeEnv();
  const s = new MatchSession({
    matchId: MATCH,
    seat: { seat, token: `token-${seat}` },
    name: seat === 0 ? 'Ann' : 'Bob',
    url: 'ws://test/ws',
    env,
    storage,
    chainLength,
  });
  const notices: string[] = [];
  s.subscribe(() => {
    if (s.notice && notices.at(-1) !== s.notice.text) notices.push(s.notice.text);
  });
  s.start();
  server.attach(env.last);
  return { s, env, storage, notices };
}

type Browser = ReturnType<typeof browser>;

/** Let the server and the browsers work; the browsers play their turns (no checker moves). */
async function run(server: DiceServer, players: Browser[], until: () => boolean, rounds = 300): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await settle(1);
    await server.idle();
    if (until()) return;
    for (const { s } of players) {
      if (s.link === 'online' && s.seat !== null && s.tracker.owes(s.seat) === 'move' && !s.pendingMove) void s.move([]);
    }
  }
  throw new Error(`not reached: server at roll ${server.k}, phase ${server.phase}, clock ${JSON.stringify(server.clock)}`);
}

const sent = (server: DiceServer, seat: Seat, t: string) => server.received.filter((a) => a.seat === seat && a.t === t);
const bobToMove = (server: DiceServer) => server.phase === 'play' && server.clock.phase === 'move' && server.onRoll === 1;

/** A game under way with Bob to move after at least `rolls` rolls. */
async function underway(rolls = 3) {
  const server = new DiceServer(new FakeEnv(), MATCH);
  const ann = browser(server, 0);
  const bob = browser(server, 1);
  await run(server, [ann, bob], () => server.k > rolls && bobToMove(server));
  return { server, ann, bob };
}

/** Each of `seat`'s reveals from roll `from` on hashes, with its roll index, to the link before. */
async function checkLinks(server: DiceServer, seat: Seat, from: number, head: Uint8Array): Promise<number> {
  const rolls = server.log.filter((e) => e.k === 'dice' && (e.p.k as number) >= from);
  let previous = head;
  for (const e of rolls) {
    const reveal = e.p[`reveal${seat}`] as Uint8Array;
    expect(toHex(await chainLink({ matchId: M, gameNo: 1, seat }, e.p.k as number, reveal))).toBe(toHex(previous));
    previous = reveal;
  }
  return rolls.length;
}

describe('a seat that lost its dice secret re-commits between rolls', () => {
  it('re-commits once on a new device, reveals from the new chain at the roll indexes, and every roll verifies', async () => {
    const { server, ann, bob } = await underway(3);
    const k0 = server.k;
    // Bob opens his seat on another device (no storage): the old page is replaced.
    const before = server.received.length;
    const phone = browser(server, 1);
    await run(server, [], () => phone.s.caughtUp);
    expect(bob.s.link).toBe('closed');
    // He plays at once: the play waits for the re-commitment (after it, Ann rolls and the
    // phone must reveal).
    const play = phone.s.move([]);
    expect(phone.s.pendingMove).not.toBeNull();
    await run(server, [ann, phone], () => server.recommits[1] === 1);
    expect(await play).toMatchObject({ ok: true });
    expect(server.received.slice(before).map((a) => `${a.seat}:${a.t}`).slice(0, 2)).toEqual(['1:recommit', '1:move']);
    const recommit = sent(server, 1, 'recommit');
    expect(recommit).toHaveLength(1);
    expect(recommit[0]!.p.game).toBe(1);
    // Stored before it was sent: the new secret, the roll it applies from and the count.
    const ctx = { matchId: M, gameNo: 1, seat: 1 as const };
    const stored = loadChain(phone.storage, ctx)!;
    expect(stored).toMatchObject({ from: k0, length: LENGTH, n: 1 });
    const chain = await OwnChain.create(ctx, stored.secret, stored.length!, stored.from);
    // The re-commitment is s'[k0 − 1] of the new chain (fairness.md, section 7).
    expect(toHex(recommit[0]!.p.commitment as Uint8Array)).toBe(toHex(chain.link(k0 - 1)));
    expect(server.log.filter((e) => e.k === 'recommitted')).toMatchObject([{ p: { game: 1, seat: 1, k: k0 } }]);
    await run(server, [ann, phone], () => phone.notices.includes(NEW_CHAIN));
    expect(ann.notices).toContain(`Bob committed a new dice chain (lost secret) from roll ${k0}`);

    // Play on: Bob's reveals come from the new chain, s'[k] for roll k.
    await run(server, [ann, phone], () => server.k >= k0 + 6 && bobToMove(server));
    const rolls = server.log.filter((e) => e.k === 'dice' && (e.p.k as number) >= k0);
    for (const e of rolls) expect(toHex(e.p.reveal1 as Uint8Array)).toBe(toHex(chain.reveal(e.p.k as number)));
    expect(await checkLinks(server, 1, k0, chain.commitment)).toBeGreaterThanOrEqual(6);
    expect(sent(server, 1, 'recommit')).toHaveLength(1);
    expect(server.phase).not.toBe('over'); // no forfeit

    // Both pages verified every roll, those after the re-commitment too.
    for (const p of [ann, phone]) {
      await p.s.verified();
      const checks = [...p.s.checks.entries()];
      expect(checks.length).toBe(server.k - 1);
      expect(new Set(checks.map(([, c]) => c.check))).toEqual(new Set(['verified']));
    }
    // The transcript (with the re-commitment) verifies with the shared algorithm.
    server.resign(0);
    const verdict = await verifyTranscript(server.transcript(), false);
    expect(verdict).toMatchObject({ recommitments: 1, rolls: server.k - 1 });
  });

  it('a reload after the re-commitment reveals from the new secret, from the log or a snapshot', async () => {
    for (const snapshot of [false, true]) {
      const { server, ann } = await underway(2);
      const phone = browser(server, 1);
      await run(server, [ann, phone], () => server.recommits[1] === 1 && phone.s.holdsChain() === true);
      const k0 = server.log.find((e) => e.k === 'recommitted')!.p.k as number;
      const value = phone.storage.getItem(secretKey({ matchId: M, gameNo: 1, seat: 1 }));
      expect(JSON.parse(value!)).toMatchObject({ from: k0, n: 1 });
      // The phone reloads (same storage): no second re-commitment, the game goes on.
      phone.s.stop();
      server.snapshotNext = snapshot;
      const again = browser(server, 1, phone.storage);
      await run(server, [ann, again], () => server.k >= k0 + 4 && bobToMove(server));
      expect(sent(server, 1, 'recommit')).toHaveLength(1);
      expect(server.recommits[1]).toBe(1);
      expect(server.phase).toBe('play');
      expect(again.s.holdsChain()).toBe(true);
      await checkLinks(server, 1, k0, server.log.find((e) => e.k === 'recommitted')!.p.commitment as Uint8Array);
      await again.s.verified();
      const checks = [...again.s.checks.values()].map((c) => c.check);
      expect(checks).not.toContain('alarm');
      // From the log or after a snapshot (its heads: each seat's latest link), every roll
      // verifies, the first after the re-commitment included.
      expect(checks.length).toBeGreaterThan(0);
      expect(new Set(checks)).toEqual(new Set(['verified']));
      server.resign(1);
      expect(await verifyTranscript(server.transcript(), false)).toMatchObject({ recommitments: 1 });
    }
  });

  it('the old device, back again, re-commits too (its chain is no longer the current one)', async () => {
    const { server, ann, bob } = await underway(2);
    const phone = browser(server, 1);
    await run(server, [ann, phone], () => server.recommits[1] === 1 && phone.s.holdsChain() === true);
    await run(server, [ann, phone], () => bobToMove(server) && server.k > 5);
    // Bob reloads the first browser: it still holds the chain of the game's commitment.
    phone.s.stop();
    const back = browser(server, 1, bob.storage);
    await run(server, [ann, back], () => server.recommits[1] === 2 && back.s.holdsChain() === true);
    await run(server, [ann, back], () => bobToMove(server) && server.k > 9);
    expect(server.phase).toBe('play');
    server.resign(0);
    expect(await verifyTranscript(server.transcript(), false)).toMatchObject({ recommitments: 2 });
  });

  it('at most 3 re-commitments per game: a fourth device says the seat cannot reveal', async () => {
    const { server, ann } = await underway(1);
    let last: Browser | null = null;
    for (let i = 1; i <= 3; i++) {
      last?.s.stop();
      last = browser(server, 1);
      await run(server, [ann, last], () => server.recommits[1] === i && last!.s.holdsChain() === true);
      await run(server, [ann, last], () => bobToMove(server) && server.k > 2 + 2 * i);
    }
    last!.s.stop();
    const fourth = browser(server, 1);
    await run(server, [ann, fourth], () => fourth.notices.some((n) => n.includes('(the limit)')));
    expect(fourth.notices.at(-1)).toBe(
      "This browser does not hold this seat's dice secret, and the seat has already committed a new chain 3 times in this game (the limit): it cannot reveal its dice, and forfeits at its next roll",
    );
    expect(fourth.s.holdsChain()).toBe(false);
    // It plays its move, then owes a reveal it cannot make: nothing is sent, once said.
    await run(server, [ann, fourth], () => server.phase === 'reveal');
    for (let i = 0; i < 20; i++) fourth.env.advance(500);
    await settle(3);
    expect(sent(server, 1, 'recommit')).toHaveLength(3);
    expect(server.received.filter((a) => a.seat === 1 && a.t === 'reveal' && (a.p.k as number) === server.k)).toHaveLength(0);
    expect(fourth.notices.filter((n) => n.includes('(the limit)'))).toHaveLength(1);
    server.noReveal(1);
    expect(await verifyTranscript(server.transcript(), false)).toMatchObject({ recommitments: 3, result: { reason: 'no_reveal' } });
  });

  it('a refused re-commitment is shown and not sent again', async () => {
    const { server, ann } = await underway(2);
    const original = (server as unknown as { recommit: (...a: unknown[]) => unknown }).recommit;
    (server as unknown as { recommit: () => [string, string] }).recommit = () => ['bad_commitment', 'same_as_opponent'];
    const phone = browser(server, 1);
    await run(server, [ann, phone], () => phone.notices.some((n) => n.startsWith('Could not commit')));
    for (let i = 0; i < 20; i++) phone.env.advance(500);
    await settle(3);
    expect(phone.notices.filter((n) => n.startsWith('Could not commit'))).toEqual(['Could not commit a new dice chain: same_as_opponent']);
    expect(sent(server, 1, 'recommit')).toHaveLength(1);
    expect(server.recommits[1]).toBe(0);
    expect(original).toBeTypeOf('function');
  });

  it('while a reveal is owed it cannot re-commit: it says so once and sends nothing', async () => {
    const { server, ann, bob } = await underway(2);
    // Bob plays his move, then his page goes quiet (its reveal of Ann's roll is lost) ...
    server.mute(1, 'move');
    await run(server, [ann, bob], () => server.phase === 'reveal' && server.onRoll === 0);
    const k = server.k;
    // ... and he opens a device without the secret while his reveal is owed.
    bob.s.stop();
    const phone = browser(server, 1);
    await run(server, [ann, phone], () => phone.notices.length > 0);
    for (let i = 0; i < 20; i++) phone.env.advance(500);
    await settle(3);
    expect(phone.notices).toEqual([
      'This browser does not hold the dice secret this seat committed to for this game, and a new one can only be committed between rolls: this seat cannot reveal for this roll',
    ]);
    expect(phone.s.holdsChain()).toBe(false);
    const fromPhone = server.received.filter((a) => a.seat === 1 && (a.t === 'recommit' || (a.t === 'reveal' && (a.p.k as number) === k)));
    expect(fromPhone).toEqual([]);
    server.noReveal(1);
    expect(await verifyTranscript(server.transcript(), false)).toMatchObject({ recommitments: 0, result: { reason: 'no_reveal' } });
  });

  it('a roll of its own already under way (revealed on the old device) completes first', async () => {
    const { server, ann, bob } = await underway(2);
    // Ann plays her move; then her reveal of Bob's roll is lost on the way.
    await run(server, [ann, bob], () => server.phase === 'play' && server.clock.phase === 'move' && server.onRoll === 0);
    server.mute(0, 'move');
    await run(server, [ann, bob], () => server.phase === 'reveal' && server.onRoll === 1);
    const k = server.k;
    // Bob rolled on his first browser, and opens the seat on another one.
    bob.s.stop();
    const phone = browser(server, 1);
    await run(server, [phone], () => phone.s.caughtUp);
    for (let i = 0; i < 4; i++) phone.env.advance(500);
    await settle(3);
    expect(phone.notices).toEqual([]); // it owes nothing during this roll
    expect(sent(server, 1, 'recommit')).toHaveLength(0);
    // Ann's page reloads and reveals; the roll completes; the phone re-commits from the next.
    ann.s.stop();
    const annBack = browser(server, 0, ann.storage);
    await run(server, [annBack, phone], () => server.recommits[1] === 1 && phone.s.holdsChain() === true);
    expect(server.log.find((e) => e.k === 'recommitted')!.p.k).toBe(k + 1);
    await run(server, [annBack, phone], () => bobToMove(server) && server.k > k + 4);
    server.resign(0);
    expect(await verifyTranscript(server.transcript(), false)).toMatchObject({ recommitments: 1 });
  });

  it('a chain that has run out is replaced the same way, between rolls', async () => {
    const server = new DiceServer(new FakeEnv(), MATCH);
    const ann = browser(server, 0, memoryStorage(), 8);
    const bob = browser(server, 1, memoryStorage(), 8);
    await run(server, [ann, bob], () => server.k > 20 && server.phase === 'play');
    // Rolls 1-8 came from the chains committed to (8 roll-off ties in a row are too unlikely
    // to matter); each seat then re-committed for roll 9 on (18 links), and again for 19 on.
    const recommitted = server.log.filter((e) => e.k === 'recommitted').map((e) => [e.p.seat, e.p.k]);
    expect(recommitted.filter(([, k]) => k === 9)).toHaveLength(2);
    expect(recommitted.filter(([, k]) => k === 19)).toHaveLength(2);
    for (const p of [ann, bob]) {
      await p.s.verified();
      expect(new Set([...p.s.checks.values()].map((c) => c.check))).toEqual(new Set(['verified']));
    }
    server.resign(1);
    expect(await verifyTranscript(server.transcript(), false)).toMatchObject({ recommitments: 4 });
  });
});
