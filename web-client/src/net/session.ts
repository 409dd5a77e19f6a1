/**
 * One seat's (or a spectator's) session with a match over the WebSocket, the browser twin of
 * the Python MatchClient (protocol/client/connection.py):
 *
 * - hello first (the seat token travels only in it), then welcome and the events after the
 *   last version seen (a fresh page asks from version 0, so it sees every roll of the game and
 *   can verify it; the server sends a snapshot when that is too far back);
 * - events applied strictly in version order (duplicates ignored, a gap asks for a resync);
 * - actions numbered per seat with sequence numbers kept in storage across reloads; each waits
 *   for its ack or reject; after a reconnect the ones the server did not apply are sent again
 *   with the same number; `rate_limited` / `retry_later` are retried with the same number;
 * - the dice automation: commit when the clock names this seat in phase `commit`, reveal in
 *   `rolloff` / `reveal`, roll when no cube decision is possible — from a hash chain whose
 *   secret is kept in storage per match, game and seat, so a reload rebuilds it; a browser
 *   without the secret of the seat's current chain (another device, cleared storage)
 *   re-commits a fresh chain between rolls (docs/fairness.md, section 7), at most 3 times a
 *   game;
 * - every published roll verified (LiveVerifier), the server clock offset from welcome and
 *   pong, presence and the watcher count.
 */

import {
  CHAIN_LENGTH,
  type ChainContext,
  MAX_RECOMMITMENTS,
  OwnChain,
  type SecretStorage,
  constantTimeEqual,
  forgetSecret,
  fromHex,
  loadChain,
  newSecret,
  obtainSecret,
  storeRecommitted,
} from '../fairdice';
import { Connection, type Env, type LinkState } from './connection';
import { LiveVerifier, type Verdict } from './liveVerifier';
import {
  type Action,
  type ClockPhase,
  type EventFrame,
  type Move,
  type Seat,
  type ServerFrame,
  TRY_AGAIN_CODES,
  actionFrame,
  actions,
  echo,
  hello,
  parseServerFrame,
  ping,
  resync,
} from './protocol';
import { type SeatRecord, loadSeq, saveSeq } from './storage';
import { Tracker } from './tracker';
import { RecordBook } from '../view/record';
import type { DiceCheck } from '../view/gameView';

export type Reply = { readonly ok: true; readonly v: number } | { readonly ok: false; readonly code: string; readonly message: string };

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

interface PendingAction {
  readonly action: Action;
  readonly resolve: (reply: Reply) => void;
  readonly user: boolean;
  tries: number;
}

export interface Notice {
  readonly id: number;
  readonly text: string;
  readonly alarm?: boolean;
}

const PING_EVERY_MS = 10_000;
const RETRY_FOR_MS = 30_000;

/** This seat's chain in one game, as this browser holds it. */
interface Held {
  readonly chain: OwnChain;
  /** The seat's re-commitment count with this chain applied (0: the game's commitment). */
  readonly n: number;
}

/** Clock phases of the server's phase `play`: between rolls, where a re-commitment is allowed. */
const BETWEEN_ROLLS: ReadonlySet<ClockPhase> = new Set(['decide', 'move', 'take', 'resign']);
/** Clock phases in which a roll is under way (a reveal may be owed). */
const ROLLING: ReadonlySet<ClockPhase> = new Set(['rolloff', 'reveal']);
/** Clock phases of a game being played: between rolls or during one. */
const IN_GAME: ReadonlySet<ClockPhase> = new Set([...BETWEEN_ROLLS, ...ROLLING]);
/** The longest a play waits for this seat's re-commitment before it is sent anyway. */
const RECOMMIT_WAIT_MS = 5_000;
const CANNOT_STORE = 'This browser cannot store the dice secret: do not reload during this game';

