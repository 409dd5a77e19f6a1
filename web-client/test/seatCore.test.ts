/**
 * The TypeScript seat core replays the conversations the Python core had with the real match
 * machine (fixtures/seat-conversations.json, written by tools/make_seat_fixture.py): fed the
 * same inputs, it must send the same frames, byte for byte, and return the same answers,
 * wakes, reconnects, chain requests, notices and end. tests/web/test_seat_fixture.py checks the
 * Python core on the same file.
 */

import { describe, expect, it } from 'vitest';
import fixture from './fixtures/seat-conversations.json';
import { OwnChain, fromHex, toHex } from '../src/fairdice';
import { decodeFrame } from '../src/net/codec';
import { type Action, type Seat, type ServerFrame, actionFrame, echo, hello, parseServerFrame, resync } from '../src/net/protocol';
import { DEAD_LINK_MS, type Effect, type Held, SeatCore, definitive } from '../src/net/seatCore';

interface Step {
  in: string;
  now?: number;
  frame?: string;
  code?: number | null;
  game?: number;
  held?: { secret: string; length: number; from: number; n: number } | null;
  ticket?: number;
  out: Record<string, unknown>[];
}

interface Conversation {
  name: string;
  what: string;
  match_id: string;
  token: string | null;
  config: {
    chainLength: number;
    autoCommit: boolean;
    autoReveal: boolean;
    autoRoll: boolean;
    nextGameShare: number | null;
    firstLastV: number | null;
    reconnectCap: number;
    deadLink: number | null;
  };
  steps: Step[];
}

const FIXTURE = fixture as unknown as {
  jitter: number[];
  conversations: Conversation[];
  closes: [number | null, boolean, string | null][];
};

/** An effect as the fixture writes it (times in seconds, frames as hex). */
function rendered(c: Conversation, e: Effect): Record<string, unknown> {
  switch (e.t) {
    case 'send': {
      const f = e.frame;
      const bytes =
        f.t === 'hello' ? hello(c.match_id, c.token, f.lastV, null) : f.t === 'echo' ? echo(f.at) : f.t === 'resync' ? resync(f.lastV) : actionFrame(f.action, f.seq);
      return { send: toHex(bytes) };
    }
    case 'answer':
      return { answer: e.ticket, seq: e.seq, ok: e.reply.ok, code: e.reply.ok ? null : e.reply.code, local: e.local, kind: e.kind };
    case 'wake':
      return { wake: e.at / 1000 };
    case 'connect':
      return { connect: e.at / 1000 };
    case 'watch':
      return { watch: e.at / 1000 };
    case 'drop':
      return { drop: true };
    case 'needChain':
      return { need: e.game, purpose: e.purpose, from: e.fromK, length: e.length, n: e.n };
    case 'notice':
      return { notice: e.kind };
    case 'ended':
      return { ended: e.reason, code: e.code };
  }
}

/** Times compare within a nanosecond (seconds in Python, milliseconds here). */
function same(actual: Record<string, unknown>[], expected: Record<string, unknown>[]): boolean {
  if (actual.length !== expected.length) return false;
  return actual.every((a, i) => {
    const b = expected[i]!;
    for (const k of ['wake', 'connect', 'watch']) {
      if (k in a && k in b) return Math.abs((a[k] as number) - (b[k] as number)) < 1e-9;
    }
    return JSON.stringify(a) === JSON.stringify(b);
  });
}

