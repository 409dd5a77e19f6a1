/** Words and numbers the panels show. */

import { matchScore } from '../engine/matchRules';
import { gameName } from './variantNames';
import { type MessageKey, ltr, t } from '../i18n';
import type { ClockView, FairnessView, GameView, MatchView, ResultView } from '../view/gameView';

/** "0:27" for a number of milliseconds left (rounded up to whole seconds); a correspondence
 * clock's hours as "5 h 07" and days as "2 d 3 h" (rounded down: never more than is left). */
export function formatClock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 86_400) return t('clock.days', { d: Math.floor(s / 86_400), h: Math.floor((s % 86_400) / 3600) });
  if (s >= 3600) return t('clock.hours', { h: Math.floor(s / 3600), m: String(Math.floor((s % 3600) / 60)).padStart(2, '0') });
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/**
 * Time left on a clock: to the deadline when it runs, never more than the budget (a clock
 * offset a few ms off must not show 0:31 of a 30-second clock), the budget when stopped.
 */
export function clockLeft(deadline: number | null, now: number, budgetMs: number): number {
  return deadline === null ? budgetMs : Math.min(deadline - now, budgetMs);
}

/** What a seat's clock shows at `now`: the time on its face, and its time reserve. */
export interface ClockFace {
  /** The countdown: the decision's own time, or the reserve once that ran out (ms). */
  readonly leftMs: number;
  /** The reserve to show next to it (ms), null when the match has none. */
  readonly reserveMs: number | null;
  /** True once the decision's own time ran out and the reserve runs. */
  readonly inReserve: boolean;
  /** Time until the seat loses on time (ms), null when its clock is stopped. */
  readonly toDeadline: number | null;
}

/**
 * The face of a clock (docs/protocol.md, "The time reserve"): while a decision that may use the
 * reserve runs, its own time ends `reserve.leftMs` before the deadline, then the reserve counts
 * down to the deadline.
 */
export function clockFace(clock: ClockView, now: number): ClockFace {
  const { deadline, budgetMs, reserve } = clock;
  const toDeadline = deadline === null ? null : Math.max(0, deadline - now);
  if (reserve === null) return { leftMs: clockLeft(deadline, now, budgetMs), reserveMs: null, inReserve: false, toDeadline };
  if (deadline === null || !reserve.inDeadline) {
    return { leftMs: clockLeft(deadline, now, budgetMs), reserveMs: reserve.leftMs, inReserve: false, toDeadline };
  }
  const ownEnd = deadline - reserve.leftMs;
  if (now < ownEnd) return { leftMs: Math.min(ownEnd - now, budgetMs), reserveMs: reserve.leftMs, inReserve: false, toDeadline };
  const left = Math.max(0, Math.min(deadline - now, reserve.leftMs));
  return { leftMs: left, reserveMs: left, inReserve: true, toDeadline };
}

export function matchLabel(match: MatchView): string {
  const label =
    match.kind === 'single'
      ? t('board.single')
      : match.kind === 'money'
        ? t('board.moneyGame', { game: match.gameNo })
        : t('board.matchGame', { length: match.length, game: match.gameNo });
  if (!match.variant || match.variant === 'backgammon') return label;
  return t('board.withVariant', { variant: gameName(match.variant, match.gameNo), label });
}

/** The headline of a game's end by reason: for everyone (the winner named), for the winner and
 * for the loser on their own device (the second person, as elsewhere). */
const WINS: Record<ResultView['reason'], [MessageKey, MessageKey, MessageKey]> = {
  single: ['result.wins', 'result.youWin', 'result.youLose'],
  gammon: ['result.winsGammon', 'result.youWinGammon', 'result.youLoseGammon'],
  backgammon: ['result.winsBackgammon', 'result.youWinBackgammon', 'result.youLoseBackgammon'],
  mother: ['result.winsMother', 'result.youWinMother', 'result.youLoseMother'],
  mothers: ['result.drawMothers', 'result.drawMothers', 'result.drawMothers'],
  resign: ['result.winsResign', 'result.youWinResign', 'result.youResigned'],
  drop: ['result.winsDrop', 'result.youWinDrop', 'result.youDropped'],
  timeout: ['result.winsTime', 'result.youWinTime', 'result.youLostTime'],
  forfeit: ['result.winsForfeit', 'result.youWinForfeit', 'result.youLostForfeit'],
  invalid_reveal: ['result.winsInvalidReveal', 'result.youWinInvalidReveal', 'result.youLostInvalidReveal'],
  no_reveal: ['result.winsNoReveal', 'result.youWinNoReveal', 'result.youLostNoReveal'],
  stopped: ['result.winsSession', 'result.youWinSession', 'result.youLoseSession'],
};

