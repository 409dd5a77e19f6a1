/**
 * A scripted stand-in for the server's dice protocol, for session tests: one single-game match
 * on FakeSockets, with the server's checks of commitments, reveals and re-commitments
 * (docs/fairness.md sections 3, 4 and 7; server/machine/core.py). No rules engine: a turn's
 * play is a `move` with no checker moves, answered with `passed`. It keeps its event log, can
 * answer a hello with a snapshot instead of the log, and writes the game's transcript the way
 * server/exports.py does, for the shared verifier.
 */

import { startPosition } from '../src/engine/position';
import { MAX_RECOMMITMENTS, type Seat, constantTimeEqual, deriveDice, toHex, verifyLink } from '../src/fairdice';
import type { FakeEnv, FakeSocket } from './fakeServer';

type Phase = 'commit' | 'rolloff' | 'play' | 'reveal' | 'over';
type Clock = { phase: string; seats: number[]; deadline: number | null };
interface Logged {
  v: number;
  t: number;
  k: string;
  p: Record<string, unknown>;
  n: Clock | null;
}

export class DiceServer {
  readonly log: Logged[] = [];
  phase: Phase = 'commit';
  commitments: [Uint8Array | null, Uint8Array | null] = [null, null];
  heads: [Uint8Array | null, Uint8Array | null] = [null, null];
  pending: [Uint8Array | null, Uint8Array | null] = [null, null];
  /** The next roll index. */
  k = 1;
  recommits: [number, number] = [0, 0];
  /** Who must act now in phase play: the roller deciding, or the mover. */
  clock: Clock = { phase: 'commit', seats: [0, 1], deadline: null };
  onRoll: Seat | null = null;
  turn = 0;
  /** Every action received, by seat: `t` and payload. */
  readonly received: { seat: Seat; t: string; p: Record<string, unknown> }[] = [];
  /** Reply to the next hello with a snapshot instead of the event log. */
  snapshotNext = false;
  private readonly seatSockets: [FakeSocket | null, FakeSocket | null] = [null, null];
  private readonly sockets = new Set<FakeSocket>();
  private readonly lastSeq: [number, number] = [0, 0];
  private readonly replies = new Map<string, Record<string, unknown>>();
  private firstMover: Seat | null = null;
  private queue: Promise<void> = Promise.resolve();
  /** Frames from these seats are lost on the way ('*'), or will be after the next of a type. */
  private readonly muted: [string | null, string | null] = [null, null];

  constructor(
    readonly env: FakeEnv,
    readonly matchId: string,
    readonly game = 1,
  ) {
    this.emit('match_created', { mode: 'single_game', length: null, jacoby: false, beavers: false, move_time: 30_000 });
    this.emit('seated', { seat: 0, name: 'Ann' }, this.at('waiting', []));
    this.emit('seated', { seat: 1, name: 'Bob' }, this.at('commit', [0, 1]));
  }

  /** Serve a session's socket (call after session.start(); opens it). */
  attach(sock: FakeSocket): void {
    this.sockets.add(sock);
    // One frame at a time, after the sender's current task (like a real round trip).
    sock.onSend = (frame) => {
      this.queue = this.queue.then(() => this.handle(sock, frame)).catch((err) => console.error('dice server', err));
    };
    sock.open();
  }

  // ---- the wire ---------------------------------------------------------------------------------

  private at(phase: string, seats: number[]): Clock {
    return { phase, seats, deadline: this.env.time + 30_000 };
  }

  private emit(k: string, p: Record<string, unknown>, n: Clock | null = null): void {
    const e: Logged = { v: this.log.length + 1, t: this.env.time, k, p, n };
    this.log.push(e);
    if (n) this.clock = n;
    for (const sock of this.sockets) sock.deliver({ t: 'event', v: e.v, k, p, n });
  }

  /**
   * Lose what `seat` sends from now on, or only after its next frame of type `after` (its
   * socket stays open: the page thinks it was sent). A new hello for the seat ends it.
   */
  mute(seat: Seat, after: string | null = null): void {
    this.muted[seat] = after ?? '*';
  }

  /** Resolves once every frame received so far has been handled. */
  idle(): Promise<void> {
    return this.queue;
  }

