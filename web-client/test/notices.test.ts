import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { NoticeFeed, type NoticeEvent } from '../src/net/notices';

/** A WebSocket that the test drives: messages in, close codes. */
class FakeSocket extends EventTarget {
  closed = false;
  constructor(readonly url: string) {
    super();
  }
  receive(data: unknown): void {
    this.dispatchEvent(Object.assign(new Event('message'), { data }));
  }
  drop(code: number): void {
    this.dispatchEvent(Object.assign(new Event('close'), { code }));
  }
  close(): void {
    this.closed = true;
  }
}

describe('the notices feed', () => {
  let sockets: FakeSocket[];
  let feed: NoticeFeed;
  let heard: NoticeEvent[];

  beforeEach(() => {
    vi.useFakeTimers();
    sockets = [];
    feed = new NoticeFeed('ws://x/ws/notices', (u) => {
      const s = new FakeSocket(u);
      sockets.push(s);
      return s as unknown as WebSocket;
    });
    heard = [];
    feed.listen((e) => heard.push(e));
    feed.start();
  });
  afterEach(() => vi.useRealTimers());

  const notice = { id: 8, kind: 'challenge', at: 1, text: '<b>ann</b> challenges you', page: '/friends', data: { match: 'm' } };

  it('takes the unread count first, then counts each notice', () => {
    sockets[0]!.receive(JSON.stringify({ unread: 3 }));
    sockets[0]!.receive(JSON.stringify(notice));
    expect(heard.map((e) => e.unread)).toEqual([3, 4]);
    expect(heard[1]!.notice?.text).toBe('<b>ann</b> challenges you');
    expect(feed.unread).toBe(4);
  });

  it('ignores what is not a notice (binary, broken JSON, other shapes)', () => {
    sockets[0]!.receive(new Uint8Array([1, 2]));
    sockets[0]!.receive('{not json');
    sockets[0]!.receive(JSON.stringify([1, 2]));
    sockets[0]!.receive(JSON.stringify({ kind: 7 }));
    expect(heard).toEqual([]);
    sockets[0]!.receive(JSON.stringify({ unread: 1 }));
    expect(heard).toHaveLength(1);
  });

  it('reopens after a drop, waiting longer each time, and stops without a session', () => {
    sockets[0]!.drop(1006);
    expect(sockets).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2);
    sockets[1]!.drop(1006);
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(2); // 2 s now
    vi.advanceTimersByTime(1000);
    expect(sockets).toHaveLength(3);
    sockets[2]!.drop(4401); // no session: nothing to reopen for
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(3);
  });

  it('stop closes the socket and reopens nothing', () => {
    feed.stop();
    expect(sockets[0]!.closed).toBe(true);
    sockets[0]!.drop(1000);
    vi.advanceTimersByTime(60_000);
    expect(sockets).toHaveLength(1);
  });

  it('setUnread tells the listeners the count read elsewhere', () => {
    feed.setUnread(0);
    expect(heard).toEqual([{ unread: 0, notice: null }]);
  });
});
