/**
 * The seat core: one seat's (or a spectator's) side of a match as a pure state machine — the
 * TypeScript twin of `protocol/client/seat.py`, making the same decisions (docs/protocol.md,
 * "Client behaviour: reconnecting and retrying"):
 *
 * - numbered actions survive reconnects: an action unanswered when the link drops is sent
 *   again, with its seq, after the next welcome unless `welcome.seq` says it was applied; one is
 *   in flight at a time: the next is sent once the previous one is answered;
 * - `rate_limited` / `retry_later` are not answers: the same action is sent again after a capped
 *   back-off with jitter for as long as the match is live (no horizon); an automatic action is
 *   withdrawn only when the match no longer wants it (the clock moved on, the match ended);
 * - reconnecting never gives up; only definitive answers end it (match over, 4003, 4001, 4004,
 *   a refused protocol: 4005, 4000, 1003, 1008, 1009);
 * - automatic actions act on the present only: after the welcome, once caught up with the
 *   version it announced, never in the middle of a transition. Commit (between games after
 *   `nextGameShare` of the commit clock or when asked), reveal, and with `autoRoll` the roll of
 *   a forced decision (no cube decision possible);
 * - correspondence (docs/fairness.md, section 15): the seat deposits ahead what it may, so that
 *   the match never waits for it: its reveal of the opponent's next roll while the opponent
 *   decides, and in a match its commitment to the next game and the reveals that game's
 *   roll-off asks for (`rolloff_ahead`; after a snapshot, found by trying from roll 1);
 * - dead links (with `deadLinkMs`; docs/protocol.md, "Slow readers and dead links"): the server
 *   probes a welcomed connection every 2 s, so a link that carried no frame for `DEAD_LINK_MS`
 *   (from the last frame received, or from `opened` before the welcome) is dropped (`drop`) and
 *   reconnected. `silent(now)`, called when a `watch` is due, decides on the time elapsed since
 *   the last frame, not on how often its timer fired (background tabs fire timers late);
 * - a seat lacking its chain re-commits between rolls (docs/fairness.md, section 7), once per
 *   roll index, at most 3 times a game; later actions are held back until the server answered.
 *
 * No I/O, no timers, no clock reads, no randomness of its own (`random` is given): inputs are
 * method calls with the time `now` (ms); each returns effects for the adapter (session.ts).
 * One difference from the Python core: roll verification stays in the adapter
 * (`LiveVerifier`), because the browser's SHA-256 (WebCrypto) is asynchronous.
 */

import { MAX_RECOMMITMENTS } from '../fairdice/scheme';
import { constantTimeEqual } from '../fairdice/bytes';
import { type Action, type ClockPhase, type EventFrame, RESERVE_PHASES, type Seat, type ServerFrame } from './protocol';
import { Tracker } from './tracker';

export const RECONNECT_FIRST_MS = 50;
export const RECONNECT_CAP_MS = 2000;
export const RESTART_SPREAD_MS = 500;
export const RESTART_RETRY_MS = 250;
export const RETRY_FIRST_MS = 50;
export const RETRY_CAP_MS = 2000;
/** A link that heard no frame from the server for this long is dropped (3 missed probes). */
export const DEAD_LINK_MS = 6000;

/** Clock phases between two rolls (a player's decisions): a re-commitment is accepted then. */
export const BETWEEN_ROLLS: ReadonlySet<ClockPhase> = RESERVE_PHASES;
export const ROLLING: ReadonlySet<ClockPhase> = new Set(['rolloff', 'reveal']);
const TRY_AGAIN: ReadonlySet<string> = new Set(['rate_limited', 'retry_later']);
/** Actions after which the opponent rolls and this seat must reveal. */
const HANDS_OVER: ReadonlySet<string> = new Set(['move', 'take', 'beaver']);

export type EndReason = 'match_over' | 'replaced' | 'auth_failed' | 'not_found' | 'refused' | 'closed';

const DEFINITIVE: ReadonlyMap<number, EndReason> = new Map([
  [4003, 'replaced'],
  [4001, 'auth_failed'],
  [4004, 'not_found'],
  [4005, 'refused'],
  [4000, 'refused'],
  [1003, 'refused'],
  [1008, 'refused'],
  [1009, 'refused'],
]);

/** The reason to stop for good after a close with `code` (null: dropped), or null: reconnect. */
export function definitive(code: number | null, matchOver = false): EndReason | null {
  if (code !== null && DEFINITIVE.has(code)) return DEFINITIVE.get(code)!;
  return matchOver ? 'match_over' : null;
}

