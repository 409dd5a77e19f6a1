/** Words and numbers the panels show. */

import { matchScore } from '../engine/matchRules';
import type { ClockView, FairnessView, GameView, MatchView, ResultView } from '../view/gameView';

/** "0:27" for a number of milliseconds left (rounded up to whole seconds); a correspondence
 * clock's hours as "5 h 07" and days as "2 d 3 h" (rounded down: never more than is left). */
export function formatClock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s >= 86_400) return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}`;
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
  if (match.kind === 'single') return 'Single game';
  if (match.kind === 'money') return `Money session · game ${match.gameNo}`;
  return `Match to ${match.length} · game ${match.gameNo}`;
}

const REASONS: Record<ResultView['reason'], string> = {
  single: 'wins',
  gammon: 'wins a gammon',
  backgammon: 'wins a backgammon',
  resign: 'wins by resignation',
  drop: 'wins: the double was dropped',
  timeout: 'wins on time',
  forfeit: 'wins by forfeit',
  invalid_reveal: 'wins: invalid dice reveal',
  no_reveal: 'wins: dice reveal missing',
  stopped: 'wins the session',
};

/** The same, said to the loser on their own device (the second person, as elsewhere). */
const LOST: Record<ResultView['reason'], string> = {
  single: 'You lose',
  gammon: 'You lose a gammon',
  backgammon: 'You lose a backgammon',
  resign: 'You resigned',
  drop: 'You dropped the double',
  timeout: 'You lost on time',
  forfeit: 'You lost by forfeit',
  invalid_reveal: 'You lost: invalid dice reveal',
  no_reveal: 'You lost: your dice reveal was missing',
  stopped: 'You lose the session',
};

/** True when `seat` is the one playing on this screen alone (words say "you"). */
export function isYou(view: GameView, seat: 0 | 1 | null): boolean {
  return seat !== null && view.viewer === seat && !view.shared;
}

export function resultHeadline(view: GameView, result: ResultView): string {
  const winner = result.winner;
  if (winner === null) return 'The session ended level';
  if (isYou(view, winner)) return `You ${REASONS[result.reason].replace(/^wins/, 'win')}`;
  if (isYou(view, winner === 0 ? 1 : 0)) return LOST[result.reason];
  return `${view.players[winner].name} ${REASONS[result.reason]}`;
}

/** The score as the match shows it: never beyond the length (engine/matchRules.ts). */
export function shownScore(match: MatchView): readonly [number, number] {
  return matchScore({ kind: match.kind, length: match.length, jacoby: false }, match.score);
}

export function pointsLabel(points: number): string {
  return `${points} point${points === 1 ? '' : 's'}`;
}

export const RESIGN_NAMES = { 1: 'a single game', 2: 'a gammon', 3: 'a backgammon' } as const;

/** The status line above the controls. */
export function statusLine(view: GameView, interactive: boolean, maxUsed: number, stepsMade: number): string {
  const name = (s: 0 | 1 | null) => (s === null ? '' : view.players[s].name);
  if (view.pending) return 'Sending your move…';
  const mine = isYou(view, view.turn);
  switch (view.phase) {
    case 'waiting':
      return 'Waiting for the opponent…';
    case 'rolloff':
      return 'Opening roll…';
    case 'rolling':
      return mine ? 'Rolling your dice…' : `${name(view.turn)} is rolling…`;
    case 'decide':
      return mine ? 'Your turn: double or roll' : `${name(view.turn)} may double or roll`;
    case 'offer': {
      if (!view.offer) return '';
      const answers = view.offer.by === 0 ? 1 : 0;
      if (!isYou(view, answers)) return `${name(answers)} to answer`;
      return view.offer.kind === 'double' ? 'Your answer: take or drop' : 'Your answer: accept or reject';
    }
    case 'gameover':
      return view.result ? resultHeadline(view, view.result) : 'Game over';
    case 'moving': {
      if (!view.dice) return '';
      const [a, b] = view.dice.values;
      let status = mine ? `Your move, ${a}–${b}` : `${name(view.turn)} to play ${a}–${b}`;
      if (!interactive) return status;
      if (maxUsed === 0) status += ': no legal move';
      else if (stepsMade === maxUsed) status += ': end the turn';
      else if (maxUsed < (a === b ? 4 : 2)) status += ` (only ${maxUsed} can be played)`;
      return status;
    }
    default:
      return '';
  }
}

/** The line that says whether the current dice were checked against the commitments. */
/** "Re-committed: Copper from roll #7 (ab12cd34…)", one clause per seat; null when none did. */
export function recommitLine(names: readonly [string, string], recommits: FairnessView['recommits']): string | null {
  const parts: string[] = [];
  recommits?.forEach((r, seat) => {
    if (!r || r.count === 0) return;
    const times = r.count > 1 ? ` ${r.count}×` : '';
    const from = r.k !== null ? ` from roll #${r.k}` : '';
    const link = r.link ? ` (${r.link.slice(0, 8)}…)` : '';
    parts.push(`${names[seat]}${times}${from}${link}`);
  });
  return parts.length ? `Re-committed: ${parts.join(' · ')}` : null;
}

export function diceCheckLine(dice: GameView['dice']): string {
  if (!dice) return '';
  return {
    pending: `Roll ${dice.k}: checking the dice against both commitments…`,
    verified: `Roll ${dice.k}: dice verified against both commitments ✓`,
    alarm: `Roll ${dice.k}: ALARM — these dice do not match the commitments!`,
    unverified: `Roll ${dice.k}: practice dice (no fairness proof)`,
  }[dice.check];
}
