import { describe, expect, it } from 'vitest';
import { legalPlays } from '../src/engine';
import { OwnChain, chainLink, deriveDice, fromHex, secretKey, toHex } from '../src/fairdice';
import { RESTART_RETRY_MS, RESTART_SPREAD_MS } from '../src/net/seatCore';
import { PROTOCOL_VERSION, parseServerFrame } from '../src/net/protocol';
import { MatchSession } from '../src/net/session';
import { memoryStorage, parseSeatLink, seatLink } from '../src/net/storage';
import { netView } from '../src/view/netGame';
import { FakeEnv, type FakeSocket, settle } from './fakeServer';
import { NET, bytes } from './netFixture';

const MATCH = '00112233445566778899aabbccddeeff';
const T = 1_767_225_600_000;

type Clock = { phase: string; seats: number[]; deadline: number | null } | null;
const ev = (v: number, k: string, p: Record<string, unknown>, n: Clock = null) => ({ t: 'event', v, k, p, n });
const clock = (phase: string, seats: number[], deadline: number | null = T + 30_000): Clock => ({ phase, seats, deadline });

function session(seat: 0 | 1 | null, env = new FakeEnv(), storage = memoryStorage()) {
  const s = new MatchSession({
    matchId: MATCH,
    seat: seat === null ? null : { seat, token: `token-${seat}` },
    name: 'Ann',
    url: 'ws://test/ws',
    env,
    storage,
    chainLength: 16,
  });
  s.start();
  return { s, env, storage };
}

function welcome(sock: FakeSocket, role: string, v: number, seq: number | null = null, serverTime = T) {
  sock.deliver({ t: 'welcome', p: { role, match: MATCH, v, server_time: serverTime, seq } });
}

/** Seat 0's secret, stored before the session starts, and an opponent chain such that seat 0
 * wins the roll-off at once (found deterministically). */
async function rigged(storage: ReturnType<typeof memoryStorage>) {
  const m = fromHex(MATCH);
  const top0 = new Uint8Array(32).fill(7);
  storage.setItem(secretKey({ matchId: m, gameNo: 1, seat: 0 }), toHex(top0));
  const mine = await OwnChain.create({ matchId: m, gameNo: 1, seat: 0 }, top0, 16);
  for (let i = 1; ; i++) {
    const theirs = await OwnChain.create({ matchId: m, gameNo: 1, seat: 1 }, new Uint8Array(32).fill(i), 16);
    const [d0, d1] = await deriveDice(m, 1, 1, mine.reveal(1), theirs.reveal(1));
    if (d0 > d1) return { mine, theirs, rolloff: [d0, d1] as const };
  }
}