/** True when `seat` is the one playing on this screen alone (words say "you"). */
export function isYou(view: GameView, seat: 0 | 1 | null): boolean {
  return seat !== null && view.viewer === seat && !view.shared;
}

export function resultHeadline(view: GameView, result: ResultView): string {
  const winner = result.winner;
  if (result.reason === 'mothers') return t('result.drawMothers');
  if (winner === null) return t('result.level');
  // The Greek games' double is no gammon by name (there is no cube and no triple).
  const greek = view.variant === 'portes' || view.variant === 'plakoto' || view.variant === 'fevga';
  const [wins, youWin, youLose] =
    greek && result.reason === 'gammon' ? (['result.winsDouble', 'result.youWinDouble', 'result.youLoseDouble'] as const) : WINS[result.reason];
  if (isYou(view, winner)) return t(youWin);
  if (isYou(view, winner === 0 ? 1 : 0)) return t(youLose);
  return t(wins, { name: view.players[winner].name });
}

/** The score as the match shows it: never beyond the length (engine/matchRules.ts). */
export function shownScore(match: MatchView): readonly [number, number] {
  return matchScore({ kind: match.kind, length: match.length, jacoby: false }, match.score);
}

export function pointsLabel(points: number): string {
  return t('board.points', { n: points });
}


/** The status line above the controls. */
export function statusLine(view: GameView, interactive: boolean, maxUsed: number, stepsMade: number): string {
  const name = (s: 0 | 1 | null) => (s === null ? '' : view.players[s].name);
  if (view.pending) return t('status.sending');
  const mine = isYou(view, view.turn);
  switch (view.phase) {
    case 'waiting':
      return t('status.waiting');
    case 'rolloff':
      return t('status.rolloff');
    case 'rolling':
      return mine ? t('status.youRolling') : t('status.rolling', { name: name(view.turn) });
    case 'decide':
      return mine ? t('status.youDecide') : t('status.decide', { name: name(view.turn) });
    case 'offer': {
      if (!view.offer) return '';
      const answers = view.offer.by === 0 ? 1 : 0;
      if (!isYou(view, answers)) return t('status.toAnswer', { name: name(answers) });
      return view.offer.kind === 'double' ? t('status.youTakeOrDrop') : t('status.youAcceptOrReject');
    }
    case 'gameover':
      return view.result ? resultHeadline(view, view.result) : t('status.gameOver');
    case 'moving': {
      if (!view.dice) return '';
      const [a, b] = view.dice.values;
      const dice = ltr(`${a}–${b}`);
      const args = { name: name(view.turn), dice, n: maxUsed };
      const state = !interactive ? 'play' : maxUsed === 0 ? 'none' : stepsMade === maxUsed ? 'end' : maxUsed < (a === b ? 4 : 2) ? 'only' : 'play';
      return t(mine ? 'status.youMove' : 'status.move', { ...args, state });
    }
    default:
      return '';
  }
}

/** "Re-committed: Copper from roll #7 (ab12cd34…)", one clause per seat; null when none did. */
export function recommitLine(names: readonly [string, string], recommits: FairnessView['recommits']): string | null {
  const parts: string[] = [];
  recommits?.forEach((r, seat) => {
    if (!r || r.count === 0) return;
    parts.push(
      t('fair.recommitSeat', {
        name: names[seat]!,
        count: r.count,
        k: r.k === null ? 'none' : String(r.k),
        link: r.link ? `${r.link.slice(0, 8)}…` : 'none',
      }),
    );
  });
  return parts.length ? t('fair.recommitted', { list: parts.join(' · ') }) : null;
}

export function diceCheckLine(dice: GameView['dice']): string {
  if (!dice) return '';
  const k = String(dice.k);
  return {
    pending: t('check.pending', { k }),
    verified: t('check.verified', { k }),
    alarm: t('check.alarm', { k }),
    unverified: t('check.unverified', { k }),
  }[dice.check];
}
