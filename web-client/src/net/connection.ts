/**
 * One WebSocket to the server that comes back by itself: after a drop it reconnects when its
 * owner says (the seat core decides the pause, or that reconnecting cannot help: docs/protocol.md,
 * "Client behaviour: reconnecting and retrying"). A silent socket (no frame for a while, though
 * pings are sent) is closed and replaced.
 *
 * The socket, timers and randomness come from an environment so that tests can drive it.
 */

export interface SocketLike {
  binaryType: string;
  send(data: Uint8Array): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface Env {
  socket(url: string): SocketLike;
  now(): number;
  random(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const browserEnv: Env = {
  socket: (url) => new WebSocket(url) as unknown as SocketLike,
  now: () => Date.now(),
  random: () => Math.random(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

/** connecting: opening or waiting to reopen; online: open; closed: ended for good. */
export type LinkState = 'connecting' | 'online' | 'closed';

export interface ConnectionHandlers {
  /** The socket opened: send the first frame. */
  open(): void;
  message(frame: Uint8Array): void;
  /** The state changed (or a retry was scheduled). */
  changed(): void;
  /** Send something the server answers (a ping): the line has been quiet for long. */
  probe?(): void;
  /**
   * The socket closed with `code` (1006: dropped, refused or a failed handshake): the owner's
   * decision (the seat core's) — reconnect after this many ms, or null: never.
   */
  lost(code: number): number | null;
}

/** A socket with no frame for this long is probed (the session pings every 10 s) ... */
export const SILENCE_MS = 25_000;
/** ... and presumed dead when the probe gets no answer either. */
export const PROBE_MS = 5_000;

export class Connection {
  state: LinkState = 'connecting';
  /** Failed or dropped attempts since the last healthy session. */
  attempts = 0;
  /** When the next attempt starts (env.now() ms), while waiting. */
  retryAt: number | null = null;
  /** How the last socket closed. */
  lastClose: { code: number; reason: string } | null = null;
  private socket: SocketLike | null = null;
  private retryTimer: unknown = null;
  private silenceTimer: unknown = null;
  private lastHeard = 0;
  private stopped = false;

  constructor(
    private readonly url: string,
    private readonly env: Env,
    private readonly handlers: ConnectionHandlers,
  ) {}

  start(): void {
    this.stopped = false;
    this.open();
  }

  /** Close for good (page left, match over). */
  stop(code = 1000, reason = 'bye'): void {
    this.stopped = true;
    this.clearTimers();
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onclose = null;
      socket.close(code, reason);
    }
    this.setState('closed');
  }

  /** Skip the wait and try now (the browser says it is online again, or the user asked). */
  retryNow(): void {
    if (this.stopped || this.socket) return;
    this.open();
  }

  /** The session is healthy (the server welcomed us): attempts count from 0 again. */
  healthy(): void {
    this.attempts = 0;
  }

  send(frame: Uint8Array): boolean {
    if (this.state !== 'online' || !this.socket) return false;
    try {
      this.socket.send(frame);
      return true;
    } catch {
      return false;
    }
  }

  /** Drop the socket and reconnect (tests and the silence watchdog). */
  drop(): void {
    const socket = this.socket;
    if (!socket) return;
    this.detach(socket);
    try {
      socket.close(1000, 'reconnecting');
    } catch {
      // already closing
    }
    this.lost({ code: 1006, reason: 'dropped by the client' });
  }

  private open(): void {
    this.clearTimers();
    this.retryAt = null;
    this.setState('connecting');
    let socket: SocketLike;
    try {
      socket = this.env.socket(this.url);
    } catch {
      this.lost({ code: 1006, reason: 'could not open' });
      return;
    }
    this.socket = socket;
    socket.binaryType = 'arraybuffer';
    socket.onopen = () => {
      if (this.socket !== socket) return;
      this.setState('online');
      this.watch();
      this.handlers.open();
    };
    socket.onmessage = (ev) => {
      if (this.socket !== socket) return;
      this.watch();
      const data = ev.data;
      if (data instanceof ArrayBuffer) this.handlers.message(new Uint8Array(data));
      else if (data instanceof Uint8Array) this.handlers.message(data);
    };
    socket.onclose = (ev) => {
      if (this.socket !== socket) return;
      this.detach(socket);
      this.lost({ code: ev.code, reason: ev.reason });
    };
    socket.onerror = () => {
      // a close event follows
    };
  }

  private detach(socket: SocketLike): void {
    socket.onopen = socket.onmessage = socket.onclose = socket.onerror = null;
    if (this.socket === socket) this.socket = null;
  }

  private lost(close: { code: number; reason: string }): void {
    this.clearTimers();
    this.lastClose = close;
    const delay = this.stopped ? null : this.handlers.lost(close.code);
    if (delay === null) {
      this.stopped = true;
      this.setState('closed');
      return;
    }
    this.attempts++;
    this.retryAt = this.env.now() + delay;
    this.retryTimer = this.env.setTimeout(() => this.open(), delay);
    this.setState('connecting');
  }

  private watch(): void {
    this.lastHeard = this.env.now();
    if (this.silenceTimer !== null) this.env.clearTimeout(this.silenceTimer);
    this.silenceTimer = this.env.setTimeout(() => this.silent(), SILENCE_MS);
  }

  /**
   * Nothing heard for a while. Timers of a background tab may fire late, so ask first: a
   * probe (the session's ping) gets an answer within a few seconds from a live server.
   */
  private silent(): void {
    this.silenceTimer = null;
    if (this.env.now() - this.lastHeard < SILENCE_MS) return this.rearm();
    this.handlers.probe?.();
    this.silenceTimer = this.env.setTimeout(() => {
      this.silenceTimer = null;
      if (this.env.now() - this.lastHeard >= SILENCE_MS) this.drop();
      else this.rearm();
    }, PROBE_MS);
  }

  private rearm(): void {
    const wait = Math.max(1000, SILENCE_MS - (this.env.now() - this.lastHeard));
    this.silenceTimer = this.env.setTimeout(() => this.silent(), wait);
  }

  private clearTimers(): void {
    if (this.retryTimer !== null) this.env.clearTimeout(this.retryTimer);
    if (this.silenceTimer !== null) this.env.clearTimeout(this.silenceTimer);
    this.retryTimer = this.silenceTimer = null;
  }

  private setState(state: LinkState): void {
    this.state = state;
    this.handlers.changed();
  }
}
