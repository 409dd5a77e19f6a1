/**
 * A signed-in player's notices as they happen: one WebSocket to `/ws/notices` for the page
 * (docs/friends.md, "Notifications": first `{unread}`, then each new notice as stored). The
 * socket is reopened after a drop (1 s, doubling to 30 s); a page without a session (4401) or
 * refused for its origin stops. Listeners hear the unread count and each new notice.
 */

import type { Notice } from './friendsApi';

export type NoticeEvent = { readonly unread: number; readonly notice: Notice | null };

/** The notices socket's URL (same host as the page). */
export function noticesUrl(loc: Location = location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws/notices`;
}

const FINAL = new Set([4401, 1008]);
const FIRST_RETRY_MS = 1000;
const LAST_RETRY_MS = 30_000;

export class NoticeFeed {
  unread = 0;
  private ws: WebSocket | null = null;
  private retryMs = FIRST_RETRY_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private readonly listeners = new Set<(e: NoticeEvent) => void>();

  constructor(
    private readonly url = noticesUrl(),
    private readonly open: (url: string) => WebSocket = (u) => new WebSocket(u),
  ) {}

  listen(fn: (e: NoticeEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  start(): void {
    if (this.ws || this.stopped) return;
    const ws = this.open(this.url);
    this.ws = ws;
    ws.addEventListener('message', (e) => this.receive(e.data));
    ws.addEventListener('close', (e) => {
      this.ws = null;
      if (this.stopped || FINAL.has(e.code)) return;
      this.timer = setTimeout(() => this.start(), this.retryMs);
      this.retryMs = Math.min(LAST_RETRY_MS, this.retryMs * 2);
    });
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close();
  }

  /** Reads from elsewhere (the notices page marked them read): the count to show. */
  setUnread(n: number): void {
    this.unread = n;
    this.emit(null);
  }

  private receive(data: unknown): void {
    if (typeof data !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (!message || typeof message !== 'object') return;
    this.retryMs = FIRST_RETRY_MS;
    const m = message as Record<string, unknown>;
    if (typeof m.unread === 'number' && !('kind' in m)) {
      this.unread = m.unread;
      this.emit(null);
    } else if (typeof m.kind === 'string' && typeof m.text === 'string') {
      this.unread += 1;
      this.emit(m as unknown as Notice);
    }
  }

  private emit(notice: Notice | null): void {
    for (const fn of this.listeners) fn({ unread: this.unread, notice });
  }
}

let shared: NoticeFeed | null = null;

/** The page's one feed (opened on first use). */
export function noticeFeed(): NoticeFeed {
  if (!shared) {
    shared = new NoticeFeed();
    shared.start();
  }
  return shared;
}
