/**
 * The network driver of the board: a GameSource whose view is built from a MatchSession (the
 * tracker, the dice checks, presence, the clock offset) and whose actions become protocol
 * actions. The board UI cannot tell it from the local hot-seat driver.
 */

import { replayPath } from './replay';
import { cubeInPlay } from '../engine/matchRules';
import { legalPlaysOf } from '../engine/variants';
import { toHex } from '../fairdice';
import type {
  ClockView,
  DiceView,
  FairnessView,
  GameSource,
  GameView,
  Offer,
  Phase,
  PlayerView,
  RecommitView,
  ReserveView,
  ResultReason,
  ResultView,
  Seat,
} from './gameView';
import { other } from './gameView';
import { exportPaths } from '../net/lobbyApi';
import { RESERVE_PHASES, type Move } from '../net/protocol';
import type { MatchSession } from '../net/session';
import { MATCH_KIND, type Tracker } from '../net/tracker';
import { t, t as tr } from '../i18n';
import { personal } from '../net/voice';

/** The board's phase for the session's state. */
export function phaseOf(session: MatchSession): Phase {
  const t = session.tracker;
  if (t.over !== null) return 'gameover';
  if (t.betweenGames) return 'gameover';
  switch (t.clock.phase) {
    case 'waiting':
      return 'waiting';
    case 'commit':
    case 'rolloff':
      return 'rolloff';
    case 'decide':
      // Without a cube decision the roll is automatic: show it as rolling.
      return t.onRoll !== null && !t.mayDouble(t.onRoll) ? 'rolling' : 'decide';
    case 'reveal':
      return 'rolling';
    case 'move':
      return t.dice ? 'moving' : 'rolling';
    case 'take':
    case 'resign':
      return 'offer';
    case 'over':
      return 'gameover';
  }
}

function resultReason(session: MatchSession): ResultReason {
  const t = session.tracker;
  const g = t.lastGame!;
  if (g.reason === 'bear_off') return g.result ?? 'single';
  if (g.reason === 'mother' || g.reason === 'mothers') return g.reason;
  if (g.reason === 'drop' || g.reason === 'resign') return g.reason;
  const f = t.forfeit;
  if (f && f.game === g.game) {
    if (f.reason === 'timeout' || f.reason === 'no_reveal' || f.reason === 'invalid_reveal') return f.reason;
  }
  return 'forfeit';
}

/** Whether the match ended between games (a session stopped, a match left or abandoned then):
 * its last game ended before, and no game was started after it. */
function endedBetweenGames(t: Tracker): boolean {
  const g = t.lastGame;
  return t.over !== null && (g === null || g.game !== t.game || t.over.reason === 'stopped');
}

/** The links of a finished match: the last game's replay, the dice and the exports. */
function matchLinks(match: string, last: number | null): ResultView['links'] {
  const links = last === null ? [] : [{ label: tr('links.replayGame', { game: last }), href: replayPath(match, last) }];
  return [
    ...links,
    { label: tr('match.verifyDice'), href: exportPaths.verify(match) },
    { label: tr('match.transcripts'), href: exportPaths.matchTranscript(match) },
    { label: t('match.matFile'), href: exportPaths.mat(match) },
  ];
}

function resultView(session: MatchSession): ResultView | null {
  const t = session.tracker;
  const g = t.lastGame;
  const o = t.over;
  const match = session.matchId;
  if (o !== null && endedBetweenGames(t)) {
    const links = matchLinks(match, g?.game ?? null);
    if (t.settings?.mode === 'money') {
      // A session ends between games: who is ahead, by how much, and its games.
      const margin = Math.abs(o.score[0] - o.score[1]);
      const reason = o.reason === 'stopped' ? 'stopped' : 'forfeit';
      return { winner: margin === 0 ? null : o.winner, reason, points: margin, score: o.score, matchOver: true, links };
    }
    if (o.winner === null) return null;
    // A match forfeited between games: the winner's score brought up to what it needed.
    const points = o.score[o.winner] - (g ? g.score[o.winner] : 0);
    return { winner: o.winner, reason: 'forfeit', points, score: o.score, matchOver: true, links };
  }
  if (g === null || (g.game !== t.game && !t.betweenGames)) return null;
  const matchOver = o !== null;
  const links = matchOver
    ? matchLinks(match, g.game)
    : [
        { label: tr('links.replay'), href: replayPath(match, g.game) },
        { label: tr('match.verifyDice'), href: exportPaths.verify(match, g.game) },
        { label: tr('links.transcript', { game: g.game }), href: exportPaths.gameTranscript(match, g.game) },
      ];
  return { winner: g.winner, reason: resultReason(session), points: g.points, score: t.score, matchOver, links };
}