describe('match session: handshake, versions and resume', () => {
  it('sends hello first, with the seat token, and asks for the whole log', () => {
    const { env } = session(0);
    env.last.open();
    expect(env.last.sent[0]).toEqual({ t: 'hello', p: { proto: PROTOCOL_VERSION, match: MATCH, token: 'token-0', last_v: 0, name: 'Ann' } });
  });

  it('a spectator says hello without a token', () => {
    const { env } = session(null);
    env.last.open();
    expect((env.last.sent[0]!.p as { token: unknown }).token).toBeNull();
  });

  it('applies events in order, ignores duplicates and asks for a resync on a gap', () => {
    const { s, env } = session(null);
    env.last.open();
    const frames = NET.matches[0]!.frames;
    welcome(env.last, 'spectator', 10);
    env.last.deliver(bytes(frames[0]!));
    env.last.deliver(bytes(frames[1]!));
    env.last.deliver(bytes(frames[1]!)); // duplicate
    expect(s.tracker.version).toBe(2);
    env.last.deliver(bytes(frames[4]!)); // v5: a gap
    expect(s.tracker.version).toBe(2);
    expect(env.last.of('resync')).toEqual([{ t: 'resync', p: { last_v: 2 } }]);
    for (const hex of frames.slice(2, 10)) env.last.deliver(bytes(hex));
    expect(s.tracker.version).toBe(10);
    expect(s.caughtUp).toBe(true);
  });

  it('reconnects with backoff and resumes from the last version it holds', () => {
    const { s, env } = session(null);
    env.last.open();
    welcome(env.last, 'spectator', 3);
    for (const hex of NET.matches[0]!.frames.slice(0, 3)) env.last.deliver(bytes(hex));
    env.last.drop(1006);
    expect(s.link).toBe('connecting');
    expect(env.sockets.length).toBe(1);
    env.advance(40); // 50 ms times 0.5..1.5 (the seat core's back-off; 1.0 here): not yet
    expect(env.sockets.length).toBe(1);
    env.advance(20);
    expect(env.sockets.length).toBe(2);
    env.last.open();
    expect((env.last.sent[0]!.p as { last_v: number }).last_v).toBe(3);
    // Backoff grows while attempts keep failing: 100 ms now.
    env.last.drop(1006);
    env.advance(90);
    expect(env.sockets.length).toBe(2);
    env.advance(20);
    expect(env.sockets.length).toBe(3);
    // ... up to 2 s, and it never gives up while the match is live (an hour of refusals).
    for (let i = 0; i < 1800; i++) {
      const before = env.sockets.length;
      env.last.drop(1006);
      env.advance(2000);
      expect(env.sockets.length).toBe(before + 1);
    }
    expect(s.link).toBe('connecting');
    // The failed attempts are counted (the offline banner reads them), until a welcome.
    expect(s.connection.attempts).toBe(1802);
    env.last.open();
    welcome(env.last, 'spectator', 3);
    expect(s.connection.attempts).toBe(0);
  });

  it('told of a restart (1012), comes back within half a second and retries every 250 ms', () => {
    const { s, env } = session(null);
    env.last.open();
    welcome(env.last, 'spectator', 3);
    env.last.drop(1012, 'server restarting');
    expect(s.link).toBe('connecting');
    env.advance(RESTART_SPREAD_MS);
    expect(env.sockets.length).toBe(2);
    // The server is not up yet: a steady pace, no back-off past the moment it is.
    for (let i = 3; i <= 8; i++) {
      env.last.drop(1006);
      env.advance(RESTART_RETRY_MS);
      expect(env.sockets.length).toBe(i);
    }
    env.last.open();
    welcome(env.last, 'spectator', 3);
    // Healthy again: the next ordinary drop backs off from the start (50 ms x 0.5..1.5).
    env.last.drop(1006);
    env.advance(40);
    expect(env.sockets.length).toBe(8);
    env.advance(20);
    expect(env.sockets.length).toBe(9);
  });

  it('does not reconnect after a final close (another tab took the seat)', () => {
    const { s, env } = session(0);
    env.last.open();
    env.last.deliver({ t: 'error', p: { code: 'replaced', message: 'a new connection took over' } });
    env.last.drop(4003, 'replaced');
    env.advance(60_000);
    expect(env.sockets.length).toBe(1);
    expect(s.link).toBe('closed');
    expect(s.lastError?.code).toBe('replaced');
  });

  it('leaves a server silent for 6 s (its probes stopped) and opens a new socket', () => {
    const { env } = session(null);
    env.last.open();
    welcome(env.last, 'spectator', 0);
    env.advance(2_000);
    env.last.deliver({ t: 'probe', p: { t: 1 } });
    env.advance(5_900); // 5.9 s after the last frame
    expect(env.sockets.length).toBe(1);
    env.advance(200); // 6 s, then the reconnect pause (at most 75 ms after a healthy session)
    expect(env.sockets.length).toBe(2);
    env.last.open(); // a new socket that hears nothing either, not even a welcome
    env.advance(6_100);
    expect(env.sockets.length).toBe(3);
  });

  it('keeps a quiet socket that hears the probes', () => {
    const { env } = session(null);
    const sock = env.last;
    sock.open();
    welcome(sock, 'spectator', 0);
    for (let i = 1; i <= 30; i++) {
      env.advance(2_000);
      sock.deliver({ t: 'probe', p: { t: i } });
    }
    expect(env.sockets.length).toBe(1);
  });

  it("answers the server's probe at once with the same t", () => {
    const { env } = session(0);
    env.last.open();
    welcome(env.last, 'seat0', 0);
    env.last.deliver({ t: 'probe', p: { t: 424242 } });
    expect(env.last.of('echo')).toEqual([{ t: 'echo', p: { t: 424242 } }]);
  });

  it('learns the server clock offset from welcome and pong', () => {
    const { s, env } = session(null);
    env.last.open();
    welcome(env.last, 'spectator', 0, null, env.time + 5000);
    expect(s.offset).toBe(5000);
    const ping = env.last.of('ping')[0]!.p as { t: number };
    env.advance(100);
    env.last.deliver({ t: 'pong', p: { t: ping.t, server_time: ping.t + 50 + 3000 } });
    expect(s.offset).toBe(3000);
    expect(s.toClient(T + 3000)).toBe(T);
  });

  it('verifies every roll of a real match, and raises the alarm on tampered dice', async () => {
    const match = NET.matches[0]!;
    for (const tamper of [false, true]) {
      const env = new FakeEnv();
      const s = new MatchSession({ matchId: match.match_id, seat: null, name: null, url: 'ws://x', env, storage: memoryStorage() });
      s.start();
      env.last.open();
      welcome(env.last, 'spectator', match.frames.length);
      let tampered = -1;
      for (const hex of match.frames) {
        let frame = bytes(hex);
        const parsed = parseServerFrame(frame)!;
        if (tamper && tampered < 0 && parsed.t === 'event' && parsed.k === 'dice' && parsed.p.k === 4) {
          const p = { ...parsed.p, d1: (parsed.p.d1 % 6) + 1 };
          tampered = parsed.p.game;
          env.last.deliver({ ...parsed, p });
          continue;
        }
        env.last.deliver(frame);
        frame = new Uint8Array();
      }
      await s.verified();
      const checks = [...s.checks.values()].map((c) => c.check);
      expect(checks.length).toBeGreaterThan(30);
      if (!tamper) expect(new Set(checks)).toEqual(new Set(['verified']));
      else {
        expect(s.checks.get(`${tampered}:4`)?.check).toBe('alarm');
        expect(s.notice?.alarm).toBe(true);
        // The next rolls still verify: links hash down past the bad announcement.
        expect(s.checks.get(`${tampered}:5`)?.check).toBe('verified');
      }
    }
  });

  it('a spectator joining by snapshot verifies the next roll against the commitments', async () => {
    const match = NET.matches[0]!;
    const snap = match.snapshots[1]!;
    const env = new FakeEnv();
    const s = new MatchSession({ matchId: match.match_id, seat: null, name: null, url: 'ws://x', env, storage: memoryStorage() });
    s.start();
    env.last.open();
    welcome(env.last, 'spectator', snap.v);
    env.last.deliver(bytes(snap.hex));
    for (const hex of match.frames.slice(snap.v)) env.last.deliver(bytes(hex));
    await s.verified();
    const checks = [...s.checks.entries()];
    expect(checks.length).toBeGreaterThan(5);
    expect(checks.every(([, c]) => c.check === 'verified')).toBe(true);
  });
});