export class MatchSession {
  readonly tracker = new Tracker();
  /** The move record of the match (every turn in standard notation), from the same events. */
  readonly record = new RecordBook();
  /** The seat this connection plays (from the welcome), or null for a spectator. */
  seat: Seat | null;
  /** The server's version at the last welcome; automation waits until the events reach it. */
  welcomeV: number | null = null;
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
  readonly connection: Connection;
  private seq: number;
  private readonly pending = new Map<number, PendingAction>();
  private readonly autoSent = new Set<string>();
  /** This seat's chain per game: loading or loaded (null: this browser holds none). */
  private readonly chains = new Map<number, Promise<Held | null>>();
  private readonly held = new Map<number, Held | null>();
  /** The player asked to roll (`game:k`) while the chain was not ready. */
  private rollWanted: string | null = null;
  /** Notices said once (`what:game[:k]`). */
  private readonly said = new Set<string>();
  /** A re-commitment under way: plays that hand the dice over wait for `done`. */
  private recovery: { readonly game: number; readonly done: Promise<void>; readonly finish: () => void } | null = null;
  private readonly verifiers = new Map<number, LiveVerifier>();
  private readonly matchBytes: Uint8Array;
  private readonly listeners = new Set<() => void>();
  private resyncAsked = 0;
  private noticeId = 0;
  private emitQueued = false;
  /** The last event applied had no clock: more of the same transition follow. */
  private midTransition = false;
  private pingTimer: unknown = null;
  private autoTimer: unknown = null;
  private welcomed = false;

  constructor(private readonly options: SessionOptions) {
    this.seat = options.seat?.seat ?? null;
    this.seq = this.seat === null ? 0 : loadSeq(options.storage, options.matchId, this.seat);
    this.matchBytes = fromHex(options.matchId);
    this.connection = new Connection(options.url, options.env, {
      open: () => this.onOpen(),
      message: (frame) => this.onFrame(frame),
      changed: () => this.onLinkChange(),
      probe: () => this.connection.send(ping(this.options.env.now())),
    });
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
    return this.options.env.now() + this.offset;
  }

  /** A server time as this browser's clock. */
  toClient(serverMs: number): number {
    return serverMs - this.offset;
  }

  start(): void {
    this.connection.start();
    this.autoTimer = this.options.env.setTimeout(() => this.tickAutomation(), 500);
  }