export type NoticeKind = 'chain_renewed' | 'opponent_renewed' | 'cannot_reveal' | 'recommit_limit' | 'recommit_refused';

export type Reply = { readonly ok: true; readonly v: number } | { readonly ok: false; readonly code: string; readonly message: string };

/** A chain of this seat as the adapter holds it (built from a stored secret). */
export interface ChainLike {
  /** What the seat published: s[0], or s'[from − 1] after a re-commitment. */
  readonly commitment: Uint8Array;
  readonly length: number;
  readonly from: number;
  reveal(k: number): Uint8Array;
}

export interface Held {
  readonly chain: ChainLike;
  /** The seat's re-commitment count with this chain (0: the game's commitment). */
  readonly n: number;
}

export type NeedPurpose = 'load' | 'commit' | 'recommit';

export type Effect =
  | { readonly t: 'send'; readonly frame: OutFrame }
  | {
      readonly t: 'answer';
      /** What act(), roll(), ... returned for the action. */
      readonly ticket: number;
      /** Its seq, once it was sent (null: never sent). */
      readonly seq: number | null;
      readonly reply: Reply;
      readonly local: boolean;
      readonly kind: string;
      readonly auto: boolean;
    }
  | { readonly t: 'wake'; readonly at: number }
  | { readonly t: 'connect'; readonly at: number }
  /** Call silent() at `at` (one timer: a later watch replaces it). */
  | { readonly t: 'watch'; readonly at: number }
  /** The link heard nothing for `deadLinkMs`: drop the socket, then call closed() as for any drop. */
  | { readonly t: 'drop' }
  | { readonly t: 'needChain'; readonly game: number; readonly purpose: NeedPurpose; readonly fromK: number; readonly length: number; readonly n: number }
  | { readonly t: 'notice'; readonly kind: NoticeKind; readonly game: number; readonly k: number; readonly text: string; readonly alarm: boolean }
  | { readonly t: 'ended'; readonly reason: EndReason; readonly code: number | null };

/** A frame to send: the hello, an echo, a resync, or an action with its seq. */
export type OutFrame =
  | { readonly t: 'hello'; readonly lastV: number | null }
  | { readonly t: 'echo'; readonly at: number }
  | { readonly t: 'resync'; readonly lastV: number }
  | { readonly t: 'action'; readonly seq: number; readonly action: Action };

export interface SeatConfig {
  chainLength: number;
  autoCommit: boolean;
  autoReveal: boolean;
  autoRoll: boolean;
  /** Between games, commit once this share of the commit clock has passed (null: at once). */
  nextGameShare: number | null;
  /** `hello.last_v` of the first connection: null (a snapshot) or 0 (the whole log). */
  firstLastV: number | null;
  reconnectCapMs: number;
  /** Silence from the server (ms) after which the link is dropped (null: never; the page uses DEAD_LINK_MS). */
  deadLinkMs: number | null;
}

export const DEFAULT_CONFIG: SeatConfig = {
  chainLength: 1024,
  autoCommit: true,
  autoReveal: true,
  autoRoll: false,
  nextGameShare: null,
  firstLastV: null,
  reconnectCapMs: RECONNECT_CAP_MS,
  deadLinkMs: null,
};

type Build = readonly [kind: string, game: number, k: number];

interface Pending {
  readonly ticket: number;
  /** Given when it is first sent (seqs follow the order of sending), then kept. */
  seq: number | null;
  action: Action | null;
  readonly build: Build | null;
  readonly auto: Build | null;
  state: 'unsent' | 'sent' | 'waiting';
  retryAt: number;
  delay: number;
}

const key = (b: Build): string => b.join(':');

export class SeatCore {
  readonly tracker = new Tracker();
  readonly config: SeatConfig;
  seat: Seat | null;
  seq: number;
  welcomes = 0;
  welcomeV: number | null = null;
  welcomed = false;
  ended: { reason: EndReason; code: number | null } | null = null;
  /** Server clock minus `now` (ms), from the welcome. */
  serverOffset = 0;
  /** When the open link last carried a frame (or opened); null: no link open. */
  heard: number | null = null;
  /** The last event applied had no clock: more of the same transition follow. */
  midTransition = false;
  private readonly pending = new Map<number, Pending>();
  private readonly held = new Map<number, Held | null>();
  private readonly asked = new Set<string>();
  private readonly done = new Set<string>();
  private readonly said = new Set<string>();
  private readonly commits = new Map<number, number>();
  private readonly commitReplies = new Map<number, Reply>();
  private nextGameAsked = 0;
  private tickets = 0;
  private reconnectDelay = RECONNECT_FIRST_MS;
  private restarting = false;
  private resyncAsked = -1;
  private ackedRecommit: string | null = null;
  /** Correspondence, after a snapshot: the roll of the next game's roll-off to try to deposit for. */
  private readonly probe = new Map<number, number>();

