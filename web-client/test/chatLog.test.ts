import { describe, expect, it } from 'vitest';
import { decodeFrame } from '../src/net/codec';
import { ChatLog } from '../src/net/chatLog';
import type { ChatLine, ChatRoom } from '../src/net/protocol';

const line = (room: ChatRoom, n: number, text = `line ${n}`): ChatLine => ({ room, n, seat: room === 'players' ? 0 : null, name: 'Ann', account: false, text, t: 1 });

function log() {
  const sent: unknown[] = [];
  let now = 0;
  const chat = new ChatLog((f) => sent.push(decodeFrame(f)), () => now);
  return { chat, sent, tick: (ms: number) => (now += ms) };
}

describe('ChatLog', () => {
  it('asks each readable room for its history on welcome, from the last line held', () => {
    const { chat, sent } = log();
    chat.welcomed(0, false);
    expect(sent).toEqual([{ t: 'chat_sync', p: { room: 'players', after: 0 } }]);
    chat.receive(line('players', 1));
    chat.receive(line('players', 2));
    sent.length = 0;
    chat.welcomed(0, true); // a reconnect after the match ended: the spectators' room too
    expect(sent).toEqual([
      { t: 'chat_sync', p: { room: 'players', after: 2 } },
      { t: 'chat_sync', p: { room: 'spectators', after: 0 } },
    ]);
  });

  it('ignores duplicates, and asks once per gap', () => {
    const { chat, sent } = log();
    chat.welcomed(null, false);
    sent.length = 0;
    chat.receive(line('spectators', 1));
    chat.receive(line('spectators', 1));
    chat.receive(line('spectators', 3));
    chat.receive(line('spectators', 4));
    expect(sent).toEqual([{ t: 'chat_sync', p: { room: 'spectators', after: 1 } }]);
    chat.receive(line('spectators', 2));
    expect(chat.list('spectators').map((l) => l.n)).toEqual([1, 2, 3, 4]);
    expect(chat.canRead('players')).toBe(false);
  });

  it('sends trimmed plain text to its own room and shows a refusal of it', () => {
    const { chat, sent, tick } = log();
    chat.welcomed(1, false);
    sent.length = 0;
    expect(chat.say('   ', null)).toBe(false);
    expect(chat.say('  <b>hi</b> ', 'ignored')).toBe(true);
    expect(sent).toEqual([{ t: 'chat_send', p: { room: 'players', text: '<b>hi</b>', name: 'ignored' } }]);
    chat.refused('bad_frame', 'not a frame'); // a seq-less reject that is not about chat
    expect(chat.refusal).toBe(null);
    chat.refused('wrong_phase', 'already said hello');
    expect(chat.refusal).toBe(null);
    chat.refused('rate_limited', 'one line every 2 s');
    const words = 'Too many at once: wait a moment and try again. (one line every 2 s)';
    expect(chat.refusal).toBe(words);
    tick(10_000);
    chat.refused('rate_limited', 'not about chat'); // long after our last line: not ours
    expect(chat.refusal).toBe(words);
    chat.say('x'.repeat(250), null);
    expect(chat.refusal).toBe(null);
    expect((sent[1] as { p: { text: string } }).p.text).toHaveLength(200);
  });

  it('lets the players read the spectators once the match is over', () => {
    const { chat, sent } = log();
    chat.welcomed(0, false);
    expect(chat.canRead('spectators')).toBe(false);
    sent.length = 0;
    chat.matchOver();
    chat.matchOver();
    expect(chat.canRead('spectators')).toBe(true);
    expect(sent).toEqual([{ t: 'chat_sync', p: { room: 'spectators', after: 0 } }]);
  });
});