  private async handle(sock: FakeSocket, frame: Record<string, unknown>): Promise<void> {
    const p = (frame.p ?? {}) as Record<string, unknown>;
    if (frame.t === 'hello') return this.hello(sock, p);
    if (frame.t === 'ping' || frame.t === 'echo' || frame.t === 'resync') return;
    if (frame.t === 'chat_sync' || frame.t === 'chat_send') return; // no chat here: no lines
    const seat = this.seatSockets.indexOf(sock);
    if (seat < 0) return;
    const mute = this.muted[seat];
    if (mute === '*') return;
    if (mute === frame.t) this.muted[seat] = '*';
    const seq = frame.s as number;
    if (seq <= this.lastSeq[seat]!) {
      const again = this.replies.get(`${seat}:${seq}`);
      if (again) sock.deliver(again);
      return;
    }
    this.received.push({ seat: seat as Seat, t: frame.t as string, p });
    const v0 = this.log.length;
    const problem = await this.act(seat as Seat, frame.t as string, p);
    if (problem) {
      sock.deliver({ t: 'reject', p: { seq, code: problem[0], message: problem[1] } });
      return;
    }
    this.lastSeq[seat] = seq;
    const ack = { t: 'ack', p: { seq, v: this.log.length > v0 ? this.log.length : v0 } };
    this.replies.set(`${seat}:${seq}`, ack);
    sock.deliver(ack);
  }

  private hello(sock: FakeSocket, p: Record<string, unknown>): void {
    const seat = p.token === 'token-0' ? 0 : p.token === 'token-1' ? 1 : null;
    if (seat !== null) {
      const old = this.seatSockets[seat];
      if (old && old !== sock) {
        old.deliver({ t: 'error', p: { code: 'replaced', message: 'a new connection took over this seat' } });
        this.sockets.delete(old);
        old.drop(4003, 'replaced');
      }
      this.seatSockets[seat] = sock;
      this.muted[seat] = null;
    }
    const role = seat === null ? 'spectator' : `seat${seat}`;
    const v = this.log.length;
    sock.deliver({ t: 'welcome', p: { role, match: this.matchId, v, server_time: this.env.time, seq: seat === null ? null : this.lastSeq[seat] } });
    if (this.snapshotNext) {
      this.snapshotNext = false;
      sock.deliver({ t: 'snapshot', p: { v, state: this.snapshot() } });
      return;
    }
    const from = (p.last_v as number | null) ?? 0;
    for (const e of this.log.slice(from)) sock.deliver({ t: 'event', v: e.v, k: e.k, p: e.p, n: e.n });
  }

  private snapshot(): Record<string, unknown> {
    const start = startPosition().mover;
    return {
      match: this.matchId,
      settings: this.log[0]!.p,
      seats: [
        { name: 'Ann', status: 'online' },
        { name: 'Bob', status: 'online' },
      ],
      score: [0, 0],
      game: {
        game: this.game,
        crawford: false,
        phase: this.clock.phase,
        turn: this.turn,
        on_roll: this.onRoll,
        k: this.k - 1,
        dice: null,
        boards: [start, start],
        cube: { value: 1, owner: null },
        double: null,
        resignation: null,
        commitments: this.commitments[0] && this.commitments[1] ? this.commitments : [null, null],
        recommits: this.recommits,
        clock: this.clock,
        result: null,
        heads: this.commitments[0] && this.commitments[1] ? this.heads : [null, null],
      },
      result: null,
    };
  }

  // ---- the match --------------------------------------------------------------------------------

  /** Apply one action; a [code, message] rejection leaves everything as it was. */
  private async act(seat: Seat, t: string, p: Record<string, unknown>): Promise<[string, string] | null> {
    const game = p.game as number;
    if (t !== 'leave' && game !== this.game) return ['wrong_game', `this is game ${this.game}`];
    switch (t) {
      case 'commit':
        return this.commit(seat, p.commitment as Uint8Array);
      case 'recommit':
        return this.recommit(seat, p.commitment as Uint8Array);
      case 'reveal':
      case 'roll':
        return this.reveal(seat, t, p.k as number, p.reveal as Uint8Array);
      case 'move':
        if (this.phase !== 'play' || this.clock.phase !== 'move' || this.onRoll !== seat) return ['wrong_phase', 'not your move'];
        this.turn++;
        this.onRoll = (1 - seat) as Seat;
        this.emit('passed', { game, seat, turn: p.turn as number }, this.at('decide', [1 - seat]));
        return null;
      default:
        return ['unknown', `no ${t} here`];
    }
  }

