import { describe, expect, it } from 'vitest';
import { toHex } from '../src/fairdice';
import { encodeFrame } from '../src/net/codec';
import { type Action, RESERVE_PHASES, actionFrame, actions, echo, hello, parseServerFrame, ping, resync } from '../src/net/protocol';
import { NET, bytes, revive } from './netFixture';

type P = Record<string, never>;

/** Build the frame of a fixture entry with the client's own builders. */
function build(frame: { t: string; s?: number; p: Record<string, unknown> }): Uint8Array {
  const p = revive(frame.p) as P & Record<string, unknown>;
  const a = actions;
  const game = p.game as unknown as number;
  const byType: Record<string, () => Action> = {
    commit: () => a.commit(game, p.commitment as unknown as Uint8Array),
    recommit: () => a.recommit(game, p.commitment as unknown as Uint8Array),
    roll: () => a.roll(game, p.k as unknown as number, p.reveal as unknown as Uint8Array),
    reveal: () => a.reveal(game, p.k as unknown as number, p.reveal as unknown as Uint8Array),
    double: () => a.double(game),
    take: () => a.take(game),
    drop: () => a.drop(game),
    beaver: () => a.beaver(game),
    move: () => a.move(game, p.turn as unknown as number, p.moves as unknown as [number, number][]),
    resign: () => a.resign(game, p.level as unknown as 1 | 2 | 3),
    resign_reply: () => a.resignReply(game, p.accept as unknown as boolean),
    leave: () => a.leave(),
    stop: () => a.stop(),
  };
  if (frame.t === 'hello') {
    const q = p as unknown as { match: string; token: string | null; last_v: number | null; name: string | null };
    return hello(q.match, q.token, q.last_v, q.name);
  }
  if (frame.t === 'ping') return ping(p.t as unknown as number);
  if (frame.t === 'echo') return echo(p.t as unknown as number);
  if (frame.t === 'resync') return resync(p.last_v as unknown as number);
  return actionFrame(byType[frame.t]!(), frame.s!);
}

describe('client frames, byte for byte as the Python codec encodes them', () => {
  for (const c of NET.client) {
    it(c.name, () => {
      expect(toHex(build(c.frame as { t: string; s?: number; p: Record<string, unknown> }))).toBe(c.hex);
    });
  }

  it('covers every client message type', () => {
    const types = new Set(NET.client.map((c) => (c.frame as { t: string }).t));
    expect([...types].sort()).toEqual(
      ['beaver', 'commit', 'double', 'drop', 'echo', 'hello', 'leave', 'move', 'ping', 'recommit', 'resign', 'resign_reply', 'resync', 'reveal', 'roll', 'stop', 'take'].sort(),
    );
  });
});

describe('server frames', () => {
  for (const s of NET.server) {
    it(`reads ${s.name}`, () => {
      expect(parseServerFrame(bytes(s.hex))).toEqual(revive(s.frame));
    });
  }

  it('reads real event frames with bin reveals and the clock', () => {
    const frames = NET.matches[0]!.frames.map((hex) => parseServerFrame(bytes(hex)));
    const dice = frames.find((f) => f?.t === 'event' && f.k === 'dice');
    expect(dice?.t).toBe('event');
    if (dice?.t === 'event' && dice.k === 'dice') {
      expect(dice.p.reveal0).toBeInstanceOf(Uint8Array);
      expect(dice.p.reveal0.length).toBe(32);
    }
    expect(frames.every((f) => f?.t === 'event')).toBe(true);
  });

  it('counts the time reserve into the deadline of the same decisions as the server', () => {
    expect([...RESERVE_PHASES].sort()).toEqual(NET.reserve_decisions);
  });

  it('ignores what is not a server frame', () => {
    const junk = [
      new Uint8Array([0xc1]),
      encodeFrame([1, 2]),
      encodeFrame({ t: 'hello', p: {} }),
      encodeFrame({ t: 'ack' }),
      encodeFrame({ t: 'event', v: 'x', k: 'dice', p: {}, n: null }),
      encodeFrame({ t: 'event', v: 3, k: 'dice', p: {}, n: 7 }),
    ];
    for (const j of junk) expect(parseServerFrame(j)).toBeNull();
  });
});