  constructor(
    readonly matchId: string,
    readonly hasToken: boolean,
    config: Partial<SeatConfig> = {},
    private readonly random: () => number = () => 0.5,
    seat: Seat | null = null,
    seq = 0,
  ) {
    this.config = { ...DEFAULT_CONFIG, ...config };
    this.seat = seat;
    this.seq = seq;
  }

  // ---- connection ----------------------------------------------------------------------------

  opened(now: number): Effect[] {
    this.welcomed = false;
    this.heard = now;
    const lastV = this.welcomes ? this.tracker.version : this.config.firstLastV;
    const out: Effect[] = [{ t: 'send', frame: { t: 'hello', lastV } }];
    if (this.config.deadLinkMs !== null) out.push({ t: 'watch', at: now + this.config.deadLinkMs });
    return out;
  }

  /** A watch is due: drop the link if it really heard nothing for `deadLinkMs`, else watch again. */
  silent(now: number): Effect[] {
    const limit = this.config.deadLinkMs;
    const heard = this.heard;
    if (limit === null || heard === null || this.ended) return [];
    if (now - heard >= limit) {
      this.heard = null;
      return [{ t: 'drop' }];
    }
    return [{ t: 'watch', at: heard + limit }];
  }

  closed(code: number | null, now: number): Effect[] {
    this.welcomed = false;
    this.heard = null;
    this.midTransition = false;
    for (const p of this.pending.values()) if (p.state === 'sent') p.state = 'unsent';
    if (this.ended) return [];
    const reason = definitive(code, this.tracker.over !== null);
    if (reason !== null) return this.end(reason, code);
    let pause: number;
    if (code === 1012 || this.restarting) {
      const first = !this.restarting;
      this.restarting = true;
      pause = first ? RESTART_SPREAD_MS * this.random() : RESTART_RETRY_MS * (0.5 + this.random());
    } else {
      pause = this.reconnectDelay * (0.5 + this.random());
      this.reconnectDelay = Math.min(this.reconnectDelay * 2, this.config.reconnectCapMs);
    }
    return [{ t: 'connect', at: now + pause }];
  }

  stop(): Effect[] {
    return this.ended ? [] : this.end('closed', null);
  }

  private end(reason: EndReason, code: number | null): Effect[] {
    this.ended = { reason, code };
    const out: Effect[] = [{ t: 'ended', reason, code }];
    for (const [ticket, p] of [...this.pending].sort((a, b) => a[0] - b[0])) {
      const reply: Reply = { ok: false, code: 'match_over', message: `not sent: the client ended (${reason})` };
      out.push({ t: 'answer', ticket, seq: p.seq, reply, local: true, kind: kindOf(p), auto: p.auto !== null });
    }
    this.pending.clear();
    return out;
  }

  // ---- receiving -----------------------------------------------------------------------------

  receive(frame: ServerFrame, now: number): Effect[] {
    const out: Effect[] = [];
    this.heard = now;
    switch (frame.t) {
      case 'event':
        this.onEvent(frame, out);
        break;
      case 'ack':
        this.answered(frame.p.seq, { ok: true, v: frame.p.v }, now, out);
        break;
      case 'reject':
        if (frame.p.seq !== null) this.answered(frame.p.seq, { ok: false, code: frame.p.code, message: frame.p.message }, now, out);
        break;
      case 'welcome':
        this.welcome(frame.p, now, out);
        break;
      case 'snapshot':
        if (frame.p.v < this.tracker.version) this.rewound();
        this.tracker.applySnapshot(frame.p.v, frame.p.state);
        this.midTransition = false;
        if (this.tracker.correspondence && this.tracker.settings?.mode === 'match') {
          this.probe.clear();
          this.probe.set(this.tracker.game + 1, 1);
        }
        break;
      case 'probe':
        out.push({ t: 'send', frame: { t: 'echo', at: frame.p.t } });
        break;
      default:
        break;
    }
    this.automate(now, out);
    return this.finish(out);
  }

