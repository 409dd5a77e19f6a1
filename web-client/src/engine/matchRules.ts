/**
 * The rules of a match beyond the board, as the Python engine has them (engine/match.py,
 * engine/cube.py, engine/results.py, engine/game.py): the Crawford game, when the cube may be
 * turned, the levels a player may resign at and forfeits at, what a finished game scores and
 * when the match is over. Pure. The hot-seat game (view/localGame.ts) plays by these, and
 * test/matchRules.test.ts holds them, and that game, to test/fixtures/match-rules.json (the
 * engine's answers, written by tools/make_match_rules.py).
 *
 * - **Single game**: one cubeless game; it ends the match. Gammons and backgammons count.
 * - **Match to N**: the cube is in play except in the Crawford game, the first game after a
 *   player reaches N−1 (so never in a match to 1, where the cube is in play). A dead cube is no
 *   exception: a player may double when the value already covers what they need (`cubeIsDead`:
 *   legal, and it gains them nothing). Gammons always count and the real points are added, so a
 *   winner's score may pass N; the score shown never does (`matchScore`); a forfeit is worth at
 *   least what the winner still needs (it loses the match).
 * - **Money**: cube in play; under the Jacoby rule a gammon or backgammon counts as a single
 *   while the cube was never turned (not for a dropped double or a forfeit). A forfeit ends the
 *   session.
 */

import { type Board, CHECKERS, OFF, isContact, pipCount, resultLevel } from './position';
import type { Seat } from './seat';

export type MatchKind = 'single' | 'match' | 'money';

/** Times the cube value a game is worth: 1 single, 2 gammon, 3 backgammon (also a resignation's
 * and a forfeit's level). */
export type ResultLevel = 1 | 2 | 3;

/** How a game ended. */
export type EndReason = 'bear_off' | 'drop' | 'resign' | 'forfeit';

/** The highest cube value: no double takes the cube above it. */
export const MAX_CUBE = 64;

export interface MatchRules {
  readonly kind: MatchKind;
  /** Match length (kind 'match'), else unused. */
  readonly length: number;
  /** The Jacoby rule (money only). */
  readonly jacoby: boolean;
}

/** Whether the next game is the Crawford game: match play, no Crawford game yet, and exactly
 * one player at N−1. */
export function nextGameIsCrawford(rules: MatchRules, score: readonly [number, number], crawfordPlayed: boolean): boolean {
  if (rules.kind !== 'match' || crawfordPlayed) return false;
  const away = rules.length - 1;
  return (score[0] === away) !== (score[1] === away);
}

/** Whether the cube is in play in a game: not in a single game, nor in the Crawford game. */
export function cubeInPlay(kind: MatchKind, crawford: boolean): boolean {
  return kind !== 'single' && !crawford;
}

/** Whether a double gains `seat` nothing: in match play the cube's value already gives it the
 * points it needs (a match to 1, the leader after the Crawford game). Legal, but it can only
 * help the opponent, who takes and then wins the match with any win. */
export function cubeIsDead(rules: MatchRules, score: readonly [number, number], value: number, seat: Seat): boolean {
  return rules.kind === 'match' && score[seat] + value >= rules.length;
}

/** The score as a match shows it: in match play nobody beyond the length (a win worth more than
 * the winner needed reaches N; the game's own points say what it was worth). */
export function matchScore(rules: MatchRules, score: readonly [number, number]): [number, number] {
  if (rules.kind !== 'match') return [score[0], score[1]];
  return [Math.min(score[0], rules.length), Math.min(score[1], rules.length)];
}

/** Whether `seat` may double a cube in play of `value` held by `owner` (null: centred). */
export function mayDouble(cube: { readonly value: number; readonly owner: Seat | null }, seat: Seat): boolean {
  return (cube.owner === null || cube.owner === seat) && cube.value * 2 <= MAX_CUBE;
}

/** The largest loss still possible for `loser`: their forfeit level, and the highest level they
 * may resign at. A backgammon while the sides are still in contact (a hit can send a checker
 * back), otherwise the result as it stands (`resultLevel`). */
export function worstPossible(loser: Board, winner: Board): ResultLevel {
  const level = resultLevel(loser);
  return level === 2 && isContact({ mover: loser, opponent: winner }) ? 3 : level;
}

/**
 * Whether the player on roll (`resigner`, before or after rolling) cannot lose at `level` or
 * worse whatever the dice and whoever plays how: a sure verdict from counts, claimed only
 * without contact (else false). Level 1: they bear their last checker off before the opponent
 * can; level 2: they bear a checker off before the opponent bears off its last one (no gammon);
 * level 3 is never claimed (the engine offers a backgammon only where one is still possible).
 *
 * Why it is sure: without contact every die can be played and moves a checker at least one pip,
 * so each roll takes at least 2 pips off the roller's count. The resigner, rolling first, has
 * borne off its last checker by roll ⌈pips/2⌉, and (with all 15 checkers on the board) its first
 * by roll ⌊(pips − 15)/2⌋ + 1 (15 checkers on the board count at least 15 pips). The opponent
 * moves at most 24 pips and bears off at most 4 checkers a roll: it needs at least
 * max(⌈pips/24⌉, ⌈checkers/4⌉) rolls to bear off.
 */
export function cannotLose(resigner: Board, opponent: Board, level: ResultLevel): boolean {
  if (level === 3 || isContact({ mover: resigner, opponent })) return false;
  const theirs = Math.max(Math.ceil(pipCount(opponent) / 24), Math.ceil((CHECKERS - opponent[OFF]!) / 4));
  const pips = pipCount(resigner);
  if (level === 1) return Math.ceil(pips / 2) <= theirs;
  if (resigner[OFF]! > 0) return true; // a checker is off: no gammon any more
  return Math.floor((pips - CHECKERS) / 2) + 1 <= theirs;
}

/** The levels the player on roll (`resigner`) may offer to resign at: above the one the
 * opponent rejected during this decision (`declined`), up to the worst still possible. */
export function resignationLevels(resigner: Board, opponent: Board, declined: ResultLevel | null): ResultLevel[] {
  const worst = worstPossible(resigner, opponent);
  return ([1, 2, 3] as const).filter((level) => level > (declined ?? 0) && level <= worst);
}

/**
 * The points a finished game is worth before the match adds them: its level times the cube
 * value it ended at (for a drop, the value before the double, and always a single). Under the
 * Jacoby rule a gammon or backgammon borne off or resigned counts as a single while the cube
 * was never turned.
 */
export function resultPoints(level: ResultLevel, cube: number, reason: EndReason, jacoby: boolean, cubeTurned: boolean): number {
  const counted = reason === 'drop' ? 1 : jacoby && !cubeTurned && (reason === 'bear_off' || reason === 'resign') ? 1 : level;
  return counted * cube;
}

/** What a finished game does to the match: the points added (a forfeit in match play is worth at
 * least what the winner still needs), the new score, and whether the match is over. */
export function scoreGame(
  rules: MatchRules,
  score: readonly [number, number],
  winner: Seat,
  points: number,
  reason: EndReason,
): { points: number; score: [number, number]; over: boolean } {
  const forfeit = reason === 'forfeit';
  const added = rules.kind === 'match' && forfeit ? Math.max(points, rules.length - score[winner]) : points;
  const next: [number, number] = [score[0], score[1]];
  next[winner] += added;
  const over = rules.kind === 'single' || (rules.kind === 'match' ? next[winner] >= rules.length : forfeit);
  return { points: added, score: next, over };
}
