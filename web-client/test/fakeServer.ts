/** A hand-driven environment for the network layer: manual clock and timers, fake sockets. */

import { decodeFrame, encodeFrame } from '../src/net/codec';
import type { Env, SocketLike } from '../src/net/connection';

export class FakeSocket implements SocketLike {
  binaryType = 'blob';
  readonly sent: Record<string, unknown>[] = [];
  closed: { code?: number; reason?: string } | null = null;
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(readonly url: string) {}

  send(data: Uint8Array): void {
    const frame = decodeFrame(data) as Record<string, unknown>;
    this.sent.push(frame);
  }

  close(code?: number, reason?: string): void {
    this.closed = { code, reason };
  }

  // ---- the server's side ----
  open(): void {
    this.onopen?.({});
  }

  deliver(frame: unknown): void {
    const bytes = frame instanceof Uint8Array ? frame : encodeFrame(frame);
    // Like a browser with binaryType 'arraybuffer'.
    const copy = bytes.slice();
    this.onmessage?.({ data: copy.buffer });
  }

  drop(code = 1006, reason = ''): void {
    this.onclose?.({ code, reason });
  }

  /** Frames sent of type `t`. */
  of(t: string): Record<string, unknown>[] {
    return this.sent.filter((f) => f.t === t);
  }
}

export class FakeEnv implements Env {
  time = 1_767_225_600_000;
  readonly sockets: FakeSocket[] = [];
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  rand = 0.5;

  socket(url: string): SocketLike {
    const s = new FakeSocket(url);
    this.sockets.push(s);
    return s;
  }

  now(): number {
    return this.time;
  }

  random(): number {
    return this.rand;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.time + ms, fn, id });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Advance the clock, running due timers in order. */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = end;
  }

  get last(): FakeSocket {
    return this.sockets[this.sockets.length - 1]!;
  }
}

/** Let promises (WebCrypto, chain building) and queued microtasks run for a while. */
export async function settle(rounds = 10): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 5));
}
