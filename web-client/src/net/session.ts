/**
 * One seat's (or a spectator's) session with a match over the WebSocket: the browser's thin
 * adapter over the seat core (seatCore.ts, the twin of protocol/client/seat.py), which makes
 * every protocol decision — numbered actions kept across reloads and reconnects, resend after
 * the welcome, retries of `rate_limited` / `retry_later` with no horizon, reconnection that stops
 * only on a definitive answer, automatic commit / reveal / forced roll on the present only, and
 * re-commitment of a lost chain (docs/protocol.md, "Client behaviour"). This file moves bytes
 * (Connection), runs the core's timers, keeps the dice secrets and sequence numbers in storage
 * (a reload rebuilds the chain; a browser without the secret re-commits between rolls,
 * docs/fairness.md section 7), verifies every published roll (LiveVerifier: WebCrypto is
 * asynchronous), and says what happens in words: notices, presence, the server clock offset.
 */

import {
  CHAIN_LENGTH,
  type ChainContext,
  OwnChain,
  type SecretStorage,
  forgetSecret,
  fromHex,
  loadChain,
  newSecret,
  obtainSecret,
  storeRecommitted,
} from '../fairdice';
import { ChatLog } from './chatLog';
import { refusalText } from './refusals';
import { type Words, aboutSeat } from './voice';
import { ltr, t as tr } from '../i18n';
import { MAX_RECOMMITMENTS } from '../fairdice/scheme';
import { Connection, type Env, type LinkState } from './connection';
import { LiveVerifier, type Verdict } from './liveVerifier';
import {
  type Action,
  type ClockPhase,
  type EventFrame,
  type Move,
  type Seat,
  type ServerFrame,
  actionFrame,
  actions,
  echo,
  hello,
  parseServerFrame,
  ping,
  resync,
} from './protocol';
import { DEAD_LINK_MS, type Effect, type Held, type NeedPurpose, type NoticeKind, type Reply, SeatCore } from './seatCore';
import { type SeatRecord, loadSeq, saveSeq } from './storage';
import type { Tracker } from './tracker';
import { RecordBook } from './record';
import type { DiceCheck } from '../fairdice';

export type { Reply } from './seatCore';

export interface SessionOptions {
  readonly matchId: string;
  /** This browser's seat in the match, or null to watch. */
  readonly seat: SeatRecord | null;
  readonly name: string | null;
  readonly url: string;
  readonly env: Env;
  readonly storage: SecretStorage;
  readonly chainLength?: number;
  /** Between games, commit by itself once this share of the commit clock has passed. */
  readonly autoNextShare?: number;
}

export interface Notice extends Words {
  readonly id: number;
  readonly alarm?: boolean;
}

const PING_EVERY_MS = 10_000;

/** A seat whose player has no name yet ("Seat 0", as the server's logs number seats). */
const seatName = (s: Seat): string => tr('common.seatNo', { n: String(s) });

/** Clock phases of a game being played: between rolls or during one. */
const IN_GAME: ReadonlySet<ClockPhase> = new Set(['decide', 'move', 'take', 'resign', 'rolloff', 'reveal']);

interface Waiting {
  readonly resolve: (reply: Reply) => void;
  readonly action: string;
  readonly user: boolean;
}

export class MatchSession {
  readonly core: SeatCore;
  /** The move record of the match (every turn in standard notation), from the same events. */
  readonly record = new RecordBook();
  /** Server clock minus this browser's clock (ms), from welcome and pongs. */
  offset = 0;
  private bestRtt = Infinity;
  watchers = 0;
  /** Last connection-level error from the server (e.g. replaced, auth_failed). */
  lastError: { code: string; message: string } | null = null;
  /** The dice check of each roll, by `${game}:${k}`. */
  readonly checks = new Map<string, Verdict>();
  notice: Notice | null = null;
  /** A sent play: shown as "sending" until acknowledged and its events are in. */
  pendingMove: { seq: number; ackV: number | null } | null = null;
  /** The commit for this game was asked for by the player (Next game). */
  nextGameAsked = 0;
  everOnline = false;
  /** The server said it cannot reach its store (`degraded`) and no `restored` or welcome since. */
  storeTrouble = false;
  readonly connection: Connection;
  /** The match's chat rooms (net/chatLog.ts). */
  readonly chat: ChatLog;
  private readonly waiting = new Map<number, Waiting>();
  /** This seat's chain per game, once built (for `chain()`). */
  private readonly chains = new Map<number, OwnChain>();
  private readonly verifiers = new Map<number, LiveVerifier>();
  private readonly matchBytes: Uint8Array;
  private readonly listeners = new Set<() => void>();
  private noticeId = 0;
  private emitQueued = false;
  private pingTimer: unknown = null;
  private wakeTimer: unknown = null;
  private wakeAt: number | null = null;
  private watchTimer: unknown = null;
  private savedSeq: number;

