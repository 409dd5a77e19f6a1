/**
 * The replay board at `/m/<match>/replay/<game>`: a recorded game on the board, step by step.
 * Buttons and the arrow keys step back and forth (Home/End jump to the start and the end), a
 * click on a turn of the move record jumps there, and the address (`#turn=<step>`) always
 * names the step shown, so a copied link opens at it. Dice, cube, score and pip counts are
 * those of the step.
 */

import { t } from '../i18n';
import { entryWords } from '../ui/recordWords';
import { type GameRecordDoc, fetchGameRecord, recordPath } from '../net/recordApi';
import { BoardApp } from '../ui/app';
import { button, h } from '../ui/dom';
import { MoveRecordPanel } from '../ui/moveRecord';
import type { GameSource, GameView } from '../view/gameView';
import { type ReplayStep, entriesOf, replayPath, replaySteps, stepFromHash } from '../view/replay';
import { decodePositionId, encodePositionId } from '../engine/positionId';
import { analysePath } from '../view/boardQuery';
import { AnalysisPanel, analysisPath } from './analysisPanel';
import { linkField, pageHeader } from './common';

const MATCH_ID = /^[0-9a-f]{32}$/;

/** Where a replayed game comes from: a match played here, or an import (its own API paths). */
export interface ReplayOrigin {
  readonly record: (game: number) => string;
  readonly analysis: (game: number) => string;
  readonly page: (game: number, step?: number) => string;
  readonly back: { readonly href: string; readonly text: string };
}

const IMPORT_ID = /^[0-9a-f]{24}$/;

export function importOrigin(ident: string): ReplayOrigin {
  const api = `/api/imports/${ident}/games`;
  return {
    record: (n) => `${api}/${n}/record.json`,
    analysis: (n) => `${api}/${n}/analysis.json`,
    page: (n, step) => `/imports/${ident}/replay/${n}${step ? `#turn=${step}` : ''}`,
    back: { href: `/imports#${ident}`, text: t('replay.backImport') },
  };
}

/** An imported game on the replay board (`/imports/<import>/replay/<n>`). */
export function startImportReplayPage(root: HTMLElement, ident: string, game: number): Promise<void> {
  if (!IMPORT_ID.test(ident)) {
    root.classList.add('fg-app', 'replay-page');
    failed(root, t('replay.noGame'));
    return Promise.resolve();
  }
  return startReplayPage(root, ident, game, importOrigin(ident));
}