  private welcome(p: { role: string; v: number; server_time: number; seq: number | null }, now: number, out: Effect[]): void {
    this.serverOffset = p.server_time - now;
    this.welcomes++;
    this.welcomed = true;
    this.welcomeV = p.v;
    this.seat = p.role === 'spectator' ? null : p.role === 'seat0' ? 0 : 1;
    this.reconnectDelay = RECONNECT_FIRST_MS;
    this.restarting = false;
    const applied = p.seq ?? 0;
    this.seq = Math.max(this.seq, applied);
    for (const ticket of [...this.pending.keys()].sort((a, b) => a - b)) {
      const pending = this.pending.get(ticket)!;
      if (pending.seq !== null && pending.seq <= applied) {
        // Applied before the drop: its events tell the rest.
        this.pending.delete(ticket);
        this.answer(out, { ok: true, v: p.v }, false, pending);
      } else {
        pending.state = 'unsent'; // sent again now, retries included
      }
    }
    this.flush(out);
  }

  private onEvent(e: EventFrame, out: Effect[]): void {
    const t = this.tracker;
    if (e.v <= t.version) return; // a duplicate (resume overlap)
    if (t.version && e.v > t.version + 1) {
      t.gaps++;
      if (this.resyncAsked !== t.version) {
        this.resyncAsked = t.version;
        out.push({ t: 'send', frame: { t: 'resync', lastV: t.version } });
      }
      return;
    }
    t.applyEvent(e);
    this.midTransition = e.n === null;
    const live = this.caughtUp;
    if (e.k === 'recommitted') {
      if (live && e.p.seat === this.seat && this.current()) {
        this.say(out, 'chain_renewed', 'New dice chain committed for this device', 0, false);
      } else if (live && e.p.seat !== this.seat) {
        this.say(out, 'opponent_renewed', `Seat ${e.p.seat} committed a new dice chain from roll ${e.p.k}`, e.p.k, false);
      }
    } else if (e.k === 'game_over') {
      this.held.delete(e.p.game); // its secret is of no more use
    }
  }

  private answered(seq: number, reply: Reply, now: number, out: Effect[]): void {
    const p = [...this.pending.values()].find((x) => x.seq === seq);
    if (!p) return;
    if (!reply.ok && TRY_AGAIN.has(reply.code)) {
      // Not an answer: the same action, same seq, again later (no horizon).
      p.state = 'waiting';
      p.retryAt = now + p.delay * (0.5 + this.random());
      p.delay = Math.min(p.delay * 2, RETRY_CAP_MS);
      return;
    }
    this.pending.delete(p.ticket);
    this.answer(out, reply, false, p);
    if (p.action?.t === 'reveal' && this.probe.has(p.action.p.game as number)) {
      // A deposit for the next game's roll-off tried after a snapshot: `stale` asks for a later
      // roll (the roll-off went on: try the next); anything else ends the trying.
      const game = p.action.p.game as number;
      if (!reply.ok && reply.code === 'stale') this.probe.set(game, (p.action.p.k as number) + 1);
      else this.probe.delete(game);
    }
    if (p.action?.t === 'recommit') {
      const game = p.action.p.game as number;
      if (reply.ok) this.ackedRecommit = `${game}:${this.held.get(game)?.n ?? 0}`;
      else this.say(out, 'recommit_refused', `Could not commit a new dice chain: ${reply.message}`, 0, true);
    }
    this.flush(out);
  }

  /**
   * The store lost events this seat saw (a failover, docs/operations.md): what the seat sent by
   * itself for them (commitments, reveals, rolls) may be lost too, so the automation may send it
   * again; a commitment ruled out by a stop, or still on its way, stays.
   */
  private rewound(): void {
    for (const done of [...this.done].sort()) {
      const [kind, game] = done.split(':');
      if (kind === 'commit') {
        const ticket = this.commits.get(Number(game));
        if (ticket === undefined || this.pending.has(ticket)) continue;
        this.commits.delete(Number(game));
      }
      this.done.delete(done);
    }
  }

  // ---- acting --------------------------------------------------------------------------------

  /** Send `action` (its seq is given when it is sent); returns its ticket. */
  act(action: Action, now: number): { ticket: number; effects: Effect[] } {
    if (action.t === 'stop') this.done.add(key(['commit', this.tracker.commitGame, 0]));
    const p = this.add(action, null, null);
    const out: Effect[] = [];
    this.flush(out);
    this.automate(now, out);
    return { ticket: p.ticket, effects: this.finish(out) };
  }