  constructor(private readonly options: SessionOptions) {
    const seat = options.seat?.seat ?? null;
    this.savedSeq = seat === null ? 0 : loadSeq(options.storage, options.matchId, seat);
    this.core = new SeatCore(
      options.matchId,
      options.seat !== null,
      {
        chainLength: options.chainLength ?? CHAIN_LENGTH,
        autoRoll: true,
        nextGameShare: options.autoNextShare ?? 0.5,
        // Version 0 asks for the whole log: every roll can be verified (or a snapshot if too long).
        firstLastV: 0,
        // A server that sends no frame (its probes come every 2 s) for this long is left.
        deadLinkMs: DEAD_LINK_MS,
      },
      () => options.env.random(),
      seat,
      this.savedSeq,
    );
    this.matchBytes = fromHex(options.matchId);
    this.chat = new ChatLog((frame) => this.connection.send(frame), () => options.env.now());
    this.connection = new Connection(options.url, options.env, {
      open: () => this.apply(this.core.opened(this.now())),
      message: (frame) => this.onFrame(frame),
      changed: () => this.onLinkChange(),
      probe: () => this.connection.send(ping(this.now())),
      lost: (code) => this.lost(code),
    });
  }

  get tracker(): Tracker {
    return this.core.tracker;
  }

  /** The seat this connection plays (from the welcome), or null for a spectator. */
  get seat(): Seat | null {
    return this.core.seat;
  }

  /** The server's version at the last welcome; automation waits until the events reach it. */
  get welcomeV(): number | null {
    return this.core.welcomeV;
  }

  get matchId(): string {
    return this.options.matchId;
  }

  get link(): LinkState {
    return this.connection.state;
  }

  /** The dice check of roll `k` of `game` so far ('pending' until it is done). */
  checkOf(game: number, k: number): DiceCheck {
    return this.checks.get(`${game}:${k}`)?.check ?? 'pending';
  }

  /** Server time now (ms). */
  serverNow(): number {
    return this.now() + this.offset;
  }

  /** A server time as this browser's clock. */
  toClient(serverMs: number): number {
    return serverMs - this.offset;
  }

  private now(): number {
    return this.options.env.now();
  }

  start(): void {
    this.connection.start();
  }