function diceView(session: MatchSession, phase: Phase): DiceView | null {
  const t = session.tracker;
  const check = (k: number) => session.checkOf(t.game, k);
  const last = t.rolls[t.rolls.length - 1];
  if (phase === 'rolloff' && last && last.game === t.game && last.kind === 'rolloff') {
    return { k: last.k, values: [last.dice[0], last.dice[1]], seat: null, check: check(last.k) };
  }
  if (phase === 'moving' && t.dice && t.onRoll !== null) {
    if (last && last.game === t.game && last.k === t.k - 1) {
      return { k: last.k, values: [last.dice[0], last.dice[1]], seat: t.onRoll, check: check(last.k) };
    }
    // Joined by snapshot during this roll: its reveals were published before we came.
    return { k: t.k - 1, values: [t.dice[0], t.dice[1]], seat: t.onRoll, check: 'unverified' };
  }
  return null;
}

function statusOf(session: MatchSession, phase: Phase): string | undefined {
  const tr = session.tracker;
  const o = tr.over;
  if (o && o.winner === null) {
    if (o.reason === 'declined') return t('status.declined');
    return o.reason === 'cancelled' ? t('status.cancelled') : t('status.abandoned');
  }
  if (phase === 'waiting') {
    return session.seat === 0 ? t('status.waitingJoin') : t('status.waitingSecond');
  }
  if (tr.clock.phase === 'commit' && !tr.betweenGames) return t('status.starting');
  if (phase === 'gameover' && tr.betweenGames) {
    return session.seat === null ? t('status.betweenGames') : t('status.nextGameSoon');
  }
  return undefined;
}

export function netView(session: MatchSession): GameView {
  const t = session.tracker;
  const phase = phaseOf(session);
  const viewer = session.seat;
  const budgetMs = t.settings?.move_time ?? 0;
  const clock = t.clock;
  const running = (s: Seat) =>
    t.over === null && clock.deadline !== null && clock.seats.includes(s) ? session.toClient(clock.deadline) : null;
  const reserve = (s: Seat): ReserveView | null =>
    t.over === null && (t.settings?.reserve ?? 0) > 0
      ? { leftMs: clock.reserves[s], inDeadline: clock.seats.length === 1 && clock.seats[0] === s && RESERVE_PHASES.has(clock.phase) }
      : null;
  const clocks: [ClockView, ClockView] = [
    { deadline: running(0), budgetMs, reserve: reserve(0) },
    { deadline: running(1), budgetMs, reserve: reserve(1) },
  ];
  const player = (s: Seat): PlayerView => {
    const status = t.status[s];
    const deadline = t.presenceDeadline[s];
    return {
      name: t.names[s] ?? (status === 'empty' ? tr('bar.waitingPlayer') : tr('common.seatNo', { n: String(s) })),
      presence: status,
      forfeitAt: deadline !== null && status !== 'online' ? session.toClient(deadline) : null,
    };
  };
  let offer: Offer | null = null;
  if (t.double && phase === 'offer') {
    offer = { kind: 'double', by: t.double.seat, value: t.double.value, beaver: viewer !== null && t.mayBeaver(viewer) };
  } else if (t.resignation && phase === 'offer') {
    offer = { kind: 'resign', by: t.resignation.seat, level: t.resignation.level };
  }
  const fairness: FairnessView = {
    commitments: [t.commitments[0] ? toHex(t.commitments[0]) : null, t.commitments[1] ? toHex(t.commitments[1]) : null],
    recommits: [recommitView(t, 0), recommitView(t, 1)],
    rolls: t.rolls
      .filter((r) => r.game === t.game)
      .map((r) => ({
        k: r.k,
        reveals: [toHex(r.reveals[0]), toHex(r.reveals[1])] as const,
        dice: r.dice,
        check: session.checkOf(r.game, r.k),
      })),
  };
  const onRoll = t.onRoll;
  const resignLevels =
    viewer !== null && onRoll === viewer
      ? ([1, 2, 3] as const).filter((l) => l <= t.variantRules.worstPossible(t.boards[viewer], t.boards[other(viewer)]))
      : undefined;
  const mode = t.settings?.mode ?? 'single_game';
  const kind = MATCH_KIND[mode];
  const auto = session.autoCommitAt();
  return {
    viewer,
    players: [player(0), player(1)],
    boards: t.boards,
    variant: t.variant,
    pinned: t.pinned,
    turn: phase === 'waiting' || phase === 'rolloff' || (phase === 'gameover' && (t.betweenGames || t.over !== null)) ? null : onRoll,
    phase,
    dice: diceView(session, phase),
    cube: { value: t.cube, owner: t.cubeOwner, enabled: t.variantRules.cube && cubeInPlay(kind, t.crawford) },
    match: {
      kind,
      length: mode === 'match' ? (t.settings?.length ?? 0) : 0,
      score: t.over?.score ?? t.score,
      crawford: t.crawford,
      // Between games (and after a match that ended then) the finished one is still on show.
      gameNo: (t.betweenGames || endedBetweenGames(t)) && t.lastGame ? t.lastGame.game : t.game || 1,
      variant: t.settings?.variant ?? 'backgammon',
    },
    clocks,
    offer,
    lastPlay: t.lastPlay ? { seat: t.lastPlay.seat, moves: t.lastPlay.moves } : null,
    result: phase === 'gameover' ? resultView(session) : null,
    notice: session.notice && { ...session.notice, text: personal(session.notice, viewer) },
    fairness,
    spectators: session.watchers,
    pending: session.pendingMove !== null,
    version: t.version,
    resignLevels,
    status: statusOf(session, phase),
    canStop: mode === 'money' && t.betweenGames && viewer !== null,
    nextGameAt: auto === null ? null : session.toClient(auto),
  };
}