  private commit(seat: Seat, value: Uint8Array): [string, string] | null {
    if (this.phase !== 'commit') return ['wrong_phase', 'not committing'];
    if (this.commitments[seat]) return ['bad_commitment', 'already_committed'];
    this.commitments[seat] = value;
    this.heads[seat] = value;
    const other = this.commitments[1 - seat];
    if (!other) {
      this.emit('commit_received', { game: this.game, seat }, this.at('commit', [1 - seat]));
      return null;
    }
    this.emit('committed', { game: this.game, commitment0: this.commitments[0], commitment1: this.commitments[1] });
    this.phase = 'rolloff';
    this.emit('game_started', { game: this.game, crawford: false, score: [0, 0] }, this.at('rolloff', [0, 1]));
    return null;
  }

  private recommit(seat: Seat, value: Uint8Array): [string, string] | null {
    // The checks of _recommit and check_recommitment, in their order.
    if (this.phase !== 'play') return ['wrong_phase', 're-commit between rolls'];
    if (!this.commitments[seat]) return ['bad_commitment', 'not_committed'];
    if (this.pending[0] || this.pending[1]) return ['bad_commitment', 'roll_in_progress'];
    if (this.recommits[seat] >= MAX_RECOMMITMENTS) return ['bad_commitment', 'too_many_recommitments: at most 3 per game'];
    if (value.length !== 32) return ['bad_commitment', 'wrong_length'];
    if (value.every((b) => b === 0)) return ['bad_commitment', 'all_zero'];
    if (constantTimeEqual(value, this.heads[1 - seat]!)) return ['bad_commitment', 'same_as_opponent'];
    this.heads[seat] = value;
    this.recommits[seat]++;
    this.emit('recommitted', { game: this.game, seat, commitment: value, k: this.k }, this.clock);
    return null;
  }

  private async reveal(seat: Seat, t: string, k: number, value: Uint8Array): Promise<[string, string] | null> {
    if (t === 'roll' && (this.phase !== 'play' || this.clock.phase !== 'decide' || this.onRoll !== seat)) return ['wrong_phase', 'not your roll'];
    if (t === 'reveal' && !(this.phase === 'rolloff' || (this.phase === 'reveal' && this.onRoll !== seat))) return ['wrong_phase', 'no reveal due'];
    if (this.pending[seat]) return ['duplicate', 'you already revealed for this roll'];
    if (k !== this.k) return ['stale', `the next roll is ${this.k}, not ${k}`];
    // The real server's check (link_ok): the reveal must hash to the seat's previous link.
    if (!(await verifyLink({ matchId: this.matchBytes, gameNo: this.game, seat }, k, value, this.heads[seat]!))) {
      this.forfeit(seat, 'invalid_reveal', value);
      return null;
    }
    this.pending[seat] = value;
    if (t === 'roll') {
      this.phase = 'reveal';
      this.emit('rolling', { game: this.game, k, seat }, this.at('reveal', [1 - seat]));
      return null;
    }
    if (!this.pending[1 - seat]) {
      this.emit('revealed', { game: this.game, k, seat }, this.at(this.phase === 'rolloff' ? 'rolloff' : 'reveal', [1 - seat]));
      return null;
    }
    await this.roll();
    return null;
  }

  get matchBytes(): Uint8Array {
    const out = new Uint8Array(16);
    for (let i = 0; i < 16; i++) out[i] = parseInt(this.matchId.slice(2 * i, 2 * i + 2), 16);
    return out;
  }

  /** Both reveals are in: check them, derive the dice, publish. */
  private async roll(): Promise<void> {
    const [r0, r1] = this.pending as [Uint8Array, Uint8Array];
    const k = this.k;
    const [d1, d2] = await deriveDice(this.matchBytes, this.game, k, r0, r1);
    this.heads = [r0, r1];
    this.pending = [null, null];
    this.k = k + 1;
    if (this.phase === 'rolloff') {
      if (d1 === d2) {
        this.emit('dice', { game: this.game, k, kind: 'rolloff', roller: null, reveal0: r0, reveal1: r1, d1, d2 }, this.at('rolloff', [0, 1]));
        return;
      }
      const first: Seat = d1 > d2 ? 0 : 1;
      this.firstMover = first;
      this.onRoll = first;
      this.turn = 1;
      this.phase = 'play';
      this.emit('dice', { game: this.game, k, kind: 'rolloff', roller: null, reveal0: r0, reveal1: r1, d1, d2 }, this.at('move', [first]));
      return;
    }
    this.phase = 'play';
    this.emit('dice', { game: this.game, k, kind: 'turn', roller: this.onRoll, reveal0: r0, reveal1: r1, d1, d2 }, this.at('move', [this.onRoll!]));
  }