  stop(): void {
    this.connection.stop();
    this.apply(this.core.stop());
    if (this.pingTimer !== null) this.options.env.clearTimeout(this.pingTimer);
    if (this.wakeTimer !== null) this.options.env.clearTimeout(this.wakeTimer);
    if (this.watchTimer !== null) this.options.env.clearTimeout(this.watchTimer);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- the core's effects -----------------------------------------------------------------------

  /** The socket closed: the core says when to come back (ms from now), or never (null). */
  private lost(code: number): number | null {
    const now = this.now();
    let delay: number | null = null;
    const effects = this.core.closed(code === 1006 ? null : code, now);
    for (const e of effects) if (e.t === 'connect') delay = Math.max(0, e.at - now);
    this.apply(effects); // an end answers what was still waiting
    this.emit();
    return delay;
  }

  private apply(effects: Effect[]): void {
    for (const e of effects) {
      switch (e.t) {
        case 'send': {
          const f = e.frame;
          if (f.t === 'hello') this.connection.send(hello(this.options.matchId, this.options.seat?.token ?? null, f.lastV, this.options.name));
          else if (f.t === 'echo') this.connection.send(echo(f.at));
          else if (f.t === 'resync') this.connection.send(resync(f.lastV));
          else this.connection.send(actionFrame(f.action, f.seq));
          break;
        }
        case 'answer':
          this.answered(e.ticket, e.reply);
          break;
        case 'wake':
          this.wake(e.at);
          break;
        case 'needChain':
          void this.provide(e.game, e.purpose, e.fromK, e.length, e.n);
          break;
        case 'notice':
          this.say(this.noticeText(e.kind, e.k, e.text), e.alarm);
          break;
        case 'watch':
          this.watch(e.at);
          break;
        case 'drop':
          this.connection.drop(); // then lost(): the core says when to come back
          break;
        default:
          break; // connect and ended: the Connection asked through lost()
      }
    }
    if (this.core.seq !== this.savedSeq && this.core.seat !== null) {
      this.savedSeq = this.core.seq;
      saveSeq(this.options.storage, this.options.matchId, this.core.seat, this.core.seq);
    }
  }

  /** The seat core's notice in the page's language (its own text is English, for logs). */
  private noticeText(kind: NoticeKind, k: number, text: string): string {
    switch (kind) {
      case 'opponent_renewed': {
        const other = this.seat === null ? null : ((1 - this.seat) as Seat);
        const name = other === null ? null : (this.tracker.names[other] ?? seatName(other));
        return tr('notice.opponentRenewed', { name: name ?? '', known: name === null ? 'no' : 'yes', k: String(k) });
      }
      case 'chain_renewed':
        return tr('notice.chainRenewed');
      case 'cannot_reveal':
        return tr('notice.cannotReveal');
      case 'recommit_limit':
        return tr('notice.recommitLimit', { n: MAX_RECOMMITMENTS });
      case 'recommit_refused':
        // docs/fairness.md, section 15: during this seat's roll decision the opponent's reveal
        // of that roll is deposited, and no new chain may be committed against it.
        if (this.tracker.correspondence && text.includes('roll_in_progress')) return tr('notice.rollInProgress');
        // The server's reason follows the core's words.
        return tr('notice.recommitRefused', { why: text.slice(text.indexOf(': ') + 2) });
    }
  }

  private wake(at: number): void {
    if (this.wakeAt !== null && this.wakeAt <= at && this.wakeTimer !== null) return;
    if (this.wakeTimer !== null) this.options.env.clearTimeout(this.wakeTimer);
    this.wakeAt = at;
    this.wakeTimer = this.options.env.setTimeout(() => {
      this.wakeTimer = this.wakeAt = null;
      this.apply(this.core.tick(this.now()));
      this.emit();
    }, Math.max(0, at - this.now()));
  }

  /** The dead-link check: the core decides on the time since the last frame, however late this fires. */
  private watch(at: number): void {
    if (this.watchTimer !== null) this.options.env.clearTimeout(this.watchTimer);
    this.watchTimer = this.options.env.setTimeout(() => {
      this.watchTimer = null;
      this.apply(this.core.silent(this.now()));
    }, Math.max(0, at - this.now()));
  }

  private answered(ticket: number, reply: Reply): void {
    const w = this.waiting.get(ticket);
    if (!w) return;
    this.waiting.delete(ticket);
    if (!reply.ok && w.user) this.say(refusalText(reply.code, reply.message), false);
    w.resolve(reply);
  }

  /** Build the chain the core asked for (storage holds the secrets), and hand it over. */
  private async provide(game: number, purpose: NeedPurpose, fromK: number, length: number, n: number): Promise<void> {
    const seat = this.core.seat;
    if (seat === null) return;
    const ctx = this.ctx(game, seat);
    let held: Held | null = null;
    try {
      if (purpose === 'recommit') {
        const secret = newSecret();
        const chain = await OwnChain.create(ctx, secret, length, fromK);
        // Stored before it is sent: a reload after the re-commitment finds the new secret.
        if (!storeRecommitted(this.options.storage, ctx, { secret, from: fromK, length, n })) this.say(tr('notice.cannotStore'), true);
        held = { chain, n };
      } else {
        const stored = loadChain(this.options.storage, ctx);
        if (stored !== null && (purpose === 'load' || stored.n === 0)) {
          held = { chain: await OwnChain.create(ctx, stored.secret, stored.length ?? this.chainLength, stored.from), n: stored.n };
        } else if (purpose === 'commit') {
          const { secret, stored: kept } = obtainSecret(this.options.storage, ctx);
          if (!kept) this.say(tr('notice.cannotStore'), true);
          held = { chain: await OwnChain.create(ctx, secret, this.chainLength), n: 0 };
        }
      }
    } catch {
      held = null;
    }
    if (held) this.chains.set(game, held.chain as OwnChain);
    this.apply(this.core.chainReady(game, held, this.now()));
    this.emit();
  }

  // ---- receiving --------------------------------------------------------------------------------

  private onLinkChange(): void {
    if (this.connection.state !== 'online') this.core.welcomed = false;
    this.emit();
  }

  private onFrame(bytes: Uint8Array): void {
    const frame = parseServerFrame(bytes);
    if (!frame) return;
    try {
      this.receive(frame);
    } catch (err) {
      // A frame this client cannot follow: start again from a clean state on the next welcome.
      console.warn('fairgammon: frame not understood', err);
    }
    this.emit();
  }

  /** Handle one server frame (public for tests that feed frames directly). */
  receive(frame: ServerFrame): void {
    const t = this.tracker;
    const live = this.caughtUp;
    const before = t.version;
    this.apply(this.core.receive(frame, this.now()));
    switch (frame.t) {
      case 'welcome':
        this.everOnline = true;
        this.storeTrouble = false;
        this.sampleClock(frame.p.server_time, null);
        this.connection.healthy();
        this.startPings();
        this.chat.welcomed(this.seat, t.over !== null);
        break;
      case 'event':
        if (t.version === frame.v && before === frame.v - 1) {
          this.record.apply(frame);
          this.afterEvent(frame, live);
        }
        break;
      case 'snapshot':
        this.record.applySnapshot(frame.p.v, frame.p.state);
        this.afterSnapshot();
        break;
      case 'presence':
        this.onPresence(frame.p.seat, frame.p.status, frame.p.deadline);
        break;
      case 'watchers':
        this.watchers = frame.p.count;
        break;
      case 'pong':
        this.sampleClock(frame.p.server_time, this.now() - frame.p.t);
        break;
      case 'error':
        this.lastError = frame.p;
        break;
      case 'reject':
        if (frame.p.seq === null) this.chat.refused(frame.p.code, frame.p.message);
        break;
      case 'chat':
        this.chat.receive(frame.p);
        break;
      case 'degraded':
      case 'restored':
        this.storeTrouble = frame.t === 'degraded';
        break;
      default:
        break;
    }
    this.settlePendingMove();
  }

  /** The events have reached the version the server had when it welcomed us. */
  get caughtUp(): boolean {
    return this.core.caughtUp;
  }

  private afterEvent(e: EventFrame, live: boolean): void {
    const t = this.tracker;
    const name = (s: Seat) => t.names[s] ?? seatName(s);
    switch (e.k) {
      case 'committed': {
        const v = new LiveVerifier(this.matchBytes, e.p.game);
        v.commit(e.p.commitment0, e.p.commitment1);
        this.verifiers.set(e.p.game, v);
        break;
      }
      case 'recommitted':
        this.verifiers.get(e.p.game)?.recommit(e.p.seat, e.p.commitment, e.p.k);
        break;
      case 'dice': {
        const d = e.p;
        const key = `${d.game}:${d.k}`;
        const verifier = this.verifiers.get(d.game);
        if (!verifier) {
          this.checks.set(key, { check: 'unverified', why: 'no commitments seen' });
          break;
        }
        void verifier.check({ k: d.k, reveals: [d.reveal0, d.reveal1], dice: [d.d1, d.d2] }).then((verdict) => {
          this.checks.set(key, verdict);
          if (verdict.check === 'alarm') this.say(tr('notice.diceAlarm', { why: verdict.why }), true);
          this.emit();
        });
        if (live && d.kind === 'rolloff') {
          if (d.d1 === d.d2) this.say(tr('notice.rolloffTie', { d: String(d.d1) }));
          else {
            const w: Seat = d.d1 > d.d2 ? 0 : 1;
            this.say(aboutSeat(w, name(w), 'notice.winsRolloff', { dice: ltr(`${Math.max(d.d1, d.d2)}–${Math.min(d.d1, d.d2)}`) }));
          }
        }
        break;
      }
      case 'clock_credit':
        if (live) {
          const back = (e.p.ms / 1000).toFixed(1);
          this.say(aboutSeat(e.p.seat, name(e.p.seat), 'notice.clockCredit', { s: back }));
        }
        break;
      case 'passed': {
        const last = t.rolls[t.rolls.length - 1];
        if (live) this.say(aboutSeat(e.p.seat, name(e.p.seat), 'notice.passed', { dice: ltr(last ? last.dice.join('–') : '') }));
        break;
      }
      case 'taken':
        if (live) this.say(aboutSeat(e.p.seat, name(e.p.seat), 'notice.takes', { value: e.p.value }));
        break;
      case 'beavered':
        if (live) this.say(aboutSeat(e.p.seat, name(e.p.seat), 'notice.beavers', { value: e.p.value }));
        break;
      case 'resign_rejected':
        if (live) this.say(aboutSeat(e.p.seat, name(e.p.seat), 'notice.rejects'));
        break;
      case 'commit_received':
        if (live && t.betweenGames && e.p.seat !== this.seat) this.say(tr('notice.ready', { name: name(e.p.seat) }));
        break;
      case 'seated':
        if (live && e.p.seat === 1) this.say(e.p.name ? tr('notice.joined', { name: e.p.name }) : tr('notice.opponentJoined'));
        break;
      case 'game_over':
        // The game's reveals are all public now: its secret is of no more use.
        if (this.seat !== null) forgetSecret(this.options.storage, { matchId: this.matchBytes, gameNo: e.p.game, seat: this.seat });
        break;
      default:
        break;
    }
  }

  private afterSnapshot(): void {
    const t = this.tracker;
    const [c0, c1] = t.commitments;
    if (t.game && c0 && c1) {
      const v = new LiveVerifier(this.matchBytes, t.game);
      v.commit(c0, c1);
      // After a re-commitment the snapshot's commitment no longer leads to the next reveal:
      // its heads do (each seat's latest link); without them nothing is known for that seat.
      for (const seat of [0, 1] as const) {
        const head = t.snapshotHeads?.links[seat];
        if (head && t.snapshotHeads) v.anchor(seat, t.snapshotHeads.k, head);
        else if (t.recommits[seat] > 0) v.forget(seat);
      }
      this.verifiers.set(t.game, v);
    }
  }

  private onPresence(seat: Seat, status: 'online' | 'reconnecting' | 'gone', deadline: number | null): void {
    const t = this.tracker;
    const before = t.status[seat];
    t.applyPresence(seat, status, deadline);
    if (seat !== this.seat && before !== status && this.caughtUp && t.over === null) {
      const name = t.names[seat] ?? null;
      const args = { name: name ?? '', known: name === null ? 'no' : 'yes' };
      if (status === 'reconnecting') this.say(tr('notice.lostConnection', args));
      else if (status === 'gone') this.say(tr('notice.gone', args));
      else if (before === 'reconnecting' || before === 'gone') this.say(tr('notice.back', args));
    }
  }

  private sampleClock(serverTime: number, rtt: number | null): void {
    const now = this.options.env.now();
    if (rtt === null) {
      // The welcome: no round trip known; use it until a pong gives a better estimate.
      if (this.bestRtt === Infinity) this.offset = serverTime - now;
      return;
    }
    if (rtt <= this.bestRtt * 1.5 || rtt < 50) {
      this.bestRtt = Math.min(this.bestRtt, rtt);
      this.offset = serverTime - (now - rtt / 2);
    }
  }

  private startPings(): void {
    if (this.pingTimer !== null) this.options.env.clearTimeout(this.pingTimer);
    const beat = () => {
      if (this.connection.state === 'online') this.connection.send(ping(this.options.env.now()));
      this.pingTimer = this.options.env.setTimeout(beat, PING_EVERY_MS);
    };
    beat();
  }

  // ---- acting -----------------------------------------------------------------------------------

  /**
   * A player's decision (roll, double, an answer, a resignation, stopping) sent and not yet
   * answered: a second one is not sent (a double click on "Double to 2" sent the double twice,
   * and the second came back refused). Plays have their own guard (`pendingMove`).
   */
  get deciding(): boolean {
    for (const w of this.waiting.values()) if (w.user && w.action !== 'move' && w.action !== 'leave') return true;
    return false;
  }

  /** Send `action` with a new sequence number; resolves with the server's answer. */
  act(action: Action, user = true): Promise<Reply> {
    return this.wait(this.core.act(action, this.now()), action.t, user);
  }

  private wait(started: { ticket: number; effects: Effect[] }, action: string, user: boolean): Promise<Reply> {
    const promise = new Promise<Reply>((resolve) => this.waiting.set(started.ticket, { resolve, action, user }));
    this.apply(started.effects);
    return promise;
  }

  private settlePendingMove(): void {
    const p = this.pendingMove;
    if (p && p.ackV !== null && this.tracker.version >= p.ackV) this.pendingMove = null;
  }

  /** Play the dice: a complete legal play. Shown as pending until the ack and its events (a play
   * after which this seat reveals waits for its chain, or a re-commitment, in the core). */
  async move(moves: readonly Move[]): Promise<Reply | null> {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'move' || this.pendingMove) return null;
    const started = this.core.act(actions.move(t.game, t.turn, moves), this.now());
    const seq = started.ticket; // the play's ticket: it identifies the pending play
    const promise = this.wait(started, 'move', true);
    this.pendingMove = { seq, ackV: null };
    this.emit();
    const reply = await promise;
    if (this.pendingMove?.seq === seq) {
      if (reply.ok) {
        this.pendingMove = { seq, ackV: reply.v };
        this.settlePendingMove();
      } else {
        this.pendingMove = null;
      }
    }
    this.emit();
    return reply;
  }

