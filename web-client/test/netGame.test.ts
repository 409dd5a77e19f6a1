import { describe, expect, it } from 'vitest';
import { NetGame, netView } from '../src/view/netGame';
import { MatchSession } from '../src/net/session';
import { memoryStorage } from '../src/net/storage';
import { FakeEnv, settle } from './fakeServer';
import { NET, bytes } from './netFixture';

const T = 1_767_225_600_000;
type Clock = { phase: string; seats: number[]; deadline: number | null; reserves?: [number, number] } | null;
const ev = (v: number, k: string, p: Record<string, unknown>, n: Clock = null) => ({ t: 'event', v, k, p, n: n && { reserves: [0, 0], ...n } });
const c32 = (x: number) => new Uint8Array(32).fill(x);

function seated(seat: 0 | 1 | null, mode = 'money', rematch = () => {}, reserve = 0) {
  const env = new FakeEnv();
  const s = new MatchSession({
    matchId: '00112233445566778899aabbccddeeff',
    seat: seat === null ? null : { seat, token: 't' },
    name: null,
    url: 'ws://x',
    env,
    storage: memoryStorage(),
    chainLength: 16,
  });
  s.start();
  const sock = env.last;
  sock.open();
  sock.deliver({ t: 'welcome', p: { role: seat === null ? 'spectator' : `seat${seat}`, match: s.matchId, v: 6, server_time: T, seq: null } });
  sock.deliver(ev(1, 'match_created', { mode, length: mode === 'match' ? 5 : null, jacoby: false, beavers: true, move_time: 20_000, reserve }));
  sock.deliver(ev(2, 'seated', { seat: 0, name: 'Ann' }));
  sock.deliver(ev(3, 'seated', { seat: 1, name: 'Bob' }));
  sock.deliver(ev(4, 'committed', { game: 1, commitment0: c32(1), commitment1: c32(2) }));
  sock.deliver(ev(5, 'game_started', { game: 1, crawford: false, score: [0, 0] }, { phase: 'rolloff', seats: [0, 1], deadline: T + 20_000, reserves: [reserve, reserve] }));
  return { s, env, sock, game: new NetGame(s, rematch) };
}

/** Pong every ping (so the silence probe stays quiet while the clock is advanced). */
function answerPings(sock: ReturnType<typeof seated>['sock']): void {
  const send = sock.send.bind(sock);
  sock.send = (data: Uint8Array) => {
    send(data);
    const last = sock.sent[sock.sent.length - 1]!;
    const t = (last.p as { t: number }).t;
    if (last.t === 'ping') sock.deliver({ t: 'pong', p: { t, server_time: t } });
  };
}

describe('the board view of a network match', () => {
  it("shows each seat's time reserve, counted into the deadline of a decision that may use it", () => {
    const { s, sock } = seated(0, 'match', () => {}, 60_000);
    expect(netView(s).clocks[0].reserve).toEqual({ leftMs: 60_000, inDeadline: false }); // the roll-off
    sock.deliver(ev(6, 'doubled', { game: 1, seat: 1, value: 2 }, { phase: 'take', seats: [0], deadline: T + 80_000, reserves: [60_000, 45_000] }));
    const v = netView(s);
    expect(v.clocks[0]).toEqual({ deadline: T + 80_000 - s.offset, budgetMs: 20_000, reserve: { leftMs: 60_000, inDeadline: true } });
    expect(v.clocks[1]).toEqual({ deadline: null, budgetMs: 20_000, reserve: { leftMs: 45_000, inDeadline: false } });
    // Without a reserve in the match there is none to show.
    expect(netView(seated(0, 'match').s).clocks[0].reserve).toBeNull();
  });

  it('offers the beaver to the seat that answers a double in a money session', () => {
    for (const seat of [0, 1, null] as const) {
      const { s, sock } = seated(seat);
      sock.deliver(ev(6, 'doubled', { game: 1, seat: 0, value: 2 }, { phase: 'take', seats: [1], deadline: T + 40_000 }));
      const v = netView(s);
      expect(v.phase).toBe('offer');
      expect(v.offer).toEqual({ kind: 'double', by: 0, value: 2, beaver: seat === 1 });
      // Bob's clock runs, shown in this browser's time.
      expect(v.clocks[1].deadline).toBe(T + 40_000 - s.offset);
      expect(v.clocks[0].deadline).toBeNull();
      expect(v.clocks[1].budgetMs).toBe(20_000);
    }
  });

  it('names phases, the opening roll, the waiting and the automatic roll', () => {
    const { s, sock } = seated(1, 'match');
    expect(netView(s).phase).toBe('rolloff');
    expect(netView(s).status).toBeUndefined();
    // Seat 1 decides with the cube centred: double or roll (no automatic roll).
    sock.deliver(ev(6, 'passed', { game: 1, seat: 0, turn: 1 }, { phase: 'decide', seats: [1], deadline: T + 60_000 }));
    s.tracker.onRoll = 1;
    expect(netView(s).phase).toBe('decide');
    expect(netView(s).resignLevels).toEqual([1, 2, 3]);
    s.tracker.cubeOwner = 0;
    expect(netView(s).phase).toBe('rolling');
  });

  it('shows how a game ended and links its transcript, verify view and .mat', () => {
    const match = NET.matches.find((m) => m.name === 'timeout')!;
    const env = new FakeEnv();
    const s = new MatchSession({ matchId: match.match_id, seat: null, name: null, url: 'ws://x', env, storage: memoryStorage() });
    s.start();
    env.last.open();
    env.last.deliver({ t: 'welcome', p: { role: 'spectator', match: match.match_id, v: match.frames.length, server_time: T, seq: null } });
    for (const hex of match.frames) env.last.deliver(bytes(hex));
    const v = netView(s);
    expect(v.phase).toBe('gameover');
    expect(v.result).toMatchObject({ winner: 0, reason: 'timeout', points: 3, matchOver: true });
    // The match is over: the last game's replay, and the whole match's dice and exports.
    expect(v.result!.links!.map((l) => l.href)).toEqual([
      `/m/${match.match_id}/replay/1`,
      `/verify?match=${match.match_id}`,
      `/api/matches/${match.match_id}/transcript.json`,
      `/api/matches/${match.match_id}/match.mat`,
    ]);
  });

  it('Next game commits now; after the match it asks for a rematch', async () => {
    let rematches = 0;
    const { s, sock, game } = seated(0, 'match', () => rematches++);
    sock.deliver(ev(6, 'game_over', { game: 1, winner: 1, points: 1, result: 'single', reason: 'resign', score: [0, 1] }, { phase: 'commit', seats: [0, 1], deadline: T + 20_000 }));
    await settle();
    expect(netView(s).phase).toBe('gameover');
    expect(netView(s).nextGameAt).toBe(T + 10_000 - s.offset);
    expect(sock.of('commit')).toHaveLength(0); // the player reads the result first
    game.next();
    await settle(20);
    expect(sock.of('commit')[0]).toMatchObject({ p: { game: 2 } });
    sock.deliver(ev(7, 'match_over', { winner: 1, score: [0, 5], reason: 'forfeit' }));
    game.next();
    expect(rematches).toBe(1);
  });
});