export async function startReplayPage(root: HTMLElement, matchId: string, game: number, origin?: ReplayOrigin): Promise<void> {
  root.classList.add('fg-app', 'replay-page');
  if (!origin && !MATCH_ID.test(matchId)) return failed(root, t('replay.noGame'));
  if (!(game >= 1)) return failed(root, t('replay.noGame'));
  const from: ReplayOrigin = origin ?? {
    record: (n) => recordPath(matchId, n),
    analysis: (n) => analysisPath(matchId, n),
    page: (n, step) => replayPath(matchId, n, step),
    back: { href: `/m/${matchId}`, text: t('replay.backMatch') },
  };
  let doc: GameRecordDoc;
  try {
    doc = await fetchGameRecord(from.record(game));
  } catch (err) {
    return failed(root, err instanceof Error ? err.message : String(err));
  }
  const steps = replaySteps(doc);
  const entries = entriesOf(doc);
  let at = Math.min(stepFromHash(location.hash) ?? 0, steps.length - 1);
  // The best play shown instead of the one made (on request), else null.
  let best: { id: string; seat: 0 | 1 } | null = null;
  const listeners = new Set<(v: GameView) => void>();
  let analysis: AnalysisPanel | null = null;
  const noop = () => undefined;
  const source: GameSource = {
    current: () => {
      const plain = viewOf(doc, steps[at]!, at, steps.length);
      // The analysis's verdict on the shown turn, on the board's status line too.
      const mark = analysis?.marks()?.get(at - 1);
      const view = mark ? { ...plain, status: `${plain.status} ${mark === 'blunder' ? '?? blunder' : '? error'}` } : plain;
      if (!best) return view;
      const p = decodePositionId(best.id);
      const boards = best.seat === 0 ? ([p.mover, p.opponent] as const) : ([p.opponent, p.mover] as const);
      return { ...view, boards, lastPlay: null, status: t('replay.bestPlay', { status: view.status ?? '' }) };
    },
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    roll: noop,
    double: noop,
    take: noop,
    drop: noop,
    play: noop,
    resign: noop,
    acceptResign: noop,
    rejectResign: noop,
    next: noop,
  };
  const app = new BoardApp(root, source, { title: 'fairgammon', home: '/' });
  app.headerExtra.append(h('span', { class: 'badge replay-badge', text: t('replay.badge', { game: doc.game }) }));

  const record = new MoveRecordPanel((_, index) => go(index + 1));
  const position = h('span', { class: 'replay-pos', 'aria-live': 'polite' });
  const first = button(t('replay.start'), 'btn ghost replay-first');
  const back = button(t('replay.back'), 'btn replay-back');
  const fwd = button(t('replay.next'), 'btn primary replay-next');
  const last = button(t('replay.end'), 'btn ghost replay-last');
  first.setAttribute('aria-label', t('replay.startLabel'));
  last.setAttribute('aria-label', t('replay.endLabel'));
  back.setAttribute('aria-keyshortcuts', 'ArrowLeft');
  fwd.setAttribute('aria-keyshortcuts', 'ArrowRight');
  first.addEventListener('click', () => go(0));
  back.addEventListener('click', () => go(at - 1));
  fwd.addEventListener('click', () => go(at + 1));
  last.addEventListener('click', () => go(steps.length - 1));
  const share = h('div', { class: 'replay-share' });
  const games = h('p', { class: 'links replay-games' });
  for (const n of doc.games) {
    if (n === doc.game) games.append(h('strong', { text: t('record.game', { n }) }));
    else games.append(h('a', { href: from.page(n), text: t('record.game', { n }) }));
  }
  games.append(h('a', { href: from.back.href, text: from.back.text }));
  const panel = new AnalysisPanel(matchId, doc.game, [doc.names[0], doc.names[1]], true, from.analysis(doc.game));
  analysis = panel;
  const controls = h('section', { class: 'replay-controls', 'aria-label': t('profile.replay') }, h('div', { class: 'replay-buttons' }, first, back, position, fwd, last));
  app.sideMain.append(controls, record.el, panel.el, share, games);

  const render = () => {
    position.textContent = `${at} / ${steps.length - 1}`;
    first.disabled = back.disabled = at === 0;
    last.disabled = fwd.disabled = at === steps.length - 1;
    record.render({
      names: [doc.names[0], doc.names[1]],
      games: [{ number: doc.game, label: t('record.game', { n: doc.game }), entries, marks: panel.marks() }],
      selected: at > 0 ? { game: doc.game, index: at - 1 } : null,
    });
    panel.show(at - 1);
    const url = `${location.origin}${from.page(doc.game, at)}`;
    share.replaceChildren(linkField(t('replay.link'), url, 'replaylink'));
    // The next decision of this game on the analysis board: the position before it, seen by
    // the player to act, with the score, the cube and the dice they rolled (the server's IDs;
    // a resignation's position without them).
    const next = doc.turns[at];
    if (next) {
      const [mine, theirs] = [steps[at]!.boards[next.seat], steps[at]!.boards[next.seat === 0 ? 1 : 0]];
      const dice = next.action === 'move' || next.action === 'pass' ? next.dice : null;
      const href = next.board
        ? analysePath(next.board.position_id, dice, next.board.match_id)
        : analysePath(encodePositionId({ mover: mine, opponent: theirs }), null);
      share.append(h('a', { class: 'btn ghost replay-analyse', href, text: t('replay.analyse') }));
    }
    history.replaceState(null, '', from.page(doc.game, at));
    const view = source.current();
    for (const l of listeners) l(view);
  };
  const go = (i: number) => {
    const next = Math.max(0, Math.min(steps.length - 1, i));
    if (next === at) return;
    at = next;
    render();
  };
  // Before the board's own keys (arrows move its focus): capture on the window.
  window.addEventListener(
    'keydown',
    (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT')) return;
      const to = { ArrowLeft: at - 1, ArrowRight: at + 1, ArrowUp: at - 1, ArrowDown: at + 1, Home: 0, End: steps.length - 1 }[e.key];
      if (to === undefined) return;
      e.preventDefault();
      e.stopPropagation();
      go(to);
    },
    { capture: true },
  );
  panel.onChange = render;
  panel.onBest = (b) => {
    best = b;
    const view = source.current();
    for (const l of listeners) l(view);
  };
  addEventListener('hashchange', () => go(stepFromHash(location.hash) ?? at));
  render();
  panel.start();
  Object.assign(window, { fairgammon: { replay: { steps: steps.length, at: () => at, go } } });
}

function viewOf(doc: GameRecordDoc, step: ReplayStep, at: number, count: number): GameView {
  const end = at === count - 1 && doc.result !== null;
  const who = step.seat === null ? '' : doc.names[step.seat];
  const status = step.entry ? t('replay.status', { who, entry: entryWords(step.entry) }) : t('replay.startOfGame');
  return {
    viewer: null,
    players: [
      { name: doc.names[0], presence: 'online', forfeitAt: null },
      { name: doc.names[1], presence: 'online', forfeitAt: null },
    ],
    boards: step.boards,
    variant: doc.variant ?? 'backgammon',
    pinned: step.pinned,
    turn: step.seat,
    phase: step.dice ? 'moving' : end ? 'gameover' : 'decide',
    dice: step.dice && step.seat !== null ? { k: at, values: step.dice, seat: step.seat, check: 'unverified' } : null,
    cube: { value: step.cube, owner: step.owner, enabled: doc.mode !== 'single_game' && !doc.crawford },
    match: { kind: doc.mode === 'single_game' ? 'single' : doc.mode, length: doc.length ?? 0, score: step.score, crawford: doc.crawford, gameNo: doc.game },
    clocks: [
      { deadline: null, budgetMs: 0, reserve: null },
      { deadline: null, budgetMs: 0, reserve: null },
    ],
    offer: null,
    lastPlay: step.seat !== null && step.moves.length ? { seat: step.seat, moves: step.moves } : null,
    result: null,
    notice: null,
    fairness: null,
    spectators: 0,
    pending: false,
    version: 0,
    status,
  };
}

function failed(root: HTMLElement, why: string): void {
  root.replaceChildren(
    pageHeader(),
    h('main', { class: 'center-card' }, h('section', { class: 'card' }, h('h1', { text: t('replay.cannot') }), h('p', { text: why }), h('a', { class: 'btn primary', href: '/', text: t('match.toLobby') }))),
  );
}