  stop(): void {
    this.connection.stop();
    if (this.pingTimer !== null) this.options.env.clearTimeout(this.pingTimer);
    if (this.autoTimer !== null) this.options.env.clearTimeout(this.autoTimer);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- receiving --------------------------------------------------------------------------------

  private onOpen(): void {
    this.welcomed = false;
    // Version 0 asks for the whole log: every roll can be verified (or a snapshot if too long).
    this.connection.send(hello(this.options.matchId, this.options.seat?.token ?? null, this.tracker.version, this.options.name));
  }

  private onLinkChange(): void {
    if (this.connection.state !== 'online') {
      this.welcomed = false;
      this.midTransition = false;
    }
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
    this.automate();
  }

  /** Handle one server frame (public for tests that feed frames directly). */
  receive(frame: ServerFrame): void {
    const t = this.tracker;
    switch (frame.t) {
      case 'welcome': {
        const p = frame.p;
        this.welcomed = true;
        this.everOnline = true;
        this.seat = p.role === 'spectator' ? null : p.role === 'seat0' ? 0 : 1;
        this.welcomeV = p.v;
        this.sampleClock(p.server_time, null);
        this.connection.healthy();
        const applied = p.seq ?? 0;
        if (applied > this.seq) this.setSeq(applied);
        // Resend what the server has not applied; what it applied shows in the events.
        for (const [seq, entry] of [...this.pending].sort((a, b) => a[0] - b[0])) {
          if (seq <= applied) {
            this.pending.delete(seq);
            entry.resolve({ ok: true, v: p.v });
          } else {
            this.sendAction(seq);
          }
        }
        this.startPings();
        break;
      }
      case 'event':
        this.onEvent(frame);
        break;
      case 'snapshot':
        t.applySnapshot(frame.p.v, frame.p.state);
        this.record.applySnapshot(frame.p.v, frame.p.state);
        this.afterSnapshot();
        break;
      case 'ack':
        this.answer(frame.p.seq, { ok: true, v: frame.p.v });
        break;
      case 'reject':
        if (frame.p.seq !== null) this.answer(frame.p.seq, { ok: false, code: frame.p.code, message: frame.p.message });
        break;
      case 'presence':
        this.onPresence(frame.p.seat, frame.p.status, frame.p.deadline);
        break;
      case 'watchers':
        this.watchers = frame.p.count;
        break;
      case 'pong':
        this.sampleClock(frame.p.server_time, this.options.env.now() - frame.p.t);
        break;
      case 'probe':
        // At once: the server grants this connection's round trip as lag allowance.
        this.connection.send(echo(frame.p.t));
        break;
      case 'error':
        this.lastError = frame.p;
        break;
    }
    this.settlePendingMove();
  }

  private onEvent(frame: EventFrame): void {
    const t = this.tracker;
    if (frame.v <= t.version) return; // a duplicate (resume overlap)
    if (frame.v > t.version + 1) {
      // A gap: ask once for what is missing; the events that follow fill it.
      if (this.resyncAsked !== t.version) {
        this.resyncAsked = t.version;
        this.connection.send(resync(t.version));
      }
      return;
    }
    const live = this.caughtUp;
    t.applyEvent(frame);
    this.record.apply(frame);
    this.midTransition = frame.n === null;
    this.afterEvent(frame, live);
  }

  /** The events have reached the version the server had when it welcomed us. */
  get caughtUp(): boolean {
    return this.welcomeV !== null && this.tracker.version >= this.welcomeV;
  }

  private afterEvent(e: EventFrame, live: boolean): void {
    const t = this.tracker;
    const name = (s: Seat) => t.names[s] ?? `Seat ${s}`;
    switch (e.k) {
      case 'committed': {
        const v = new LiveVerifier(this.matchBytes, e.p.game);
        v.commit(e.p.commitment0, e.p.commitment1);
        this.verifiers.set(e.p.game, v);
        break;
      }
      case 'recommitted':
        this.verifiers.get(e.p.game)?.recommit(e.p.seat, e.p.commitment, e.p.k);
        if (e.p.seat === this.seat) {
          if (this.isCurrent(this.held.get(e.p.game) ?? null)) {
            if (live) this.say('New dice chain committed for this device');
            if (this.recovery?.game === e.p.game) this.recovery.finish();
          }
        } else if (live) {
          this.say(`${name(e.p.seat)} committed a new dice chain (lost secret) from roll ${e.p.k}`);
        }
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
          if (verdict.check === 'alarm') this.say(`Dice alarm: ${verdict.why}`, true);
          this.emit();
        });
        if (live && d.kind === 'rolloff') {
          if (d.d1 === d.d2) this.say(`Opening roll: both rolled ${d.d1} — rolling again`);
          else {
            const w: Seat = d.d1 > d.d2 ? 0 : 1;
            this.say(`${name(w)} wins the opening roll ${Math.max(d.d1, d.d2)}–${Math.min(d.d1, d.d2)}`);
          }
        }
        break;
      }
      case 'passed': {
        const last = t.rolls[t.rolls.length - 1];
        if (live) this.say(`${name(e.p.seat)} rolled ${last ? last.dice.join('–') : ''} and cannot move: the turn passes`);
        break;
      }
      case 'taken':
        if (live) this.say(`${name(e.p.seat)} takes: the cube is at ${e.p.value}`);
        break;
      case 'beavered':
        if (live) this.say(`${name(e.p.seat)} beavers: the cube is at ${e.p.value}`);
        break;
      case 'resign_rejected':
        if (live) this.say(`${name(e.p.seat)} rejects the resignation: play on`);
        break;
      case 'commit_received':
        if (live && t.betweenGames && e.p.seat !== this.seat) this.say(`${name(e.p.seat)} is ready for the next game`);
        break;
      case 'seated':
        if (live && e.p.seat === 1) this.say(`${e.p.name ?? 'Your opponent'} joined`);
        break;
      case 'game_over':
        // The game's reveals are all public now: its secret is of no more use.
        if (this.seat !== null) forgetSecret(this.options.storage, { matchId: this.matchBytes, gameNo: e.p.game, seat: this.seat });
        if (this.recovery?.game === e.p.game) this.recovery.finish();
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
      const name = t.names[seat] ?? 'Your opponent';
      if (status === 'reconnecting') this.say(`${name} lost the connection`);
      else if (status === 'gone') this.say(`${name} has gone`);
      else if (before === 'reconnecting' || before === 'gone') this.say(`${name} is back`);
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

