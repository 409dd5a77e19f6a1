/**
 * The trainer at `/trainer`: the signed-in player's own errors as puzzles (`GET /api/trainer`,
 * server/web/trainer.py). The position is on the board; a checker puzzle lists the roll's legal
 * plays (in notation order, from the analysis board's 1-ply list, no figures shown), a cube
 * puzzle its two answers. After an answer: right or wrong, the best play or action, what was
 * played in the game, and the streak and puzzle rating; then the next puzzle.
 *
 * A guest (signed out) trains on the games played in this browser: the page sends the seat
 * tokens it keeps (`POST /api/trainer/guest`) and keeps the progress the server answers in
 * localStorage (`fairgammon.trainer`).
 */

import { ltr, t } from '../i18n';
import { whoAmI } from '../net/accountApi';
import { analyse } from '../net/analyseApi';
import { decodePositionId } from '../engine/positionId';
import { heldSeats, loadTrainerProgress, saveTrainerProgress } from '../net/storage';
import { BoardApp } from '../ui/app';
import { button, h } from '../ui/dom';
import type { GameSource, GameView } from '../view/gameView';
import { pageHeader } from './common';

interface PuzzleDoc {
  readonly id: string;
  readonly kind: 'play' | 'cube';
  readonly position_id: string;
  readonly match_id: string;
  readonly dice: readonly [number, number] | null;
  readonly error: number;
  readonly source: string;
  /** A cube quiz at a match score met (not an error of yours). */
  readonly quiz?: boolean;
  /** The match state, from your side: score yours first; cube owner 'you', 'opponent' or null. */
  readonly state?: { readonly length: number; readonly score: readonly [number, number]; readonly crawford: boolean; readonly cube: number; readonly owner: 'you' | 'opponent' | null };
}

interface TrainerDoc {
  readonly puzzle: PuzzleDoc | null;
  readonly due: number;
  readonly total: number;
  readonly streak: number;
  readonly best_streak: number;
  readonly rating: number;
  readonly answered: number;
  /** A guest's progress, to keep in this browser. */
  readonly progress?: unknown;
}

interface Verdict extends Omit<TrainerDoc, 'puzzle'> {
  readonly right: boolean;
  readonly best: string;
  readonly best_text: string;
  readonly played_text: string;
  readonly error: number;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, { method, credentials: 'same-origin', cache: 'no-store', headers: { 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const doc = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new Error(String(doc.message ?? `HTTP ${response.status}`));
  return doc as T;
}

export async function startTrainerPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'trainer-page');
  const me = await whoAmI();
  let store: Storage | null = null;
  try {
    store = localStorage;
  } catch {
    store = null;
  }
  const seats = me || !store ? [] : heldSeats(store);
  if (!me && !seats.length) {
    root.replaceChildren(pageHeader(), h('main', { class: 'center-card' }, h('section', { class: 'card' }, h('h1', { text: t('nav.trainer') }), h('p', { text: t('trainer.none') }), h('a', { class: 'btn primary', href: '/', text: t('match.toLobby') }))));
    return;
  }
  const guest = !me;
  const progressOf = () => (store ? loadTrainerProgress(store) : null) ?? null;
  const keep = (doc: { progress?: unknown }) => {
    if (guest && store && doc.progress) saveTrainerProgress(store, doc.progress);
  };
  let puzzle: PuzzleDoc | null = null;
  let boards: readonly [readonly number[], readonly number[]] = [[], []];
  const listeners = new Set<(v: GameView) => void>();
  const noop = () => undefined;
  const source: GameSource = {
    current: () => viewOf(puzzle, boards),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    roll: noop, double: noop, take: noop, drop: noop, play: noop, resign: noop, acceptResign: noop, rejectResign: noop, next: noop,
  };
  const app = new BoardApp(root, source, { title: 'fairgammon', home: '/' });
  app.headerExtra.append(h('span', { class: 'badge trainer-badge', text: t('nav.trainer') }));
  const stats = h('p', { class: 'tr-stats', 'aria-live': 'polite' });
  const question = h('h2', { class: 'tr-question' });
  const choices = h('div', { class: 'tr-choices' });
  const verdict = h('p', { class: 'tr-verdict', 'aria-live': 'polite' });
  const next = button(t('trainer.next'), 'btn primary tr-next');
  next.hidden = true;
  next.addEventListener('click', () => void load());
  app.sideMain.append(h('section', { class: 'card tr-card', 'aria-label': t('trainer.puzzle') }, stats, question, choices, verdict, next));
  const publish = () => {
    const v = source.current();
    for (const l of listeners) l(v);
  };
  const showStats = (d: Omit<TrainerDoc, 'puzzle'>) => {
    stats.textContent = t('trainer.stats', { streak: d.streak, best: d.best_streak, rating: String(d.rating), due: d.due, total: d.total });
  };