  roll(now: number): { ticket: number; effects: Effect[] } {
    const t = this.tracker;
    this.done.add(key(['decide', t.game, t.k]));
    return this.dice('roll', t.game, t.k, now, false);
  }

  reveal(game: number, k: number, now: number): { ticket: number; effects: Effect[] } {
    return this.dice('reveal', game, k, now, false);
  }

  commit(game: number, now: number): { ticket: number; effects: Effect[] } {
    const known = this.commits.get(game);
    if (known !== undefined) return { ticket: known, effects: [] };
    return this.dice('commit', game, 0, now, false);
  }

  commitReply(game: number): Reply | null {
    const ticket = this.commits.get(game);
    return ticket === undefined ? null : (this.commitReplies.get(ticket) ?? null);
  }

  nextGame(now: number): Effect[] {
    this.nextGameAsked = this.tracker.commitGame;
    const out: Effect[] = [];
    this.automate(now, out);
    return this.finish(out);
  }

  /** Caught up, and nothing of this seat's waits to be sent or answered: a page that opens only
   * to act may close now (a correspondence match). */
  get idle(): boolean {
    return this.caughtUp && this.pending.size === 0 && this.asked.size === 0;
  }

  /** Whether an action of this seat (a recommit, or one held behind it) is not answered yet. */
  pendingKinds(): string[] {
    return [...this.pending.values()].map(kindOf);
  }

  private dice(kind: string, game: number, k: number, now: number, auto: boolean): { ticket: number; effects: Effect[] } {
    const b: Build = [kind, game, k];
    const p = this.add(null, b, auto ? b : null);
    if (kind === 'commit') this.commits.set(game, p.ticket);
    const out: Effect[] = [];
    if (!auto) {
      this.flush(out);
      this.automate(now, out);
    }
    return { ticket: p.ticket, effects: this.finish(out) };
  }

  private add(action: Action | null, build: Build | null, auto: Build | null): Pending {
    this.tickets++;
    const p: Pending = { ticket: this.tickets, seq: null, action, build, auto, state: 'unsent', retryAt: 0, delay: RETRY_FIRST_MS };
    this.pending.set(p.ticket, p);
    return p;
  }

  chainReady(game: number, held: Held | null, now: number): Effect[] {
    const out: Effect[] = [];
    const recommit = [...this.pending.values()].find((p) => p.build?.[0] === 'recommit' && p.build[1] === game && p.action === null);
    if (recommit && held && held.n > 0) {
      const t = this.tracker;
      const seat = this.seat!;
      const k0 = recommit.build![2];
      const still = t.game === game && t.k === k0 && BETWEEN_ROLLS.has(t.clock.phase) && t.recommits[seat] + 1 === held.n;
      if (still) {
        this.held.set(game, held);
        recommit.action = { t: 'recommit', p: { game, commitment: held.chain.commitment } };
      } else {
        // The moment passed while the chain was made: look again.
        this.pending.delete(recommit.ticket);
        this.done.delete(key(['recommit', game, k0]));
      }
    } else if (held !== null || !this.held.has(game)) {
      this.held.set(game, held);
    }
    this.asked.delete(`${game}:load`);
    this.asked.delete(`${game}:commit`);
    this.flush(out);
    this.automate(now, out);
    return this.finish(out);
  }

  tick(now: number): Effect[] {
    const out: Effect[] = [];
    for (const p of this.pending.values()) if (p.state === 'waiting' && p.retryAt <= now) p.state = 'unsent';
    this.flush(out);
    this.automate(now, out);
    return this.finish(out);
  }

  wakeAt(): number | null {
    const times = [...this.pending.values()].filter((p) => p.state === 'waiting').map((p) => p.retryAt);
    const at = this.commitAt();
    if (at !== null) times.push(at);
    return times.length ? Math.min(...times) : null;
  }

  private finish(out: Effect[]): Effect[] {
    const at = this.wakeAt();
    if (at !== null && !this.ended) out.push({ t: 'wake', at });
    return out;
  }

  private answer(out: Effect[], reply: Reply, local: boolean, p: Pending): void {
    if ([...this.commits.values()].includes(p.ticket)) this.commitReplies.set(p.ticket, reply);
    out.push({ t: 'answer', ticket: p.ticket, seq: p.seq, reply, local, kind: kindOf(p), auto: p.auto !== null });
  }

  // ---- sending -------------------------------------------------------------------------------