describe('match session: a seat plays', () => {
  it('commits, reveals, moves (pending until acked) and reveals for the opponent', async () => {
    const storage = memoryStorage();
    const { mine, theirs, rolloff } = await rigged(storage);
    const { s, env } = session(0, new FakeEnv(), storage);
    const sock = env.last;
    sock.open();
    welcome(sock, 'seat0', 3);
    sock.deliver(ev(1, 'match_created', { mode: 'single_game', length: null, jacoby: false, beavers: false, move_time: 30_000 }));
    sock.deliver(ev(2, 'seated', { seat: 0, name: 'Ann' }, clock('waiting', [], null)));
    sock.deliver(ev(3, 'seated', { seat: 1, name: 'Bob' }, clock('commit', [0, 1])));
    await settle();
    const commit = sock.of('commit')[0]!;
    expect(commit).toMatchObject({ t: 'commit', s: 1, p: { game: 1 } });
    expect(toHex((commit.p as { commitment: Uint8Array }).commitment)).toBe(toHex(mine.commitment));
    expect(storage.getItem(`fairgammon.seq.${MATCH}.0`)).toBe('1');
    sock.deliver({ t: 'ack', p: { seq: 1, v: 4 } });
    sock.deliver(ev(4, 'commit_received', { game: 1, seat: 0 }, clock('commit', [1])));
    sock.deliver(ev(5, 'committed', { game: 1, commitment0: mine.commitment, commitment1: theirs.commitment }));
    sock.deliver(ev(6, 'game_started', { game: 1, crawford: false, score: [0, 0] }, clock('rolloff', [0, 1])));
    await settle();
    const reveal = sock.of('reveal')[0]!;
    expect(reveal).toMatchObject({ s: 2, p: { game: 1, k: 1 } });
    const link = (reveal.p as { reveal: Uint8Array }).reveal;
    expect(toHex(await chainLink({ matchId: fromHex(MATCH), gameNo: 1, seat: 0 }, 1, link))).toBe(toHex(mine.commitment));
    sock.deliver({ t: 'ack', p: { seq: 2, v: 6 } });
    const [d0, d1] = rolloff;
    sock.deliver(
      ev(7, 'dice', { game: 1, k: 1, kind: 'rolloff', roller: null, reveal0: mine.reveal(1), reveal1: theirs.reveal(1), d1: d0, d2: d1 }, clock('move', [0])),
    );
    await settle();
    expect(s.checks.get('1:1')?.check).toBe('verified');
    let view = netView(s);
    expect(view.phase).toBe('moving');
    expect(view.turn).toBe(0);
    expect(view.dice).toMatchObject({ k: 1, seat: 0, check: 'verified' });
    // The play: pending until the ack AND its event are in.
    const play = legalPlays({ mover: s.tracker.boards[0], opponent: s.tracker.boards[1] }, d0, d1)[0]!;
    void s.move(play.moves);
    expect(sock.of('move')[0]).toMatchObject({ s: 3, p: { game: 1, turn: 1 } });
    expect(netView(s).pending).toBe(true);
    sock.deliver({ t: 'ack', p: { seq: 3, v: 8 } });
    await settle();
    expect(netView(s).pending).toBe(true);
    sock.deliver(ev(8, 'moved', { game: 1, seat: 0, turn: 1, moves: play.moves, position_id: 'jGfkASjg8wcBMA' }, clock('decide', [1])));
    await settle();
    view = netView(s);
    expect(view.pending).toBe(false);
    // The opponent rolls: this seat reveals link 2 by itself.
    sock.deliver(ev(9, 'rolling', { game: 1, k: 2, seat: 1 }, clock('reveal', [0])));
    await settle();
    expect(sock.of('reveal')[1]).toMatchObject({ s: 4, p: { game: 1, k: 2 } });
    expect(toHex((sock.of('reveal')[1]!.p as { reveal: Uint8Array }).reveal)).toBe(toHex(mine.reveal(2)));
  });

  it('rolls by itself when no cube decision is possible, not when it may double', async () => {
    for (const mode of ['single_game', 'match'] as const) {
      const storage = memoryStorage();
      const { mine, theirs } = await rigged(storage);
      const { s, env } = session(0, new FakeEnv(), storage);
      const sock = env.last;
      sock.open();
      welcome(sock, 'seat0', 5);
      sock.deliver(ev(1, 'match_created', { mode, length: mode === 'match' ? 3 : null, jacoby: false, beavers: false, move_time: 30_000 }));
      sock.deliver(ev(2, 'seated', { seat: 0, name: 'Ann' }));
      sock.deliver(ev(3, 'seated', { seat: 1, name: 'Bob' }));
      sock.deliver(ev(4, 'committed', { game: 1, commitment0: mine.commitment, commitment1: theirs.commitment }));
      // A made-up state where seat 0 is on roll at roll 2 (the tracker only needs the clock).
      sock.deliver(ev(5, 'game_started', { game: 1, crawford: false, score: [0, 0] }, clock('decide', [0])));
      s.tracker.onRoll = 0;
      s.tracker.k = 2;
      s.automate();
      await settle();
      if (mode === 'single_game') {
        expect(sock.of('roll')).toHaveLength(1);
        expect(toHex((sock.of('roll')[0]!.p as { reveal: Uint8Array }).reveal)).toBe(toHex(mine.reveal(2)));
        expect(netView(s).phase).toBe('rolling');
      } else {
        expect(sock.of('roll')).toHaveLength(0);
        expect(netView(s).phase).toBe('decide');
        void s.double();
        expect(sock.of('double')[0]).toMatchObject({ p: { game: 1 } });
      }
    }
  });

  it('resends an unanswered action after a reconnect, with the same number, unless applied', async () => {
    const { s, env, storage } = session(0);
    env.last.open();
    welcome(env.last, 'seat0', 0, 6);
    expect(storage.getItem(`fairgammon.seq.${MATCH}.0`)).toBe('6');
    const reply = s.act({ t: 'take', p: { game: 1 } });
    const reply2 = s.act({ t: 'drop', p: { game: 1 } });
    expect(env.last.of('take')[0]).toMatchObject({ s: 7 });
    env.last.drop();
    env.advance(1000);
    env.last.open();
    // The server applied 7, not 8.
    welcome(env.last, 'seat0', 0, 7);
    expect(env.last.of('take')).toHaveLength(0);
    expect(env.last.of('drop')[0]).toMatchObject({ s: 8 });
    expect(await reply).toEqual({ ok: true, v: 0 });
    env.last.deliver({ t: 'reject', p: { seq: 8, code: 'no_double_pending', message: 'no double to answer' } });
    expect(await reply2).toEqual({ ok: false, code: 'no_double_pending', message: 'no double to answer' });
    await settle();
    expect(s.notice?.text).toBe('There is no double to answer.');
  });

  it('a clock credit (a server process died) moves the deadline and says why', () => {
    const frames = NET.matches.find((m) => m.name === 'match3')!.frames;
    const at = frames.findIndex((hex) => parseServerFrame(bytes(hex))?.t === 'event' && (parseServerFrame(bytes(hex)) as { k: string }).k === 'clock_credit');
    expect(at).toBeGreaterThan(0);
    const credit = parseServerFrame(bytes(frames[at]!)) as { p: { seat: 0 | 1; ms: number }; n: { deadline: number } };
    const { s, env } = session(credit.p.seat);
    env.last.open();
    welcome(env.last, `seat${credit.p.seat}`, at); // the credit comes live, after the catch-up
    for (const hex of frames.slice(0, at)) env.last.deliver(bytes(hex));
    const before = s.tracker.clock.deadline!;
    env.last.deliver(bytes(frames[at]!));
    expect(s.tracker.clock.deadline).toBe(credit.n.deadline);
    expect(s.tracker.clock.deadline! - before).toBe(credit.p.ms);
    expect(s.tracker.lastCredit).toEqual(credit.p);
    expect(netView(s).notice?.text).toBe(`You get ${(credit.p.ms / 1000).toFixed(1)} s back on the clock: a server failed and was replaced`);
  });

  it('a refused move restores the board and says why; retry_later is retried', async () => {
    const { s, env } = session(0);
    const sock = env.last;
    sock.open();
    welcome(sock, 'seat0', 0);
    s.tracker.clock = { phase: 'move', seats: [0], deadline: null, reserves: [0, 0] };
    s.tracker.dice = [3, 1];
    s.tracker.onRoll = 0;
    const done = s.move([[8, 5], [6, 5]]);
    expect(netView(s).pending).toBe(true);
    sock.deliver({ t: 'reject', p: { seq: 1, code: 'retry_later', message: 'storage unavailable' } });
    expect(netView(s).pending).toBe(true);
    env.advance(1000);
    expect(sock.of('move')).toHaveLength(2);
    expect(sock.of('move')[1]).toMatchObject({ s: 1 });
    sock.deliver({ t: 'reject', p: { seq: 1, code: 'illegal_play', message: 'move 1 (8, 5): point 5 is blocked' } });
    expect(await done).toMatchObject({ ok: false });
    await settle();
    expect(netView(s).pending).toBe(false);
    expect(netView(s).notice?.text).toBe('That play breaks the rules: play the dice again.');
  });

  it('a correspondence seat without its chain, at its roll decision, is told to roll from its own browser', async () => {
    const { mine, theirs } = await rigged(memoryStorage());
    const { s, env } = session(1); // this browser holds nothing of seat 1
    const sock = env.last;
    sock.open();
    welcome(sock, 'seat1', 5);
    const day = 86_400_000;
    sock.deliver(ev(1, 'match_created', { mode: 'match', length: 3, jacoby: false, beavers: false, move_time: day }));
    sock.deliver(ev(2, 'seated', { seat: 0, name: 'Ann' }));
    sock.deliver(ev(3, 'seated', { seat: 1, name: 'Bob' }));
    sock.deliver(ev(4, 'committed', { game: 1, commitment0: mine.commitment, commitment1: theirs.commitment }));
    sock.deliver(ev(5, 'game_started', { game: 1, crawford: false, score: [0, 0] }, clock('decide', [1], T + day)));
    s.tracker.onRoll = 1;
    s.tracker.k = 3;
    s.automate();
    await settle();
    // It tries a new chain between rolls; the server refuses it: Ann's part of roll 3 is in.
    const [recommit] = sock.of('recommit');
    expect(recommit).toMatchObject({ p: { game: 1 } });
    const message = 'roll_in_progress: re-commit between rolls, not during one';
    sock.deliver({ t: 'reject', p: { seq: recommit!.s, code: 'bad_commitment', message } });
    await settle();
    expect(netView(s).notice?.text).toMatch(/^This browser does not hold your dice secret for this match/);
    expect(netView(s).notice?.text).toContain('Roll from the browser where you played this match');
  });

  it('a reload keeps counting sequence numbers from storage', () => {
    const storage = memoryStorage();
    storage.setItem(`fairgammon.seq.${MATCH}.1`, '41');
    const { s, env } = session(1, new FakeEnv(), storage);
    env.last.open();
    welcome(env.last, 'seat1', 0, 12);
    void s.act({ t: 'take', p: { game: 1 } });
    expect(env.last.of('take')[0]).toMatchObject({ s: 42 });
  });
});

