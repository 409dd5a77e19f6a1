/**
 * The chat rooms of one match as this connection sees them (docs/protocol.md, "Chat"): lines
 * kept by number, duplicates ignored, a skipped number (or a new connection) answered by
 * `chat_sync` from the last line held. Pure bookkeeping: frames go out through `send`.
 */

import { refusalText } from './refusals';
import { type ChatLine, type ChatRoom, type Seat, chatSend, chatSync } from './protocol';

/** The codes of a refused `chat_send` (server/players/chat.py). */
const CHAT_REFUSALS = new Set(['rate_limited', 'not_a_player', 'forbidden', 'retry_later']);

export class ChatLog {
  private readonly lines: Record<ChatRoom, Map<number, ChatLine>> = { players: new Map(), spectators: new Map() };
  /** The highest number held with every line before it. */
  private readonly last: Record<ChatRoom, number> = { players: 0, spectators: 0 };
  /** The `after` of the last sync asked for each room (one ask per gap). */
  private readonly asked: Record<ChatRoom, number> = { players: -1, spectators: -1 };
  private readonly readable = new Set<ChatRoom>();
  seat: Seat | null = null;
  /** The server's last refusal of a line of ours (rate limit...), shown by the panel. */
  refusal: string | null = null;
  private sentAt = -Infinity;
  /** Bumped on every change: the panel re-renders when it moves. */
  revision = 0;

  constructor(
    private readonly send: (frame: Uint8Array) => void,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** A (re)connection was welcomed: ask each readable room for what this page lacks. */
  welcomed(seat: Seat | null, over: boolean): void {
    this.seat = seat;
    this.readable.clear();
    if (seat === null) this.readable.add('spectators');
    else {
      this.readable.add('players');
      if (over) this.readable.add('spectators');
    }
    for (const room of this.readable) this.sync(room, true);
  }

  /** The match is over: the players may now read the spectators' room. */
  matchOver(): void {
    if (this.seat === null || this.readable.has('spectators')) return;
    this.readable.add('spectators');
    this.sync('spectators', true);
  }

  canRead(room: ChatRoom): boolean {
    return this.readable.has(room);
  }

  /** The room this connection writes in: players for a seat, spectators for a spectator. */
  get ownRoom(): ChatRoom {
    return this.seat === null ? 'spectators' : 'players';
  }

  receive(line: ChatLine): void {
    const room = line.room;
    if (line.n <= this.last[room] || this.lines[room].has(line.n)) return;
    this.lines[room].set(line.n, line);
    while (this.lines[room].has(this.last[room] + 1)) this.last[room] += 1;
    if (this.lines[room].size > this.last[room]) this.sync(room, false); // a line was skipped
    this.revision += 1;
  }

  /**
   * A reject without seq: ours if its code is one a `chat_send` gets (docs/protocol.md, "Chat")
   * and we sent a line a moment ago. Other seq-less rejects (a frame that could not be read, a
   * second hello) are not about chat.
   */
  refused(code: string, message: string): void {
    if (CHAT_REFUSALS.has(code) && this.now() - this.sentAt < 5000) {
      // A muted or banned account's line is refused `forbidden`, the message saying which
      // (docs/moderation.md): the words are those of the HTTP code of the same name.
      const sanction = code === 'forbidden' ? /^(muted|banned)\b/.exec(message)?.[1] : undefined;
      this.refusal = refusalText(sanction ?? code, message);
      this.revision += 1;
    }
  }

  say(text: string, name: string | null): boolean {
    const line = text.trim();
    if (!line) return false;
    this.refusal = null;
    this.sentAt = this.now();
    this.send(chatSend(this.ownRoom, [...line].slice(0, 200).join(''), name));
    return true;
  }

  list(room: ChatRoom): ChatLine[] {
    return [...this.lines[room].values()].sort((a, b) => a.n - b.n);
  }

  private sync(room: ChatRoom, force: boolean): void {
    if (!force && this.asked[room] === this.last[room]) return;
    this.asked[room] = this.last[room];
    this.send(chatSync(room, this.last[room]));
  }
}