  private setSeq(seq: number): void {
    this.seq = seq;
    if (this.seat !== null) saveSeq(this.options.storage, this.options.matchId, this.seat, seq);
  }

  /** Send `action` with a new sequence number; resolves with the server's answer. */
  act(action: Action, user = true): Promise<Reply> {
    this.setSeq(this.seq + 1);
    const seq = this.seq;
    return new Promise<Reply>((resolve) => {
      this.pending.set(seq, { action, resolve, user, tries: 0 });
      this.sendAction(seq);
    });
  }

  private sendAction(seq: number): void {
    const entry = this.pending.get(seq);
    if (!entry || !this.welcomed) return; // sent after the next welcome
    this.connection.send(actionFrame(entry.action, seq));
  }

  private answer(seq: number, reply: Reply): void {
    const entry = this.pending.get(seq);
    if (!entry) return;
    if (!reply.ok && TRY_AGAIN_CODES.has(reply.code) && entry.tries * 1000 < RETRY_FOR_MS) {
      entry.tries++;
      const delay = Math.min(4000, 200 * 2 ** entry.tries) * (0.5 + this.options.env.random());
      this.options.env.setTimeout(() => this.sendAction(seq), delay);
      return;
    }
    this.pending.delete(seq);
    if (!reply.ok && entry.user) this.say(`${entry.action.t === 'move' ? 'Move refused' : 'Refused'}: ${reply.message}`, false);
    entry.resolve(reply);
  }

  private settlePendingMove(): void {
    const p = this.pendingMove;
    if (p && p.ackV !== null && this.tracker.version >= p.ackV) this.pendingMove = null;
  }

  /** Play the dice: a complete legal play. Shown as pending until the ack and its events. */
  async move(moves: readonly Move[]): Promise<Reply | null> {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'move' || this.pendingMove) return null;
    const { game, turn } = t;
    if (this.chainPending()) {
      // After this play the opponent rolls, and this seat must reveal: re-commit first.
      this.pendingMove = { seq: 0, ackV: null };
      this.emit();
      await this.chainSettled();
      this.pendingMove = null;
      if (t.owes(this.seat) !== 'move' || t.game !== game || t.turn !== turn) {
        this.emit();
        return null;
      }
    }
    const promise = this.act(actions.move(game, turn, moves));
    const seq = this.seq;
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