describe('match session: the cube', () => {
  it('after its double is taken, the doubler rolls by itself (no cube decision left)', async () => {
    const storage = memoryStorage();
    const { mine, theirs } = await rigged(storage);
    const { s, env } = session(0, new FakeEnv(), storage);
    const sock = env.last;
    sock.open();
    welcome(sock, 'seat0', 5);
    sock.deliver(ev(1, 'match_created', { mode: 'match', length: 3, jacoby: false, beavers: false, move_time: 30_000 }));
    sock.deliver(ev(2, 'seated', { seat: 0, name: 'Ann' }));
    sock.deliver(ev(3, 'seated', { seat: 1, name: 'Bob' }));
    sock.deliver(ev(4, 'committed', { game: 1, commitment0: mine.commitment, commitment1: theirs.commitment }));
    sock.deliver(ev(5, 'game_started', { game: 1, crawford: false, score: [0, 0] }, clock('decide', [0])));
    s.tracker.onRoll = 0;
    s.tracker.k = 2;
    void s.double();
    expect(sock.of('double')).toHaveLength(1);
    sock.deliver(ev(6, 'doubled', { game: 1, seat: 0, value: 2 }, clock('take', [1])));
    sock.deliver({ t: 'ack', p: { seq: sock.of('double')[0]!.s as number, v: 6 } });
    sock.deliver(ev(7, 'taken', { game: 1, seat: 1, value: 2 }, clock('decide', [0])));
    await settle();
    expect(netView(s).phase).toBe('rolling');
    expect(sock.of('roll')).toHaveLength(1);
    expect(sock.of('roll')[0]).toMatchObject({ p: { game: 1, k: 2 } });
  });
});