async function replay(c: Conversation): Promise<number> {
  let i = 0;
  const jitter = () => FIXTURE.jitter[i++ % FIXTURE.jitter.length]!;
  const cfg = c.config;
  const core = new SeatCore(
    c.match_id,
    c.token !== null,
    { ...cfg, reconnectCapMs: cfg.reconnectCap * 1000, deadLinkMs: cfg.deadLink === null ? null : cfg.deadLink * 1000 },
    jitter,
  );
  let sends = 0;
  for (const [n, step] of c.steps.entries()) {
    const now = (step.now ?? 0) * 1000;
    let result: Effect[] | { ticket: number; effects: Effect[] };
    switch (step.in) {
      case 'opened':
        result = core.opened(now);
        break;
      case 'closed':
        result = core.closed(step.code ?? null, now);
        break;
      case 'receive':
        result = core.receive(parseServerFrame(fromHex(step.frame!))!, now);
        break;
      case 'act': {
        const frame = decodeFrame(fromHex(step.frame!)) as { t: Action['t']; p: Record<string, unknown> };
        result = core.act({ t: frame.t, p: frame.p }, now);
        break;
      }
      case 'roll':
        result = core.roll(now);
        break;
      case 'next_game':
        result = core.nextGame(now);
        break;
      case 'tick':
        result = core.tick(now);
        break;
      case 'silent':
        result = core.silent(now);
        break;
      case 'chain_ready': {
        const h = step.held!;
        let held: Held | null = null;
        if (h !== null) {
          const ctx = { matchId: fromHex(c.match_id), gameNo: step.game!, seat: (core.seat ?? 0) as Seat };
          held = { chain: await OwnChain.create(ctx, fromHex(h.secret), h.length, h.from), n: h.n };
        }
        result = core.chainReady(step.game!, held, now);
        break;
      }
      default:
        throw new Error(`unknown input ${step.in}`);
    }
    const effects = Array.isArray(result) ? result : result.effects;
    if (!Array.isArray(result)) expect(result.ticket, `${c.name} step ${n}: ticket`).toBe(step.ticket);
    const actual = effects.map((e) => rendered(c, e));
    if (!same(actual, step.out)) {
      expect(actual, `${c.name} step ${n} (${step.in})`).toEqual(step.out);
    }
    sends += actual.filter((a) => 'send' in a).length;
  }
  return sends;
}

describe('the TypeScript seat core decides as the Python core does', () => {
  it('the fixture holds every kind of conversation', () => {
    expect(FIXTURE.conversations.map((c) => c.name)).toEqual([
      'single_game',
      'match_with_cube',
      'outage',
      'drops',
      'frozen_server',
      'crashed_server',
      'new_device',
      'reload_after_recommit',
      'catch_up',
      'recommit_limit',
      'recommit_refused',
      'owed_reveal',
      'withdrawn',
      'answered_while_sending',
      'old_device',
      'run_out',
      'correspondence',
      'correspondence_visit_5',
      'correspondence_visit_18',
    ]);
  });

  it('drops a silent link after the same time', () => {
    const frozen = FIXTURE.conversations.find((c) => c.name === 'frozen_server')!;
    expect(frozen.config.deadLink! * 1000).toBe(DEAD_LINK_MS);
  });

  it('ends for good on the same close codes', () => {
    expect(FIXTURE.closes.length).toBeGreaterThan(30);
    for (const [code, over, reason] of FIXTURE.closes) {
      expect([code, over, definitive(code, over)]).toEqual([code, over, reason]);
    }
  });

  for (const c of FIXTURE.conversations) {
    it(`${c.name}: ${c.what}`, async () => {
      expect(await replay(c)).toBeGreaterThan(0); // each step compared inside
    });
  }
});

describe('a link that hears nothing from the server is dropped', () => {
  const probe = (t: number) => ({ t: 'probe', p: { t } }) as unknown as ServerFrame;
  const core = () => new SeatCore('00'.repeat(16), true, { deadLinkMs: DEAD_LINK_MS });

  it('keeps a link that hears the probes, however late its timer fires', () => {
    const c = core();
    expect(c.opened(0)).toContainEqual({ t: 'watch', at: DEAD_LINK_MS });
    for (let now = 2000; now <= 60_000; now += 2000) c.receive(probe(now), now);
    // The timer of a background tab fires 54 s late: the last frame came 0 s ago.
    expect(c.silent(60_000)).toEqual([{ t: 'watch', at: 60_000 + DEAD_LINK_MS }]);
    expect(c.silent(60_000 + DEAD_LINK_MS - 1)).toEqual([{ t: 'watch', at: 60_000 + DEAD_LINK_MS }]);
  });

  it('drops it 6 s after the last frame, and before the welcome 6 s after opening', () => {
    const c = core();
    c.opened(0);
    c.receive(probe(1), 2000);
    expect(c.silent(7999)).toEqual([{ t: 'watch', at: 8000 }]);
    expect(c.silent(8000)).toEqual([{ t: 'drop' }]);
    expect(c.silent(9000)).toEqual([]); // dropped: nothing more to watch
    expect(c.closed(null, 8000)).toEqual([{ t: 'connect', at: 8000 + 50 * (0.5 + 0.5) }]);
    expect(c.opened(8050)).toContainEqual({ t: 'watch', at: 8050 + DEAD_LINK_MS });
    expect(c.silent(8050 + DEAD_LINK_MS)).toEqual([{ t: 'drop' }]); // no welcome either
  });

  it('never drops without deadLinkMs (the default)', () => {
    const c = new SeatCore('00'.repeat(16), true);
    expect(c.opened(0).some((e) => e.t === 'watch')).toBe(false);
    expect(c.silent(1e9)).toEqual([]);
  });
});
