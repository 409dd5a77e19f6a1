/** Words and numbers the panels show. */

import type { GameView, MatchView, ResultView } from '../view/gameView';

/** "0:27" for a number of milliseconds left (rounded up to whole seconds). */
export function formatClock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
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
};

export function resultHeadline(view: GameView, result: ResultView): string {
  return `${view.players[result.winner].name} ${REASONS[result.reason]}`;
}

export function pointsLabel(points: number): string {
  return `${points} point${points === 1 ? '' : 's'}`;
}

export const RESIGN_NAMES = { 1: 'a single game', 2: 'a gammon', 3: 'a backgammon' } as const;