describe('match session: one decision at a time', () => {
  it('sends no second decision while one is unanswered, and may send it again once refused', async () => {
    const storage = memoryStorage();
    const { mine, theirs } = await rigged(storage);
    const { s, env } = session(0, new FakeEnv(), storage);
    const sock = env.last;
    sock.open();
    welcome(sock, 'seat0', 5);
    sock.deliver(ev(1, 'match_created', { mode: 'match', length: 3, jacoby: false, beavers: false, move_time: 30_000 }));
    sock.deliver(ev(2, 'seated', { seat: 0, name: 'Ann' }));
    sock.deliver(ev(3, 'seated', { seat: 1, name: 'Bob' }));
    sock.deliver(ev(4, 'committed', { game: 1, commitment0: mine.commitment, commitment1: theirs.commitment }));
    sock.deliver(ev(5, 'game_started', { game: 1, crawford: false, score: [0, 0] }, clock('decide', [0])));
    s.tracker.onRoll = 0;
    s.tracker.k = 2;
    const first = s.double();
    expect(first).not.toBeNull();
    expect(s.deciding).toBe(true);
    // A double click, or Roll meanwhile: nothing more goes out.
    expect(s.double()).toBeNull();
    expect(await s.roll()).toBeNull();
    expect(s.resign(1)).toBeNull();
    expect(sock.of('double')).toHaveLength(1);
    expect(sock.of('roll')).toHaveLength(0);
    sock.deliver({ t: 'reject', p: { seq: sock.of('double')[0]!.s as number, code: 'not_your_turn', message: 'seat 1 is to act' } });
    expect(await first).toMatchObject({ ok: false, code: 'not_your_turn' });
    await settle();
    expect(s.deciding).toBe(false);
    expect(s.notice?.text).not.toMatch(/not_your_turn/); // in words, never the code
    void s.double();
    expect(sock.of('double')).toHaveLength(2);
  });
});

describe('seat links (another device)', () => {
  it('round-trips a seat and its token, and refuses anything else', () => {
    const record = { seat: 1 as const, token: 'Zq3-_x'.repeat(7) };
    const link = seatLink('https://fg.example', MATCH, record);
    expect(link).toBe(`https://fg.example/m/${MATCH}#seat=1.${record.token}`);
    expect(parseSeatLink(new URL(link).hash)).toEqual(record);
    for (const bad of ['#seat=2.' + record.token, '#seat=1.short', '#seat=1.' + record.token + '!', '#watch', '']) {
      expect(parseSeatLink(bad)).toBeNull();
    }
  });
});