  private forfeit(seat: Seat, reason: string, evidence: Uint8Array | null): void {
    this.phase = 'over';
    const winner = 1 - seat;
    this.emit('forfeit', { game: this.game, seat, reason, evidence });
    this.emit('game_over', { game: this.game, winner, points: 1, result: 'single', reason: 'forfeit', score: [winner === 0 ? 1 : 0, winner === 1 ? 1 : 0] });
    this.emit('match_over', { winner, score: [winner === 0 ? 1 : 0, winner === 1 ? 1 : 0], reason: 'forfeit' }, this.at('over', []));
  }

  /** The reveal clock ran out for `seat`. */
  noReveal(seat: Seat): void {
    this.forfeit(seat, 'no_reveal', null);
  }

  /** End the game: `loser` resigns a single game, the other accepts. */
  resign(loser: Seat): void {
    const winner = 1 - loser;
    const score = [winner === 0 ? 1 : 0, winner === 1 ? 1 : 0];
    this.phase = 'over';
    this.emit('resign_offered', { game: this.game, seat: loser, level: 1 });
    this.emit('resign_accepted', { game: this.game, seat: winner });
    this.emit('game_over', { game: this.game, winner, points: 1, result: 'single', reason: 'resign', score });
    this.emit('match_over', { winner, score, reason: 'completed' }, this.at('over', []));
  }

  /** The finished game's transcript, built from the event log as server/exports.py does. */
  transcript(): Record<string, unknown> {
    const hex = (b: unknown) => toHex(b as Uint8Array);
    const committedAt: Record<number, [number, number]> = {};
    const commitments: Record<string, unknown>[] = [];
    const recommitments: Record<string, unknown>[] = [];
    const rolls: Record<string, unknown>[] = [];
    const actions: Record<string, unknown>[] = [];
    let result: Record<string, unknown> | null = null;
    let forfeit: Record<string, unknown> | null = null;
    let lastK = 0;
    for (const e of this.log) {
      const p = e.p;
      switch (e.k) {
        case 'commit_received':
          committedAt[p.seat as number] = [e.v, e.t];
          break;
        case 'committed':
          for (const seat of [0, 1]) {
            const [v, t] = committedAt[seat] ?? [e.v, e.t];
            commitments.push({ seat, commitment: hex(p[`commitment${seat}`]), v, t });
          }
          break;
        case 'recommitted':
          recommitments.push({ seat: p.seat, applies_from: p.k, commitment: hex(p.commitment), v: e.v, t: e.t });
          break;
        case 'rolling':
          actions.push({ v: e.v, t: e.t, seat: p.seat, type: 'roll', k: p.k });
          break;
        case 'dice':
          rolls.push({ k: p.k, kind: p.kind, roller: p.roller, reveals: [hex(p.reveal0), hex(p.reveal1)], d1: p.d1, d2: p.d2, v: e.v, t: e.t });
          lastK = p.k as number;
          break;
        case 'passed':
          actions.push({ v: e.v, t: e.t, seat: p.seat, type: 'move', k: lastK, moves: [] });
          break;
        case 'resign_offered':
          actions.push({ v: e.v, t: e.t, seat: p.seat, type: 'resign', value: p.level });
          break;
        case 'resign_accepted':
          actions.push({ v: e.v, t: e.t, seat: p.seat, type: 'accept' });
          break;
        case 'forfeit':
          forfeit = p;
          break;
        case 'game_over': {
          const reason = p.reason === 'forfeit' ? (forfeit!.reason as string) : (p.reason as string);
          const evidence = forfeit?.evidence ? { k: lastK + 1, seat: forfeit.seat, reveal: hex(forfeit.evidence) } : null;
          result = { winner: p.winner, reason, multiplier: 1, cube: 1, points: 1, v: e.v, t: e.t, evidence };
          break;
        }
      }
    }
    return {
      format: 'fairgammon-transcript/1',
      scheme: 'fairgammon/v1',
      match_id: this.matchId,
      game_no: this.game,
      seats: [
        { seat: 0, name: 'Ann' },
        { seat: 1, name: 'Bob' },
      ],
      commitments,
      recommitments,
      rolls,
      actions,
      result,
    };
  }

  /** The seat that plays first (after the roll-off). */
  get first(): Seat | null {
    return this.firstMover;
  }
}
