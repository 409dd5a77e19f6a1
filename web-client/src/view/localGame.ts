/**
 * A local hot-seat game: two players on one device (`/local`). It plays the server's part (legal
 * plays only, cube, clocks, results, match score) and feeds a GameView. The rules of the match
 * (Crawford, when the cube may be turned, resignation and forfeit levels, points, the end of the
 * match) are the engine's, from engine/matchRules.ts; test/matchRules.test.ts plays the
 * engine's own matches (test/fixtures/match-rules.json) through this class. Dice come from a
 * DiceSource.
 */

import { ltr, t } from '../i18n';
import {
  type EndReason,
  type MatchRules,
  type ResultLevel,
  cubeInPlay,
  nextGameIsCrawford,
  resignationLevels,
  resultPoints,
  scoreGame,
  worstPossible,
} from '../engine/matchRules';
import type { Move } from '../engine/movegen';
import { type Board, type Position, positionKey } from '../engine/position';
import { type VariantName, type VariantRules, gameVariant, hasCube, legalPlaysOf, rulesOf } from '../engine/variants';
import type { DiceSource } from './dice';
import type {
  ClockView,
  CubeView,
  DiceView,
  FairnessView,
  GameSource,
  GameView,
  MatchKind,
  Offer,
  Phase,
  Presence,
  ResultReason,
  ResultView,
  Seat,
} from './gameView';
import { canDouble, other } from './gameView';

export interface LocalGameOptions {
  readonly kind: MatchKind;
  /** Match length (kind 'match'). */
  readonly length: number;
  /** Seconds per decision; 0 = no clock. */
  readonly clockSeconds: number;
  readonly names: readonly [string, string];
  readonly dice: DiceSource;
  /** Start from this position with seat 0 on roll (no roll-off). */
  readonly position?: Position;
  /** Pause before a turn without a legal play passes, so the notice can be read. */
  readonly passDelayMs?: number;
  readonly now?: () => number;
  /** Answer plays only after this many ms, like a server round trip (the UI shows "sending"). */
  readonly latencyMs?: number;
  /** Refuse this many of the first plays (after the latency), as a server might. */
  readonly refusePlays?: number;
  /** Show the board read-only from seat 0's side, as a spectator sees it. */
  readonly spectator?: boolean;
  /** How the players' connections are shown (a network game reports them; here for show). */
  readonly presence?: readonly [Presence, Presence];
  /** Spectator count to show. */
  readonly spectators?: number;
  /** Keep the board drawn from this seat's side whoever plays (else it turns to the player). */
  readonly side?: Seat | null;
  /** Money: the Jacoby rule (the /local setup does not offer it: off). */
  readonly jacoby?: boolean;
  /** What the match is played under (default backgammon); 'tavli' (kind 'match', `length` its
   * target) rotates portes, plakoto and fevga, the previous game's winner opening the next. */
  readonly variant?: VariantName;
}

/**
 * A local game as saved in the browser (plain JSON: no class names), at a moment it waits for a
 * player: deciding, moving, answering an offer or between games. Version 1.
 */
export interface LocalSave {
  readonly v: 1;
  readonly boards: [Board, Board];
  readonly turn: Seat | null;
  readonly phase: 'decide' | 'moving' | 'offer' | 'gameover';
  readonly viewer: Seat;
  readonly dice: DiceView | null;
  readonly cube: CubeView;
  readonly score: [number, number];
  readonly gameNo: number;
  readonly crawford: boolean;
  readonly crawfordPlayed: boolean;
  readonly offer: Offer | null;
  readonly lastPlay: GameView['lastPlay'];
  readonly phaseBeforeOffer: Phase;
  readonly result: ResultView | null;
  readonly fairness: FairnessView | null;
  readonly k: number;
  /** The resignation level the opponent rejected in the decision under way (absent in saves
   * made before it was kept: none). */
  readonly declined?: ResultLevel | null;
  /** Plakoto's pinned checkers per seat (absent: none). */
  readonly pinned?: [number, number];
  /** Tavli: the seat that opens the next game (absent: a roll-off). */
  readonly opener?: Seat | null;
}