  /**
   * Build and send what can go: first what was sent before (in seq order), then the rest in the
   * order it was asked for; each gets its seq when first sent. An action that must wait (not
   * built yet: it needs the seat's chain; or one after which this seat reveals, while its chain
   * is unknown or to be renewed) holds back every later one but a re-commitment, which is what
   * it waits for; an unanswered re-commitment holds back everything after it.
   */
  private flush(out: Effect[]): void {
    let waiting = false;
    const order = [...this.pending.values()].sort((a, b) =>
      a.seq !== null && b.seq !== null ? a.seq - b.seq : a.seq !== null ? -1 : b.seq !== null ? 1 : a.ticket - b.ticket,
    );
    for (const p of order) {
      if (this.pending.get(p.ticket) !== p) continue;
      // One numbered action in flight at a time: the store may refuse one for a moment
      // (retry_later) and take the next; the server would then refuse the retry as stale.
      if (p.state === 'sent' || p.state === 'waiting') return;
      const recommit = p.build?.[0] === 'recommit';
      if (waiting && !recommit) continue;
      if (p.action === null) {
        this.build(p, out);
        if (this.pending.get(p.ticket) !== p) continue; // answered here (no chain): holds nothing back
        if (p.action === null) {
          if (recommit) return; // its chain is being made
          waiting = true;
          continue;
        }
      }
      const action: Action = p.action;
      if (p.seq === null && HANDS_OVER.has(action.t) && this.chainUnknown()) {
        waiting = true; // after it this seat reveals: first know (or renew) its chain
        continue;
      }
      if (p.state === 'unsent' && this.welcomed) {
        if (p.seq === null) p.seq = ++this.seq;
        p.state = 'sent';
        out.push({ t: 'send', frame: { t: 'action', seq: p.seq, action } });
        return; // one in flight: the next goes when this one is answered
      }
      if (action.t === 'recommit') return;
    }
  }

  private build(p: Pending, out: Effect[]): void {
    const [kind, game, k] = p.build!;
    if (kind === 'recommit') return; // built by chainReady
    if (!this.held.has(game)) {
      this.ask(game, kind === 'commit' ? 'commit' : 'load', out);
      return;
    }
    const held = this.held.get(game) ?? null;
    if (kind === 'commit') {
      if (held === null || held.n !== 0) {
        this.ask(game, 'commit', out);
        return;
      }
      p.action = { t: 'commit', p: { game, commitment: held.chain.commitment } };
      return;
    }
    if (held !== null && this.current(held, game) && k <= held.chain.length && k >= held.chain.from) {
      p.action = { t: kind === 'roll' ? 'roll' : 'reveal', p: { game, k, reveal: held.chain.reveal(k) } };
      return;
    }
    if (this.recommitComing(game)) return; // a re-commitment is (or will be) under way
    this.pending.delete(p.ticket);
    const reply: Reply = { ok: false, code: 'bad_reveal', message: "not sent: this client does not hold the seat's dice chain" };
    this.answer(out, reply, true, p);
  }

  /** In a game, between rolls, with this seat's chain not loaded yet, or not the current one
   * while a re-commitment is to come. */
  private chainUnknown(): boolean {
    const t = this.tracker;
    const seat = this.seat;
    if (seat === null || t.commitments[seat] === null || !BETWEEN_ROLLS.has(t.clock.phase)) return false;
    return !this.held.has(t.game) || (!this.current() && this.recommitComing(t.game));
  }

  private ask(game: number, purpose: 'load' | 'commit', out: Effect[]): void {
    const k = `${game}:${purpose}`;
    if (this.asked.has(k)) return;
    this.asked.add(k);
    out.push({ t: 'needChain', game, purpose, fromK: 1, length: 0, n: 0 });
  }

  // ---- automation ----------------------------------------------------------------------------

  /** Welcomed, and the events have reached the version the welcome announced. */
  get caughtUp(): boolean {
    return this.welcomed && this.welcomeV !== null && this.tracker.version >= this.welcomeV;
  }

  /** When (`now`'s scale) the automatic commit to the next game waits for, or null. */
  commitAt(): number | null {
    const t = this.tracker;
    // A correspondence match waits for nobody: commit at once.
    const share = t.correspondence ? null : this.config.nextGameShare;
    const game = t.commitGame;
    if (this.seat === null || share === null || game <= 1 || t.owes(this.seat) !== 'commit') return null;
    if (this.nextGameAsked === game || this.commits.has(game) || !this.config.autoCommit) return null;
    if (this.done.has(key(['commit', game, 0])) || t.clock.deadline === null) return null;
    const budget = t.settings?.move_time ?? 30_000;
    return t.clock.deadline - budget * (1 - share) - this.serverOffset;
  }