/** The board's driver over a session. `rematch` is called for Rematch after the match. */
export class NetGame implements GameSource {
  /** The view as of the session's last notification (whole transitions only). */
  private shown: GameView;

  constructor(
    readonly session: MatchSession,
    private readonly onRematch: () => void,
  ) {
    this.shown = netView(session);
    session.subscribe(() => (this.shown = netView(session)));
  }

  current(): GameView {
    return this.shown;
  }

  subscribe(listener: (view: GameView) => void): () => void {
    return this.session.subscribe(() => listener(this.current()));
  }

  roll(): void {
    void this.session.roll();
  }

  double(): void {
    void this.session.double();
  }

  take(): void {
    void this.session.answerDouble('take');
  }

  drop(): void {
    void this.session.answerDouble('drop');
  }

  beaver(): void {
    void this.session.answerDouble('beaver');
  }

  play(moves: readonly Move[]): void {
    void this.session.move(moves);
  }

  /** Every legal play of the dice this seat moves now (its moves), [] otherwise: the page's
   * hook for helpers and tests (`window.fairgammon.game`), as the hot-seat game has. */
  legalPlays(): Move[][] {
    const t = this.session.tracker;
    const seat = this.shown.viewer;
    if (this.shown.phase !== 'moving' || seat === null || t.onRoll !== seat || !t.dice) return [];
    return legalPlaysOf(t.variantRules, t.position(seat), t.dice[0], t.dice[1]).map((p) => [...p.moves]);
  }

  resign(level: 1 | 2 | 3): void {
    void this.session.resign(level);
  }

  acceptResign(): void {
    void this.session.answerResignation(true);
  }

  rejectResign(): void {
    void this.session.answerResignation(false);
  }

  next(): void {
    if (this.session.tracker.over !== null) this.onRematch();
    else this.session.nextGame();
  }

  stop(): void {
    void this.session.stopSession();
  }
}

/** A seat's re-commitments in the current game, for the fairness panel. */
function recommitView(t: Tracker, seat: Seat): RecommitView | null {
  const count = t.recommits[seat];
  if (count === 0) return null;
  const last = t.lastRecommit[seat];
  return { count, k: last ? last.k : null, link: last ? toHex(last.commitment) : null };
}