  /** Roll (declining to double); with the chain being renewed, it goes once the new one is in. */
  async roll(user = true): Promise<Reply | null> {
    if (this.seat === null || this.tracker.owes(this.seat) !== 'decide' || this.deciding) return null;
    return this.wait(this.core.roll(this.now()), 'roll', user);
  }

  double(): Promise<Reply> | null {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'decide' || !t.mayDouble(this.seat) || this.deciding) return null;
    // No automation to hold back: with a cube decision possible nothing rolls by itself, and
    // after the answer the roll (now without a cube decision) happens by itself.
    return this.act(actions.double(t.game));
  }

  answerDouble(answer: 'take' | 'drop' | 'beaver'): Promise<Reply> | null {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'take' || this.deciding) return null;
    return this.act(actions[answer](t.game));
  }

  resign(level: 1 | 2 | 3): Promise<Reply> | null {
    const t = this.tracker;
    const owed = this.seat === null ? null : t.owes(this.seat);
    if ((owed !== 'decide' && owed !== 'move') || this.deciding || this.pendingMove) return null;
    return this.act(actions.resign(t.game, level));
  }

  answerResignation(accept: boolean): Promise<Reply> | null {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'resign' || this.deciding) return null;
    return this.act(actions.resignReply(t.game, accept));
  }

  /** Start the next game now (commit), instead of waiting for the automatic commit. */
  nextGame(): void {
    this.nextGameAsked = this.tracker.commitGame;
    this.apply(this.core.nextGame(this.now()));
    this.emit();
  }

  /** End a money session between games. */
  stopSession(): Promise<Reply> | null {
    if (this.seat === null || this.tracker.owes(this.seat) !== 'commit' || this.deciding) return null;
    return this.act(actions.stop());
  }

  leave(): Promise<Reply> | null {
    if (this.seat === null || this.tracker.over) return null;
    return this.act(actions.leave());
  }

  // ---- dice -------------------------------------------------------------------------------------

  private ctx(game: number, seat: Seat): ChainContext {
    return { matchId: this.matchBytes, gameNo: game, seat };
  }

  private get chainLength(): number {
    return this.options.chainLength ?? CHAIN_LENGTH;
  }

  /** The chain this browser holds for its seat in `game`, once built, or null. */
  async chain(game: number): Promise<OwnChain | null> {
    return this.chains.get(game) ?? null;
  }

  /**
   * Whether this browser can reveal this seat's next roll of the current game: true or false,
   * or null while its chain is still being loaded (or no game is being played).
   */
  holdsChain(): boolean | null {
    if (this.seat === null || !IN_GAME.has(this.tracker.clock.phase)) return null;
    return this.core.holdsChain();
  }

  /** Resolves once every roll received so far has been checked. */
  async verified(): Promise<void> {
    await Promise.all([...this.verifiers.values()].map((v) => v.idle()));
    await new Promise((r) => queueMicrotask(() => r(null)));
  }

  /** Let the core act on what it knows now (tests that set the tracker by hand). */
  automate(): void {
    this.apply(this.core.tick(this.now()));
  }

  /**
   * When (server ms) this seat commits to the next game by itself, between games; null when
   * nothing waits (or it already committed).
   */
  autoCommitAt(): number | null {
    const at = this.core.commitAt();
    return at === null ? null : at + this.core.serverOffset;
  }

  // ---- notifications ----------------------------------------------------------------------------

  say(words: string | Words, alarm = false): void {
    this.notice = { id: ++this.noticeId, ...(typeof words === 'string' ? { text: words } : words), alarm };
    this.emit();
  }

  /**
   * Tell the listeners, once the current microtask is done. A transition's events arrive as
   * separate frames and only its last one carries the clock: listeners hear of it then, so a
   * screen never shows half a transition (a game over without the match over that follows).
   */
  private emit(): void {
    if (this.emitQueued) return;
    this.emitQueued = true;
    queueMicrotask(() => {
      this.emitQueued = false;
      if (this.core.midTransition) return;
      for (const listener of this.listeners) listener();
    });
  }
}