  private automate(now: number, out: Effect[]): void {
    const seat = this.seat;
    const t = this.tracker;
    const cfg = this.config;
    if (seat === null || this.ended) return;
    if (t.over !== null) {
      this.withdraw(out);
      return;
    }
    if (!this.caughtUp) return;
    this.withdraw(out);
    const owed = this.midTransition ? null : t.owes(seat);
    if (owed === 'commit') {
      const game = t.commitGame;
      const k = key(['commit', game, 0]);
      const at = this.commitAt();
      if (cfg.autoCommit && !this.done.has(k) && !this.commits.has(game) && (at === null || now >= at)) {
        this.done.add(k);
        this.dice('commit', game, 0, now, true);
        this.flush(out);
      }
      return;
    }
    const phase = t.clock.phase;
    if (this.midTransition || !(BETWEEN_ROLLS.has(phase) || ROLLING.has(phase)) || t.clock.seats.length === 0) return;
    const { game, k } = t;
    if (!this.held.has(game)) {
      this.ask(game, 'load', out);
      return;
    }
    if (!this.current()) {
      this.recover(owed, out);
      return;
    }
    if (owed !== null && ROLLING.has(owed) && cfg.autoReveal) {
      const kk = key(['reveal', game, k]);
      if (!this.done.has(kk)) {
        this.done.add(kk);
        this.dice('reveal', game, k, now, true);
        this.flush(out);
      }
    } else if (owed === 'decide' && cfg.autoRoll && !t.mayDouble(seat)) {
      const kk = key(['decide', game, k]);
      if (!this.done.has(kk)) {
        this.done.add(kk);
        this.dice('roll', game, k, now, true);
        this.flush(out);
      }
    } else if (owed === null && t.correspondence && cfg.autoReveal) {
      this.depositTurn(now, out);
    }
    if (t.correspondence && cfg.autoReveal && cfg.autoCommit) this.prepare(now, out);
  }

  /** While the opponent decides its roll, deposit this seat's reveal of that roll. */
  private depositTurn(now: number, out: Effect[]): void {
    const t = this.tracker;
    const seat = this.seat!;
    if (t.clock.phase !== 'decide' || t.clock.seats.length !== 1 || t.clock.seats[0] !== 1 - seat) return;
    const kk = key(['deposit', t.game, t.k]);
    if (this.done.has(kk)) return;
    this.done.add(kk);
    this.dice('reveal', t.game, t.k, now, true);
    this.flush(out);
  }

  /** During a game of a correspondence match, prepare the next: commit to it, then deposit the
   * reveals its roll-off asks for (or, after a snapshot, try from roll 1). */
  private prepare(now: number, out: Effect[]): void {
    const t = this.tracker;
    if (t.settings?.mode !== 'match' || !t.inGame) return;
    const game = t.game + 1;
    const ck = key(['commit', game, 0]);
    if (!this.done.has(ck) && !this.commits.has(game)) {
      this.done.add(ck);
      this.dice('commit', game, 0, now, true);
      this.flush(out);
      return;
    }
    let k: number;
    if (t.ahead !== null && t.ahead.game === game) {
      k = t.ahead.k;
      this.probe.delete(game);
    } else if (this.probe.has(game) && this.commitReply(game) !== null) {
      k = this.probe.get(game)!;
    } else {
      return;
    }
    const rk = key(['reveal', game, k]);
    if (this.done.has(rk)) return;
    this.done.add(rk);
    this.dice('reveal', game, k, now, true);
    this.flush(out);
  }

  /** Automatic actions the match no longer wants (not in flight) are dropped; what was held
   * behind one of them (one numbered action in flight) is sent now. */
  private withdraw(out: Effect[]): void {
    const t = this.tracker;
    const seat = this.seat;
    let withdrawn = false;
    for (const ticket of [...this.pending.keys()].sort((a, b) => a - b)) {
      const p = this.pending.get(ticket)!;
      if (p.auto === null || p.state === 'sent') continue;
      const [kind, game, k] = p.auto;
      if (t.over === null && seat !== null) {
        // The next game's, prepared ahead: wanted while this one lasts.
        if (t.correspondence && game === t.game + 1 && t.inGame) continue;
        const owed = this.midTransition ? null : t.owes(seat);
        const here = t.game === game && t.k === k;
        if (kind === 'commit' && (owed === null || owed === 'commit') && t.commitGame === game) continue;
        if (kind === 'reveal' && (owed === null || ROLLING.has(owed)) && here) continue;
        if (kind === 'roll' && (owed === null || owed === 'decide') && here) continue;
        if (kind === 'recommit' && here) continue;
      }
      this.pending.delete(ticket);
      const reply: Reply = { ok: false, code: 'stale', message: 'withdrawn: the match no longer waits for it' };
      out.push({ t: 'answer', ticket, seq: p.seq, reply, local: true, kind, auto: true });
      withdrawn = true;
    }
    if (withdrawn) this.flush(out);
  }