describe('money sessions between games', () => {
  it('either seat may stop the session instead of starting the next game', async () => {
    const { s, sock, game, env } = seated(1, 'money');
    sock.deliver(ev(6, 'game_over', { game: 1, winner: 0, points: 2, result: 'gammon', reason: 'bear_off', score: [2, 0] }, { phase: 'commit', seats: [0, 1], deadline: T + 20_000 }));
    const v = netView(s);
    expect(v.canStop).toBe(true);
    expect(v.result).toMatchObject({ reason: 'gammon', points: 2, matchOver: false });
    answerPings(sock);
    game.stop();
    await settle(2);
    expect(sock.of('stop')).toEqual([{ t: 'stop', s: 1, p: {} }]);
    // Having asked to stop, this seat does not commit to a next game by itself, even once the
    // automatic commit is due.
    env.advance(15_000);
    await settle(20);
    expect(sock.of('commit')).toHaveLength(0);
    const spectator = seated(null, 'money');
    spectator.sock.deliver(ev(6, 'game_over', { game: 1, winner: 0, points: 2, result: 'gammon', reason: 'bear_off', score: [2, 0] }, { phase: 'commit', seats: [0, 1], deadline: T + 20_000 }));
    expect(netView(spectator.s).canStop).toBe(false);
  });

  it('a stopped session says who won how much and links its games, whatever came before', async () => {
    for (const committed of [false, true]) {
      const { s, sock } = seated(1, 'money');
      sock.deliver(ev(6, 'game_over', { game: 1, winner: 0, points: 2, result: 'gammon', reason: 'bear_off', score: [2, 0] }, { phase: 'commit', seats: [0, 1], deadline: T + 20_000 }));
      // The other seat committed to game 2 before the session was stopped (the tracker moves on).
      if (committed) sock.deliver(ev(7, 'commit_received', { game: 2, seat: 0 }, { phase: 'commit', seats: [1], deadline: T + 20_000 }));
      sock.deliver(ev(committed ? 8 : 7, 'match_over', { winner: 0, score: [2, 0], reason: 'stopped' }, { phase: 'over', seats: [], deadline: null }));
      await settle(2);
      const v = netView(s);
      expect(v.phase).toBe('gameover');
      expect(v.match.gameNo).toBe(1);
      expect(v.result).toMatchObject({ winner: 0, reason: 'stopped', points: 2, matchOver: true, score: [2, 0] });
      expect(v.result!.links!.map((l) => l.href)).toEqual([
        `/m/${s.matchId}/replay/1`,
        `/verify?match=${s.matchId}`,
        `/api/matches/${s.matchId}/transcript.json`,
        `/api/matches/${s.matchId}/match.mat`,
      ]);
    }
  });
});

describe('whole transitions only', () => {
  it('shows no half transition: a game over appears with the match over that follows it', async () => {
    const { sock, game } = seated(0, 'single_game');
    const shown: string[] = [];
    game.subscribe((v) => shown.push(`${v.phase}:${v.result?.matchOver ?? '-'}`));
    sock.deliver(ev(6, 'game_over', { game: 1, winner: 1, points: 1, result: 'single', reason: 'resign', score: [0, 1] }));
    await settle(2);
    expect(game.current().phase).toBe('rolloff');
    sock.deliver(ev(7, 'match_over', { winner: 1, score: [0, 1], reason: 'completed' }, { phase: 'over', seats: [], deadline: null }));
    await settle(2);
    expect(game.current().result?.matchOver).toBe(true);
    expect(shown).toEqual(['gameover:true']);
  });
});