export class LocalGame implements GameSource {
  private readonly listeners = new Set<(view: GameView) => void>();
  private readonly now: () => number;
  private boards: [Board, Board];
  private pins: [number, number] = [0, 0];
  /** Tavli: the previous game's winner opens the next game (null: a roll-off decides). */
  private opener: Seat | null = null;
  private readonly variant: VariantName;
  private turn: Seat | null = null;
  private phase: Phase = 'waiting';
  private viewer: Seat = 0;
  private dice: DiceView | null = null;
  private cube: CubeView;
  private score: [number, number] = [0, 0];
  private gameNo = 1;
  private crawford = false;
  private crawfordPlayed = false;
  private offer: Offer | null = null;
  private lastPlay: GameView['lastPlay'] = null;
  private phaseBeforeOffer: Phase = 'decide';
  /** The highest resignation level rejected from the seat on roll in this decision. */
  private declined: ResultLevel | null = null;
  private result: ResultView | null = null;
  private noticeId = 0;
  private notice: GameView['notice'] = null;
  private fairness: FairnessView | null = null;
  private clocks: [ClockView, ClockView];
  private k = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private pending = false;
  private readonly shownSince: number;
  private refusals = 0;
  private epoch = 0; // bumps on every new game so stale async work is dropped
  /** Paused: the clock is stopped with this much left (ms), and nothing moves on. */
  private pausedLeft: number | null = null;

  private readonly rules: MatchRules;

  constructor(private readonly options: LocalGameOptions) {
    this.now = options.now ?? Date.now;
    this.shownSince = this.now();
    this.variant = options.variant ?? 'backgammon';
    this.rules = { kind: options.kind, length: options.length, jacoby: options.kind === 'money' && (options.jacoby ?? false) };
    this.cube = { value: 1, owner: null, enabled: this.cubeInPlay() };
    const start = this.gameRules().start();
    this.boards = [start.mover, start.opponent];
    const budgetMs = options.clockSeconds * 1000;
    this.clocks = [
      { deadline: null, budgetMs, reserve: null },
      { deadline: null, budgetMs, reserve: null },
    ];
  }

  /** Begin the first game. */
  async start(): Promise<void> {
    await this.startGame();
  }

  current(): GameView {
    const presence = this.options.presence ?? ['online', 'online'];
    const forfeitAt = (seat: Seat) => (presence[seat] === 'online' ? null : this.shownSince + 60_000);
    return {
      viewer: this.options.spectator ? null : this.viewer,
      players: [
        { name: this.options.names[0], presence: presence[0], forfeitAt: forfeitAt(0) },
        { name: this.options.names[1], presence: presence[1], forfeitAt: forfeitAt(1) },
      ],
      boards: this.boards,
      variant: this.gameRules().name,
      pinned: this.pins,
      turn: this.turn,
      phase: this.phase,
      dice: this.dice,
      cube: this.cube,
      match: {
        kind: this.options.kind,
        length: this.options.kind === 'match' ? this.options.length : 0,
        score: this.score,
        crawford: this.crawford,
        gameNo: this.gameNo,
        variant: this.variant,
      },
      clocks: this.clocks,
      offer: this.offer,
      lastPlay: this.lastPlay,
      result: this.result,
      notice: this.notice,
      fairness: this.fairness,
      spectators: this.options.spectators ?? 0,
      pending: this.pending,
      version: 0,
      resignLevels: this.resignLevels(),
      shared: true,
      side: this.options.side ?? null,
      paused: this.pausedLeft !== null,
    };
  }