  /** Whether `held` (default: the chain held for the current game) is the one the server
   * checks this seat's next reveal against. */
  current(held?: Held | null, game?: number): boolean {
    const seat = this.seat;
    const t = this.tracker;
    if (seat === null) return false;
    const g = game ?? t.game;
    const h = held === undefined ? (this.held.get(g) ?? null) : held;
    // The next game's chain, prepared ahead: nobody re-commits before a game starts.
    if (game !== undefined && game === t.game + 1 && t.inGame) return h !== null && h.n === 0;
    if (h === null || t.k > h.chain.length) return false; // none, or run out
    const count = t.recommits[seat];
    if (this.ackedRecommit === `${g}:${h.n}` && h.n === count + 1) return true; // its event is on the way
    if (count === 0) {
      const c = t.commitments[seat];
      return h.n === 0 && c !== null && constantTimeEqual(h.chain.commitment, c);
    }
    const last = t.lastRecommit[seat];
    if (last) return h.n > 0 && h.chain.from === last.k && constantTimeEqual(h.chain.commitment, last.commitment);
    return h.n === count; // after a snapshot, which tells only how many
  }

  /** Whether this client holds the seat's current chain: true/false, null while unknown. */
  holdsChain(): boolean | null {
    const t = this.tracker;
    if (this.seat === null || !this.held.has(t.game)) return null;
    return this.current();
  }

  private recommitComing(game: number): boolean {
    const t = this.tracker;
    const seat = this.seat;
    if (seat === null || !this.config.autoReveal) return false;
    for (const p of this.pending.values()) if (p.build?.[0] === 'recommit' && p.build[1] === game) return true;
    return (
      t.game === game &&
      t.over === null &&
      BETWEEN_ROLLS.has(t.clock.phase) &&
      t.recommits[seat] < MAX_RECOMMITMENTS &&
      !this.done.has(key(['recommit', game, t.k]))
    );
  }

  private recover(owed: ClockPhase | null, out: Effect[]): void {
    const t = this.tracker;
    const seat = this.seat!;
    const { game, k } = t;
    if (!this.config.autoReveal) return;
    if (t.recommits[seat] >= MAX_RECOMMITMENTS) {
      this.say(out, 'recommit_limit', `This browser does not hold this seat's dice secret, and the seat has already committed a new chain ${MAX_RECOMMITMENTS} times in this game (the limit): it cannot reveal its dice, and forfeits at its next roll`, 0, true);
      return;
    }
    if (!BETWEEN_ROLLS.has(t.clock.phase)) {
      if (owed !== null && ROLLING.has(owed)) {
        this.say(out, 'cannot_reveal', 'This browser does not hold the dice secret this seat committed to for this game, and a new one can only be committed between rolls: this seat cannot reveal for this roll', k, true);
      }
      return;
    }
    const kk = key(['recommit', game, k]);
    if (this.done.has(kk)) return; // one try per roll: a refusal does not loop
    this.done.add(kk);
    this.startRecommit(game, k, out);
  }

  private startRecommit(game: number, k: number, out: Effect[]): number {
    const n = this.tracker.recommits[this.seat!] + 1;
    const length = Math.max(this.config.chainLength, 2 * k); // as many rolls ahead as behind
    const b: Build = ['recommit', game, k];
    const p = this.add(null, b, b);
    out.push({ t: 'needChain', game, purpose: 'recommit', fromK: k, length, n });
    return p.ticket;
  }

  private say(out: Effect[], kind: NoticeKind, text: string, k: number, alarm: boolean): void {
    const s = `${kind}:${this.tracker.game}:${k}`;
    if (this.said.has(s)) return;
    this.said.add(s);
    out.push({ t: 'notice', kind, game: this.tracker.game, k, text, alarm });
  }
}

function kindOf(p: Pending): string {
  if (p.action) return p.action.t;
  return p.build ? p.build[0] : '';
}