  async roll(user = true): Promise<Reply | null> {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'decide') return null;
    const game = t.game;
    const k = t.k;
    const key = `decide:${game}:${k}`;
    this.autoSent.add(key);
    const held = await this.loadHeld(game);
    if (t.owes(this.seat) !== 'decide' || t.game !== game || t.k !== k) return null;
    if (!held || !this.isCurrent(held)) {
      // The chain is being replaced (a re-commitment): roll as soon as the new one is in.
      this.autoSent.delete(key);
      this.rollWanted = `${game}:${k}`;
      this.automate();
      return null;
    }
    return this.act(actions.roll(game, k, held.chain.reveal(k)), user);
  }

  double(): Promise<Reply> | null {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'decide' || !t.mayDouble(this.seat)) return null;
    // No automation to hold back: with a cube decision possible nothing rolls by itself, and
    // after the answer the roll (now without a cube decision) must still happen.
    return this.act(actions.double(t.game));
  }

  answerDouble(answer: 'take' | 'drop' | 'beaver'): Promise<Reply> | null {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'take') return null;
    const game = t.game;
    // A take hands the dice to the doubler's roll, which this seat must reveal for.
    if (answer !== 'drop' && this.chainPending()) return this.chainSettled().then(() => this.act(actions[answer](game)));
    return this.act(actions[answer](game));
  }

  resign(level: 1 | 2 | 3): Promise<Reply> | null {
    const t = this.tracker;
    const owed = this.seat === null ? null : t.owes(this.seat);
    if (owed !== 'decide' && owed !== 'move') return null;
    return this.act(actions.resign(t.game, level));
  }

  answerResignation(accept: boolean): Promise<Reply> | null {
    const t = this.tracker;
    if (this.seat === null || t.owes(this.seat) !== 'resign') return null;
    return this.act(actions.resignReply(t.game, accept));
  }

  /** Start the next game now (commit), instead of waiting for the automatic commit. */
  nextGame(): void {
    this.nextGameAsked = this.tracker.commitGame;
    this.automate();
  }

  /** End a money session between games. */
  stopSession(): Promise<Reply> | null {
    if (this.seat === null || this.tracker.owes(this.seat) !== 'commit') return null;
    this.autoSent.add(`commit:${this.tracker.commitGame}:stop`);
    return this.act(actions.stop());
  }

  leave(): Promise<Reply> | null {
    if (this.seat === null || this.tracker.over) return null;
    return this.act(actions.leave());
  }

  // ---- dice automation --------------------------------------------------------------------------

  private ctx(game: number, seat: Seat): ChainContext {
    return { matchId: this.matchBytes, gameNo: game, seat };
  }

  private get chainLength(): number {
    return this.options.chainLength ?? CHAIN_LENGTH;
  }

  /** The chain this browser holds for its seat in `game` (from storage), or null. */
  async chain(game: number): Promise<OwnChain | null> {
    return (await this.loadHeld(game))?.chain ?? null;
  }

  /** Load (once) the chain storage holds for this seat in `game`. */
  private loadHeld(game: number): Promise<Held | null> {
    const seat = this.seat;
    if (seat === null) return Promise.resolve(null);
    const known = this.chains.get(game);
    if (known) return known;
    const ctx = this.ctx(game, seat);
    const stored = loadChain(this.options.storage, ctx);
    const held =
      stored === null
        ? Promise.resolve(null)
        : OwnChain.create(ctx, stored.secret, stored.length ?? this.chainLength, stored.from).then((chain) => ({ chain, n: stored.n }));
    return this.track(game, held);
  }

  /** Remember `held` as this seat's chain in `game` once it is built, and act on it. */
  private track(game: number, held: Promise<Held | null>): Promise<Held | null> {
    const safe = held.catch(() => null);
    this.chains.set(game, safe);
    void safe.then((h) => {
      if (this.chains.get(game) !== safe) return; // replaced meanwhile
      this.held.set(game, h);
      this.automate();
    });
    return safe;
  }

  /** The chain to commit to at the start of `game`: the stored one, or a fresh one. */
  private async commitChain(game: number): Promise<Held | null> {
    const seat = this.seat;
    if (seat === null) return null;
    const known = await this.loadHeld(game);
    if (known && known.n === 0) return known;
    const ctx = this.ctx(game, seat);
    const { secret, stored } = obtainSecret(this.options.storage, ctx);
    if (!stored) this.say(CANNOT_STORE, true);
    return this.track(game, OwnChain.create(ctx, secret, this.chainLength).then((chain) => ({ chain, n: 0 })));
  }

  /**
   * Whether `held` is the chain the server checks this seat's next reveal against: the one
   * committed to, or the one of the seat's latest re-commitment (after a snapshot, which
   * carries only their number, the re-commitment count it was made with tells).
   */
  private isCurrent(held: Held | null): boolean {
    const seat = this.seat;
    const t = this.tracker;
    if (seat === null || held === null || t.k > held.chain.length) return false; // run out: a new one
    const count = t.recommits[seat];
    if (count === 0) {
      const c = t.commitments[seat];
      return held.n === 0 && c !== null && constantTimeEqual(held.chain.commitment, c);
    }
    const last = t.lastRecommit[seat];
    if (last) return held.chain.from === last.k && constantTimeEqual(held.chain.commitment, last.commitment);
    return held.n === count;
  }

  /**
   * Whether this browser can reveal this seat's next roll of the current game: true or false,
   * or null while its chain is still being loaded (or no game is being played).
   */
  holdsChain(): boolean | null {
    const t = this.tracker;
    if (this.seat === null || !IN_GAME.has(t.clock.phase)) return null;
    if (!this.held.has(t.game)) return null;
    return this.isCurrent(this.held.get(t.game) ?? null);
  }

  /**
   * Whether this seat's chain for the next roll is not known to be the current one yet while
   * a re-commitment is (or may soon be) under way: a play that lets a roll start waits.
   */
  private chainPending(): boolean {
    const seat = this.seat;
    const t = this.tracker;
    if (seat === null || t.commitments[seat] === null || !BETWEEN_ROLLS.has(t.clock.phase)) return false;
    if (this.recovery?.game === t.game) return true;
    if (!this.held.has(t.game)) return true; // still loading
    return !this.isCurrent(this.held.get(t.game) ?? null) && t.recommits[seat] < MAX_RECOMMITMENTS;
  }

  /** Resolves once the chain is loaded and a re-commitment it needed is done (or given up). */
  private async chainSettled(): Promise<void> {
    await this.loadHeld(this.tracker.game); // once loaded, the automation starts a re-commitment
    await this.recovery?.done;
  }

  /** Resolves once every roll received so far has been checked. */
  async verified(): Promise<void> {
    await Promise.all([...this.verifiers.values()].map((v) => v.idle()));
    await new Promise((r) => queueMicrotask(() => r(null)));
  }

  /** Act by itself where no decision is needed: commit, reveal, roll without a cube choice. */
  automate(): void {
    const seat = this.seat;
    const t = this.tracker;
    if (seat === null || t.over !== null || !this.welcomed || !this.caughtUp) return;
    const owed = t.owes(seat);
    if (owed === 'commit') {
      const game = t.commitGame;
      const key = `commit:${game}`;
      if (this.autoSent.has(key) || this.autoSent.has(`${key}:stop`)) return;
      if (game > 1 && this.nextGameAsked !== game && !this.commitDue()) return;
      this.autoSent.add(key);
      void this.commitChain(game).then((held) => {
        if (held) void this.act(actions.commit(game, held.chain.commitment), false);
      });
      return;
    }
    // A game is being played: its commitments are published.
    const phase = t.clock.phase;
    if (this.midTransition || !IN_GAME.has(phase)) return;
    const { game, k } = t;
    if (!this.held.has(game)) {
      void this.loadHeld(game); // acts again once loaded
      return;
    }
    const held = this.held.get(game) ?? null;
    if (!held || !this.isCurrent(held)) {
      this.recover(game, owed);
    } else if (owed === 'rolloff' || owed === 'reveal') {
      const key = `${owed}:${game}:${k}`;
      if (this.autoSent.has(key)) return;
      this.autoSent.add(key);
      void this.act(actions.reveal(game, k, held.chain.reveal(k)), false);
    } else if (owed === 'decide') {
      const wanted = this.rollWanted === `${game}:${k}`;
      if ((t.mayDouble(seat) && !wanted) || this.autoSent.has(`decide:${game}:${k}`)) return;
      void this.roll(wanted);
    }
  }

  /**
   * This browser does not hold the chain the seat's next reveal must come from (the seat was
   * opened on another device, or storage was cleared): re-commit a fresh chain between rolls
   * (docs/fairness.md, section 7). During a roll that is not allowed, and the seat cannot
   * reveal: say so once, and send nothing.
   */
  private recover(game: number, owed: ClockPhase | null): void {
    const seat = this.seat!;
    const t = this.tracker;
    const k = t.k;
    if (t.recommits[seat] >= MAX_RECOMMITMENTS) {
      this.sayOnce(
        `limit:${game}`,
        `This browser does not hold this seat's dice secret, and the seat has already committed a new chain ${MAX_RECOMMITMENTS} times in this game (the limit): it cannot reveal its dice, and forfeits at its next roll`,
      );
      return;
    }
    if (!BETWEEN_ROLLS.has(t.clock.phase)) {
      if (owed === 'rolloff' || owed === 'reveal') {
        this.sayOnce(
          `lost:${game}:${k}`,
          'This browser does not hold the dice secret this seat committed to for this game, and a new one can only be committed between rolls: this seat cannot reveal for this roll',
        );
      }
      return; // a roll the seat does not owe a reveal for: re-commit once it is complete
    }
    const key = `recommit:${game}:${k}`;
    if (this.autoSent.has(key)) return; // one try per roll: a refusal does not loop
    this.autoSent.add(key);
    let finish = () => {};
    const done = new Promise<void>((resolve) => (finish = resolve));
    const recovery = {
      game,
      done,
      finish: () => {
        if (this.recovery === recovery) this.recovery = null;
        finish();
      },
    };
    this.recovery = recovery;
    const timer = this.options.env.setTimeout(recovery.finish, RECOMMIT_WAIT_MS);
    void done.then(() => this.options.env.clearTimeout(timer));
    void this.recommit(game, k, key).then((ok) => {
      if (!ok) recovery.finish();
    });
  }

  /**
   * Make, store and send a fresh chain serving rolls from `k` on. False when it was not sent
   * or was refused (true: accepted; the `recommitted` event says it is in).
   */
  private async recommit(game: number, k: number, key: string): Promise<boolean> {
    const seat = this.seat!;
    const t = this.tracker;
    const ctx = this.ctx(game, seat);
    const n = t.recommits[seat] + 1;
    const length = Math.max(this.chainLength, 2 * k); // as many rolls ahead as behind, at least
    const secret = newSecret();
    const chain = await OwnChain.create(ctx, secret, length, k);
    const still = t.game === game && t.k === k && BETWEEN_ROLLS.has(t.clock.phase) && t.recommits[seat] + 1 === n;
    if (!still || this.isCurrent(this.held.get(game) ?? null)) {
      // The moment passed while the chain was built (a roll began, or the state changed).
      this.autoSent.delete(key);
      queueMicrotask(() => this.automate());
      return false;
    }
    // Stored before it is sent: a reload after the re-commitment finds the new secret.
    if (!storeRecommitted(this.options.storage, ctx, { secret, from: k, length, n })) {
      this.say(CANNOT_STORE, true);
    }
    const held: Held = { chain, n };
    this.chains.set(game, Promise.resolve(held));
    this.held.set(game, held);
    const reply = await this.act(actions.recommit(game, chain.commitment), false);
    if (!reply.ok) this.say(`Could not commit a new dice chain: ${reply.message}`, true);
    else if (this.isCurrent(held)) this.recovery?.finish(); // its event came before the ack
    return reply.ok;
  }

  /** Between games: the player has had part of the commit clock to read the result. */
  private commitDue(): boolean {
    const at = this.autoCommitAt();
    return at === null || this.serverNow() >= at;
  }

  /**
   * When (server ms) this seat commits to the next game by itself, between games; null when
   * nothing waits (or it already committed).
   */
  autoCommitAt(): number | null {
    const t = this.tracker;
    if (this.seat === null || !t.betweenGames || t.owes(this.seat) !== 'commit') return null;
    if (this.autoSent.has(`commit:${t.commitGame}`)) return null;
    const deadline = t.clock.deadline;
    if (deadline === null) return null;
    const budget = t.settings?.move_time ?? 30_000;
    return deadline - budget * (1 - (this.options.autoNextShare ?? 0.5));
  }

  private tickAutomation(): void {
    this.automate();
    this.autoTimer = this.options.env.setTimeout(() => this.tickAutomation(), 500);
  }

  // ---- notifications ----------------------------------------------------------------------------

  say(text: string, alarm = false): void {
    this.notice = { id: ++this.noticeId, text, alarm };
    this.emit();
  }

  private sayOnce(key: string, text: string): void {
    if (this.said.has(key)) return;
    this.said.add(key);
    this.say(text, true);
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
      if (this.midTransition) return;
      for (const listener of this.listeners) listener();
    });
  }
}
