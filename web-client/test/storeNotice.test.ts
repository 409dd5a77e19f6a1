import { describe, expect, it } from 'vitest';
import { parseServerFrame } from '../src/net/protocol';
import { MatchSession } from '../src/net/session';
import { memoryStorage } from '../src/net/storage';
import { encodeFrame } from '../src/net/codec';
import { FakeEnv } from './fakeServer';

const MATCH = '00112233445566778899aabbccddeeff';
const T = 1_767_225_600_000;

function spectator() {
  const env = new FakeEnv();
  const s = new MatchSession({ matchId: MATCH, seat: null, name: null, url: 'ws://test/ws', env, storage: memoryStorage(), chainLength: 16 });
  s.start();
  env.last.open();
  env.last.deliver({ t: 'welcome', p: { role: 'spectator', match: MATCH, v: 0, server_time: T, seq: null } });
  return { s, env };
}

describe('the store notice (docs/protocol.md, "When the server cannot reach its store")', () => {
  it('parses degraded and restored frames', () => {
    expect(parseServerFrame(encodeFrame({ t: 'degraded', p: { since: T } }))).toEqual({ t: 'degraded', p: { since: T } });
    expect(parseServerFrame(encodeFrame({ t: 'restored', p: { since: T } }))).toEqual({ t: 'restored', p: { since: T } });
  });

  it('is in trouble from degraded until restored', () => {
    const { s, env } = spectator();
    expect(s.storeTrouble).toBe(false);
    env.last.deliver({ t: 'degraded', p: { since: T } });
    expect(s.storeTrouble).toBe(true);
    env.last.deliver({ t: 'restored', p: { since: T } });
    expect(s.storeTrouble).toBe(false);
  });

  it('stays in trouble through the 1013 and its reconnections, until a welcome', () => {
    const { s, env } = spectator();
    env.last.deliver({ t: 'degraded', p: { since: T } });
    env.last.deliver({ t: 'error', p: { code: 'retry_later', message: 'this server cannot reach its store: reconnect' } });
    env.last.drop(1013, 'this server cannot reach its store: reconnect');
    env.advance(1_000);
    env.last.open();
    expect(s.storeTrouble).toBe(true);
    env.last.deliver({ t: 'welcome', p: { role: 'spectator', match: MATCH, v: 0, server_time: T, seq: null } });
    expect(s.storeTrouble).toBe(false);
  });
});
