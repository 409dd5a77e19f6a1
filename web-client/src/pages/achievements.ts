/**
 * Achievements for games on this device and against the computer (after the eight stars of a
 * well-known offline page), kept in this browser and shown on a small panel. Pure rules decide
 * what a view or a finished game earns; a thin layer stores them.
 */

import { t } from '../i18n';
import { BAR, OFF } from '../engine/position';
import { h } from '../ui/dom';
import type { GameView, Seat } from '../view/gameView';

export const ACHIEVEMENTS = [
  ['first-move', 'ach.firstMove', 'ach.firstMoveWhat'],
  ['hit', 'ach.hit', 'ach.hitWhat'],
  ['enter', 'ach.enter', 'ach.enterWhat'],
  ['bear-off', 'ach.bearOff', 'ach.bearOffWhat'],
  ['finish', 'ach.finish', 'ach.finishWhat'],
  ['beat-computer', 'ach.beatComputer', 'ach.beatComputerWhat'],
  ['clean-win', 'ach.cleanWin', 'ach.cleanWinWhat'],
  ['three-wins', 'ach.threeWins', 'ach.threeWinsWhat'],
] as const;

export type AchievementId = (typeof ACHIEVEMENTS)[number][0];

export interface AchievementState {
  readonly earned: Partial<Record<AchievementId, number>>;
  /** Games won against the computer (for the hat-trick). */
  readonly computerWins: number;
}

const KEY = 'fairgammon.achievements.v1';
const EMPTY: AchievementState = { earned: {}, computerWins: 0 };

/**
 * What the last play of `view` earns for the seat that made it (moves are its own numbering);
 * `only`: count that seat's plays only (against the computer, not the computer's).
 */
export function earnedByPlay(before: GameView | null, view: GameView, only: Seat | null = null): AchievementId[] {
  const play = view.lastPlay;
  if (!play || play.moves.length === 0) return [];
  if (only !== null && play.seat !== only) return [];
  if (before?.lastPlay === play) return [];
  const out: AchievementId[] = ['first-move'];
  if (play.moves.some(([from]) => from === BAR)) out.push('enter');
  if (play.moves.some(([, to]) => to === OFF)) out.push('bear-off');
  const foe: Seat = play.seat === 0 ? 1 : 0;
  if (before && view.boards[foe][BAR]! > before.boards[foe][BAR]!) out.push('hit');
  return out;
}

/** What a finished game earns: `vsComputer` = the viewer played the computer. */
export function earnedByResult(view: GameView, state: AchievementState, vsComputer: { usedUndo: boolean } | null): { ids: AchievementId[]; computerWins: number } {
  const r = view.result;
  // A stopped session is no game of its own: its last game was counted when it ended.
  if (!r || r.reason === 'stopped') return { ids: [], computerWins: state.computerWins };
  const ids: AchievementId[] = ['finish'];
  let wins = state.computerWins;
  if (vsComputer && view.viewer !== null && r.winner === view.viewer) {
    wins += 1;
    ids.push('beat-computer');
    if (!vsComputer.usedUndo) ids.push('clean-win');
    if (wins >= 3) ids.push('three-wins');
  }
  return { ids, computerWins: wins };
}

export function loadAchievements(): AchievementState {
  try {
    const raw = localStorage.getItem(KEY);
    if (raw) return { ...EMPTY, ...(JSON.parse(raw) as AchievementState) };
  } catch {
    // storage refused: nothing earned is kept
  }
  return EMPTY;
}

function add(ids: readonly AchievementId[], computerWins?: number): AchievementId[] {
  const state = loadAchievements();
  const fresh = ids.filter((id) => state.earned[id] === undefined);
  if (fresh.length === 0 && computerWins === undefined) return [];
  const earned = { ...state.earned };
  for (const id of fresh) earned[id] = Date.now();
  try {
    localStorage.setItem(KEY, JSON.stringify({ earned, computerWins: computerWins ?? state.computerWins }));
  } catch {
    return [];
  }
  for (const listener of listeners) listener();
  return fresh;
}

const listeners = new Set<() => void>();

/**
 * Follow a game: each play and each result may earn a star. `computer`: the game is against the
 * computer (only the viewer's plays count; it says whether Undo was used in the game).
 */
export function followGame(subscribe: (listener: (view: GameView) => void) => unknown, computer: (() => { usedUndo: boolean }) | null = null): void {
  let before: GameView | null = null;
  let counted = '';
  subscribe((view) => {
    add(earnedByPlay(before, view, computer ? view.viewer : null));
    if (view.phase === 'gameover' && view.result) {
      const key = `${view.match.gameNo}:${view.result.winner}:${view.result.reason}:${view.result.score.join('-')}`;
      if (key !== counted && before !== null && before.phase !== 'gameover') {
        const { ids, computerWins } = earnedByResult(view, loadAchievements(), computer ? computer() : null);
        add(ids, computerWins);
      }
      counted = key;
    }
    before = view;
  });
}

/** The small panel: stars earned out of eight, each with its name and what it asks. */
export function achievementsPanel(): HTMLElement {
  const box = h('details', { class: 'achievements' });
  const render = () => {
    const state = loadAchievements();
    const got = ACHIEVEMENTS.filter(([id]) => state.earned[id] !== undefined).length;
    const list = h('ul', { class: 'stars' });
    for (const [id, titleKey, whatKey] of ACHIEVEMENTS) {
      const title = t(titleKey);
      const what = t(whatKey);
      const on = state.earned[id] !== undefined;
      list.append(h('li', { class: on ? 'earned' : '', 'data-id': id, title: what }, h('span', { class: 'star', 'aria-hidden': 'true', text: on ? '★' : '☆' }), h('span', { class: 'what' }, h('strong', { text: title }), h('span', { class: 'sub', text: ` ${what}` })), h('span', { class: 'sr-only', text: on ? t('ach.earned') : t('ach.notYet') })));
    }
    box.replaceChildren(h('summary', { text: t('ach.summary', { got, all: ACHIEVEMENTS.length }) }), list);
  };
  render();
  listeners.add(render);
  return box;
}

/**
 * On a match page: when the match is against the computer (the lobby's summary names its level,
 * docs/bots.md), follow it for the achievements and show the panel. Nothing otherwise.
 */
export async function followComputerMatch(
  summary: () => Promise<object>,
  game: { current(): GameView; subscribe(listener: (view: GameView) => void): unknown },
  undoCount: () => number,
  into: HTMLElement,
): Promise<void> {
  let bot: string | null | undefined;
  try {
    bot = ((await summary()) as { readonly bot?: string | null }).bot;
  } catch {
    return;
  }
  if (!bot || game.current().viewer === null) return;
  let gameNo = game.current().match.gameNo;
  let baseline = undoCount();
  game.subscribe((view) => {
    if (view.match.gameNo !== gameNo) {
      gameNo = view.match.gameNo;
      baseline = undoCount();
    }
  });
  followGame((listener) => game.subscribe(listener), () => ({ usedUndo: undoCount() > baseline }));
  into.append(achievementsPanel());
}