  async function load(): Promise<void> {
    next.hidden = true;
    verdict.textContent = '';
    verdict.className = 'tr-verdict';
    choices.replaceChildren();
    const doc = guest ? await call<TrainerDoc>('POST', '/api/trainer/guest', { seats, progress: progressOf() }) : await call<TrainerDoc>('GET', '/api/trainer');
    keep(doc);
    showStats(doc);
    puzzle = doc.puzzle;
    if (!puzzle) {
      question.textContent = doc.total ? t('trainer.nothingDue') : guest ? t('trainer.noneGuest') : t('trainer.noneYet');
      boards = [[], []];
      publish();
      return;
    }
    const p = decodePositionId(puzzle.position_id);
    // Facing a double, the IDs are the doubler's (the player on roll): the board shows yours.
    boards = puzzle.kind === 'cube' && decodeFacing(puzzle.match_id) ? [p.opponent, p.mover] : [p.mover, p.opponent];
    publish();
    if (puzzle.kind === 'play' && puzzle.dice) {
      question.textContent = t('trainer.findBest', { dice: ltr(`${puzzle.dice[0]}-${puzzle.dice[1]}`) });
      const got = await analyse({ position_id: puzzle.position_id, match_id: puzzle.match_id, ply: 1 });
      const plays = [...got.plays].sort((a, b) => a.play.localeCompare(b.play));
      for (const play of plays) choices.append(choice(play.play, play.position_id));
    } else {
      const facing = decodeFacing(puzzle.match_id);
      const st = puzzle.state;
      const args = {
        facing: facing ? 'yes' : 'no',
        quiz: puzzle.quiz ? 'yes' : 'no',
        match: st && st.length ? 'yes' : 'no',
        score: st ? ltr(`${st.score[0]}-${st.score[1]}`) : '',
        length: st?.length ?? 0,
        crawford: st?.crawford ? 'yes' : 'no',
      };
      question.textContent = t('trainer.cube', args);
      for (const [label, value] of facing ? [[t('offer.take'), 'take'], [t('trainer.pass'), 'pass']] : [[t('board.double'), 'double'], [t('trainer.noDouble'), 'no_double']]) choices.append(choice(label!, value!));
    }
  }

  function choice(label: string, value: string): HTMLElement {
    const b = button(label, 'btn ghost tr-choice');
    b.addEventListener('click', async () => {
      if (!puzzle) return;
      for (const x of choices.querySelectorAll('button')) x.disabled = true;
      const v = guest
        ? await call<Verdict>('POST', '/api/trainer/guest/answer', { seats, progress: progressOf(), puzzle: puzzle.id, answer: value })
        : await call<Verdict>('POST', '/api/trainer/answer', { puzzle: puzzle.id, answer: value });
      keep(v);
      b.classList.add(v.right ? 'right' : 'wrong');
      verdict.className = `tr-verdict ${v.right ? 'right' : 'wrong'}`;
      verdict.textContent = t(v.right ? 'trainer.right' : 'trainer.wrong', { best: ltr(v.best_text), played: ltr(v.played_text), error: v.error.toFixed(3) });
      if (puzzle.kind === 'play') {
        const after = decodePositionId(v.best);
        boards = [after.mover, after.opponent];
        publish();
      }
      showStats(v);
      next.hidden = false;
    });
    return b;
  }

  await load();
  Object.assign(window, { fairgammon: { trainer: { puzzle: () => puzzle } } });
}

/** Whether a Match ID has a double pending (the player to decide faces it): bit 12 of gnubg's key. */
function decodeFacing(matchId: string): boolean {
  try {
    const bytes = Uint8Array.from(atob(matchId), (c) => c.charCodeAt(0));
    return ((bytes[1]! >> 4) & 1) === 1;
  } catch {
    return false;
  }
}

function viewOf(puzzle: PuzzleDoc | null, boards: readonly [readonly number[], readonly number[]]): GameView {
  const empty = [15, ...Array<number>(25).fill(0)];
  return {
    viewer: null,
    players: [
      { name: t('trainer.you'), presence: 'online', forfeitAt: null },
      { name: t('seek.opponent'), presence: 'online', forfeitAt: null },
    ],
    boards: boards[0].length ? boards : [empty, empty],
    turn: 0,
    phase: puzzle?.dice ? 'moving' : 'decide',
    dice: puzzle?.dice ? { k: 0, values: [puzzle.dice[0], puzzle.dice[1]], seat: 0, check: 'unverified' } : null,
    cube: { value: puzzle?.state?.cube ?? 1, owner: puzzle?.state?.owner === 'you' ? 0 : puzzle?.state?.owner === 'opponent' ? 1 : null, enabled: true },
    match: puzzle?.state?.length
      ? { kind: 'match', length: puzzle.state.length, score: [puzzle.state.score[0], puzzle.state.score[1]], crawford: puzzle.state.crawford, gameNo: 1 }
      : { kind: 'money', length: 0, score: [0, 0], crawford: false, gameNo: 1 },
    clocks: [
      { deadline: null, budgetMs: 0, reserve: null },
      { deadline: null, budgetMs: 0, reserve: null },
    ],
    offer: null,
    lastPlay: null,
    result: null,
    notice: null,
    fairness: null,
    spectators: 0,
    pending: false,
    version: 0,
    status: puzzle ? t('trainer.yourPuzzle') : t('nav.trainer'),
  };
}