  subscribe(listener: (view: GameView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(): void {
    const view = this.current();
    for (const listener of this.listeners) listener(view);
  }

  private say(text: string): void {
    this.notice = { id: ++this.noticeId, text };
  }

  private name(seat: Seat): string {
    return this.options.names[seat];
  }

  private position(): Position {
    const turn = this.turn ?? 0;
    return { mover: this.boards[turn], opponent: this.boards[other(turn)], moverPinned: this.pins[turn], opponentPinned: this.pins[other(turn)] };
  }

  /** The rules of the game under way. */
  private gameRules(): VariantRules {
    return rulesOf(gameVariant(this.variant, this.gameNo));
  }

  private cubeInPlay(): boolean {
    return hasCube(this.variant) && cubeInPlay(this.options.kind, this.crawford);
  }

  /** The levels the seat on turn may resign at now (deciding or moving), else undefined. */
  private resignLevels(): ResultLevel[] | undefined {
    if ((this.phase !== 'decide' && this.phase !== 'moving') || this.turn === null) return undefined;
    const rules = this.gameRules();
    if (rules.name === 'backgammon') return resignationLevels(this.boards[this.turn], this.boards[other(this.turn)], this.declined);
    const worst = rules.worstPossible(this.boards[this.turn], this.boards[other(this.turn)]);
    return ([1, 2, 3] as const).filter((level) => level > (this.declined ?? 0) && level <= worst);
  }

  // ---- clocks -------------------------------------------------------------------------------

  private runClock(seat: Seat | null, left?: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const budgetMs = this.options.clockSeconds * 1000;
    const deadline = seat !== null && budgetMs > 0 ? this.now() + (left ?? budgetMs) : null;
    this.clocks = [
      { deadline: seat === 0 ? deadline : null, budgetMs, reserve: null },
      { deadline: seat === 1 ? deadline : null, budgetMs, reserve: null },
    ];
    if (seat !== null && deadline !== null) {
      const epoch = this.epoch;
      this.timer = setTimeout(() => {
        if (epoch === this.epoch) this.forfeit(seat, 'timeout');
      }, deadline - this.now());
    }
  }

  // ---- game flow ----------------------------------------------------------------------------

  private async startGame(): Promise<void> {
    const epoch = ++this.epoch;
    const start = this.options.position && this.gameNo === 1 ? this.options.position : this.gameRules().start();
    this.boards = [start.mover, start.opponent];
    this.pins = [start.moverPinned ?? 0, start.opponentPinned ?? 0];
    this.cube = { value: 1, owner: null, enabled: this.cubeInPlay() };
    this.declined = null;
    this.result = null;
    this.offer = null;
    this.lastPlay = null;
    this.dice = null;
    this.k = 0;
    this.turn = null;
    this.phase = 'rolloff';
    this.runClock(null);
    this.emit();
    const commitments = await this.options.dice.startGame(this.gameNo);
    if (epoch !== this.epoch) return;
    this.fairness = commitments ? { commitments, rolls: [] } : null;
    if (this.options.position && this.gameNo === 1) {
      this.turn = 0;
      this.viewer = 0;
      await this.rollDice();
    } else if (this.variant === 'tavli' && this.opener !== null) {
      // Tavli: the previous game's winner opens, rolling both dice.
      this.turn = this.opener;
      this.viewer = this.opener;
      this.say(t('local.opens', { name: this.name(this.opener) }));
      await this.rollDice();
    } else {
      await this.rollOff(epoch);
    }
  }

  private async rollOff(epoch: number): Promise<void> {
    for (;;) {
      const roll = await this.options.dice.roll(++this.k);
      if (epoch !== this.epoch) return;
      this.record(roll.record);
      const [d0, d1] = roll.values;
      this.dice = { k: this.k, values: roll.values, seat: null, check: roll.check };
      if (d0 !== d1) {
        const winner: Seat = d0 > d1 ? 0 : 1;
        this.turn = winner;
        this.viewer = winner;
        this.dice = { ...this.dice, seat: winner };
        this.say(t('notice.winsRolloff', { who: 'other', name: this.name(winner), dice: ltr(`${Math.max(d0, d1)}–${Math.min(d0, d1)}`) }));
        // The Greek games: the roll-off's winner rolls both dice again for the first play.
        if (this.gameRules().opening === 'reroll') {
          this.emit();
          void this.rollDice();
          return;
        }
        this.enterMoving();
        return;
      }
      this.say(t('local.rolloffTie', { dice: ltr(`${d0}–${d1}`) }));
      this.emit();
    }
  }

  private record(record: FairnessView['rolls'][number] | null): void {
    if (this.fairness && record) {
      this.fairness = { ...this.fairness, rolls: [...this.fairness.rolls, record] };
    }
  }

  private async rollDice(): Promise<void> {
    const epoch = this.epoch;
    const seat = this.turn!;
    this.phase = 'rolling';
    this.runClock(null);
    this.emit();
    const roll = await this.options.dice.roll(++this.k);
    if (epoch !== this.epoch) return;
    this.record(roll.record);
    this.dice = { k: this.k, values: roll.values, seat, check: roll.check };
    if (roll.check === 'alarm') this.say(t('local.mismatch'));
    this.enterMoving();
  }

  private enterMoving(): void {
    this.phase = 'moving';
    this.declined = null;
    const seat = this.turn!;
    this.viewer = seat;
    const [d1, d2] = this.dice!.values;
    if (legalPlaysOf(this.gameRules(), this.position(), d1, d2).length === 0) {
      this.say(t('notice.passed', { who: 'other', name: this.name(seat), dice: ltr(`${d1}–${d2}`) }));
      this.runClock(null);
      this.emit();
      const epoch = this.epoch;
      const k = this.k;
      setTimeout(() => {
        if (epoch === this.epoch && this.k === k && this.phase === 'moving') this.endTurn();
      }, this.options.passDelayMs ?? 1500);
      return;
    }
    this.runClock(seat);
    this.emit();
  }

  private endTurn(): void {
    const next = other(this.turn!);
    this.turn = next;
    this.viewer = next;
    this.offer = null;
    this.declined = null;
    this.phase = 'decide';
    if (canDouble(this.current())) {
      this.dice = null;
      this.runClock(next);
      this.emit();
    } else {
      void this.rollDice();
    }
  }

  /** The game ends: `winner` wins at `level` (for a drop, 1) times the cube, as `end` says;
   * `winner` null: a drawn game (plakoto, both mothers pinned), worth nothing. */
  private finish(winner: Seat | null, reason: ResultReason, level: ResultLevel, end: EndReason): void {
    this.runClock(null);
    this.epoch++;
    if (winner === null) {
      this.opener = null; // Tavli: after a draw, a roll-off opens the next game
      this.result = { winner: null, reason, points: 0, score: this.score, matchOver: false };
      this.phase = 'gameover';
      this.offer = null;
      this.turn = null;
      this.emit();
      return;
    }
    const worth = resultPoints(level, this.cube.value, end, this.rules.jacoby, this.cube.owner !== null);
    const { points, score, over } = scoreGame(this.rules, this.score, winner, worth, end);
    this.score = score;
    // The flag of the next game from here on (the Crawford game is played once; never without a cube).
    this.crawford = !over && hasCube(this.variant) && nextGameIsCrawford(this.rules, score, this.crawfordPlayed);
    if (this.crawford) this.crawfordPlayed = true;
    this.opener = this.variant === 'tavli' ? winner : null;
    this.result = { winner, reason, points, score, matchOver: over };
    this.phase = 'gameover';
    this.offer = null;
    this.turn = null;
    this.emit();
  }

  /** `loser` forfeits: the game is lost at the worst result still possible (in match play, at
   * least the match; in a money session, the session ends). */
  private forfeit(loser: Seat, reason: ResultReason): void {
    const winner = other(loser);
    const rules = this.gameRules();
    const worst = rules.name === 'backgammon' ? worstPossible(this.boards[loser], this.boards[winner]) : rules.worstPossible(this.boards[loser], this.boards[winner]);
    this.finish(winner, reason, worst, 'forfeit');
  }

  // ---- actions ------------------------------------------------------------------------------

  roll(): void {
    if (this.pausedLeft !== null) return;
    if (this.phase === 'decide') void this.rollDice();
  }

  double(): void {
    if (this.pausedLeft !== null) return;
    const view = this.current();
    if (!canDouble(view)) return;
    const by = this.turn!;
    this.offer = { kind: 'double', by, value: this.cube.value * 2 };
    this.declined = null;
    this.phase = 'offer';
    this.viewer = other(by);
    this.runClock(other(by));
    this.emit();
  }

  take(): void {
    if (this.pausedLeft !== null) return;
    if (this.offer?.kind !== 'double') return;
    const taker = other(this.offer.by);
    this.cube = { ...this.cube, value: this.offer.value, owner: taker };
    this.offer = null;
    this.viewer = this.turn!;
    void this.rollDice();
  }

  drop(): void {
    if (this.pausedLeft !== null) return;
    if (this.offer?.kind !== 'double') return;
    this.finish(this.offer.by, 'drop', 1, 'drop');
  }

  resign(level: 1 | 2 | 3): void {
    if (this.pausedLeft !== null) return;
    if (!this.resignLevels()?.includes(level) || this.turn === null) return;
    this.phaseBeforeOffer = this.phase;
    this.offer = { kind: 'resign', by: this.turn, level };
    this.phase = 'offer';
    this.viewer = other(this.turn);
    this.runClock(other(this.turn));
    this.emit();
  }

  acceptResign(): void {
    if (this.pausedLeft !== null) return;
    if (this.offer?.kind !== 'resign') return;
    this.finish(other(this.offer.by), 'resign', this.offer.level, 'resign');
  }

  rejectResign(): void {
    if (this.pausedLeft !== null) return;
    if (this.offer?.kind !== 'resign') return;
    this.declined = Math.max(this.offer.level, this.declined ?? 0) as ResultLevel;
    this.offer = null;
    this.phase = this.phaseBeforeOffer;
    this.viewer = this.turn!;
    this.runClock(this.turn);
    this.emit();
  }

  /** Every legal play of the roll on the board (its moves), [] unless a player is moving: the
   * page's hook for helpers and tests (`window.fairgammon.game`). */
  legalPlays(): Move[][] {
    if (this.phase !== 'moving' || this.turn === null || !this.dice) return [];
    const [d1, d2] = this.dice.values;
    return legalPlaysOf(this.gameRules(), this.position(), d1, d2).map((p) => [...p.moves]);
  }

  play(moves: readonly Move[]): void {
    if (this.pausedLeft !== null) return;
    if (this.phase !== 'moving' || this.turn === null || !this.dice || this.pending) return;
    const latency = this.options.latencyMs ?? 0;
    if (latency <= 0) return this.applyPlay(moves);
    this.pending = true;
    this.emit();
    const epoch = this.epoch;
    setTimeout(() => {
      if (epoch !== this.epoch) return;
      this.pending = false;
      if (this.refusals < (this.options.refusePlays ?? 0)) {
        this.refusals++;
        return this.reject('the server refused it (simulated)');
      }
      this.applyPlay(moves);
    }, latency);
  }

  private applyPlay(moves: readonly Move[]): void {
    if (this.phase !== 'moving' || this.turn === null || !this.dice) return;
    const [d1, d2] = this.dice.values;
    const start = this.position();
    const rules = this.gameRules();
    const plays = legalPlaysOf(rules, start, d1, d2);
    let position = start;
    for (const move of moves) {
      const legalSomewhere = [1, 2, 3, 4, 5, 6].some((die) =>
        rules.singleMoves(position, die).some((m) => m[0] === move[0] && m[1] === move[1]),
      );
      if (!legalSomewhere) return this.reject(t('local.notLegalMove', { move: ltr(`${move[0]}/${move[1]}`) }));
      position = rules.applyMove(position, move);
    }
    const key = positionKey(position);
    const legal = plays.length === 0 ? moves.length === 0 : plays.some((p) => positionKey(p.position) === key);
    if (!legal || (plays.length > 0 && moves.length !== plays[0]!.moves.length)) {
      return this.reject(t('local.notCompletePlay'));
    }
    const seat = this.turn;
    this.boards = seat === 0 ? [position.mover, position.opponent] : [position.opponent, position.mover];
    const mp = position.moverPinned ?? 0;
    const op = position.opponentPinned ?? 0;
    this.pins = seat === 0 ? [mp, op] : [op, mp];
    this.lastPlay = { seat, moves: moves.map((m) => [m[0], m[1]] as const) };
    const ending = rules.ending(position);
    if (ending) {
      if (ending.winner === null) return this.finish(null, 'mothers', 1, 'bear_off');
      const winner = ending.winner === 'mover' ? seat : other(seat);
      const level = ending.points as ResultLevel;
      const reason: ResultReason = ending.finish === 'mother' ? 'mother' : level === 1 ? 'single' : level === 2 ? 'gammon' : 'backgammon';
      this.finish(winner, reason, level, 'bear_off');
      return;
    }
    this.endTurn();
  }

  private reject(why: string): void {
    this.say(t('local.refused', { why }));
    this.emit();
  }

  next(): void {
    if (this.pausedLeft !== null) return;
    if (this.phase !== 'gameover' || !this.result) return;
    if (this.result.matchOver) {
      this.score = [0, 0];
      this.gameNo = 1;
      this.crawford = false;
      this.crawfordPlayed = false;
    } else {
      this.gameNo++;
    }
    void this.startGame();
  }

  // ---- saving and pausing ------------------------------------------------------------------

  /** The game to save now, or null in a passing moment (dice being rolled, a pass shown). */
  save(): LocalSave | null {
    const phase = this.phase;
    if (phase !== 'decide' && phase !== 'moving' && phase !== 'offer' && phase !== 'gameover') return null;
    if (this.pending) return null;
    return {
      v: 1,
      boards: this.boards,
      turn: this.turn,
      phase,
      viewer: this.viewer,
      dice: this.dice,
      cube: this.cube,
      score: this.score,
      gameNo: this.gameNo,
      crawford: this.crawford,
      crawfordPlayed: this.crawfordPlayed,
      offer: this.offer,
      lastPlay: this.lastPlay,
      phaseBeforeOffer: this.phaseBeforeOffer,
      result: this.result,
      fairness: this.fairness,
      k: this.k,
      declined: this.declined,
      pinned: this.pins,
      opener: this.opener,
    };
  }

  /** Put a saved game back, paused: `resume()` starts its clock and lets it go on. */
  restore(saved: LocalSave): void {
    this.epoch++;
    this.boards = saved.boards;
    this.turn = saved.turn;
    this.phase = saved.phase;
    this.viewer = saved.viewer;
    this.dice = saved.dice;
    this.cube = saved.cube;
    this.score = saved.score;
    this.gameNo = saved.gameNo;
    this.crawford = saved.crawford;
    this.crawfordPlayed = saved.crawfordPlayed;
    this.offer = saved.offer;
    this.lastPlay = saved.lastPlay;
    this.phaseBeforeOffer = saved.phaseBeforeOffer;
    this.result = saved.result;
    this.fairness = saved.fairness;
    this.k = saved.k;
    this.declined = saved.declined ?? null;
    this.pins = saved.pinned ?? [0, 0];
    this.opener = saved.opener ?? null;
    this.runClock(null);
    this.pausedLeft = this.options.clockSeconds * 1000;
    this.emit();
  }

  get paused(): boolean {
    return this.pausedLeft !== null;
  }

  /** Stop the clock (the page hides the board meanwhile). */
  pause(): void {
    if (this.pausedLeft !== null) return;
    const running = this.clocks.find((c) => c.deadline !== null);
    this.pausedLeft = running?.deadline != null ? Math.max(0, running.deadline - this.now()) : this.options.clockSeconds * 1000;
    this.runClock(null);
    this.emit();
  }

  /** Go on where the game stood, the clock with the time it had left. */
  resume(): void {
    const left = this.pausedLeft;
    if (left === null) return;
    this.pausedLeft = null;
    const owes = this.phase === 'offer' && this.offer ? other(this.offer.by) : this.phase === 'decide' || this.phase === 'moving' ? this.turn : null;
    if (this.phase === 'moving' && this.dice && this.turn !== null) {
      const [d1, d2] = this.dice.values;
      // A pass that was being shown when the game was saved: pass now.
      if (legalPlaysOf(this.gameRules(), this.position(), d1, d2).length === 0) return this.enterMoving();
    }
    this.runClock(owes, left);
    this.emit();
  }

  /** Stop timers (page teardown, tests). */
  dispose(): void {
    this.epoch++;
    this.runClock(null);
  }
}
