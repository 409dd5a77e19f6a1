/**
 * The move-input state of one turn, independent of the DOM: which checker is selected, where it
 * may go (single dice and whole routes over open points), the pending die or route choice, the
 * list selection, undo and redo. Points are in the mover's numbering (25 = bar, 0 = off).
 */

import type { Position } from '../engine/position';
import { BAR, OFF } from '../engine/position';
import type { Move } from '../engine/movegen';
import { type VariantRules, legalPlaysOf } from '../engine/variants';
import {
  type Route,
  type Step,
  type TurnState,
  applyRoute,
  applyStep,
  choicesTo,
  isComplete,
  movableSources,
  nextSteps,
  redo as redoTurn,
  routesFrom,
  startTurn,
  undo as undoTurn,
} from '../engine/turn';

export interface MoveUi {
  readonly turn: TurnState;
  /** Selected source (mover numbering, 25 = bar), or null. */
  readonly selected: number | null;
  /** Destinations the selected checker can reach: one or more routes each. */
  readonly targets: ReadonlyMap<number, readonly Route[]>;
  /** A destination reached in genuinely different ways: the player picks one route. */
  readonly choice: { readonly to: number; readonly routes: readonly Route[] } | null;
  /** Index into nextSteps(turn) picked in the move list, or null. */
  readonly listPick: number | null;
}

/** The only legal play of the turn's roll when there is just one (a forced play), else null. */
export function forcedPlay(ui: MoveUi): Move[] | null {
  const t = ui.turn;
  const plays = legalPlaysOf(t.rules, t.start, t.roll[0], t.roll[1]);
  return plays.length === 1 ? [...plays[0]!.moves] : null;
}

export function newMoveUi(position: Position, d1: number, d2: number, rules?: VariantRules): MoveUi {
  return fresh(startTurn(position, d1, d2, rules));
}

function fresh(turn: TurnState): MoveUi {
  return { turn, selected: null, targets: new Map(), choice: null, listPick: null };
}

/** Legal next steps (what the move list offers). */
export function listSteps(ui: MoveUi): Step[] {
  return nextSteps(ui.turn);
}

export function sources(ui: MoveUi): number[] {
  return movableSources(ui.turn);
}

/** Select the checker on `from` if it can move; otherwise clear the selection. */
export function select(ui: MoveUi, from: number): MoveUi {
  if (!sources(ui).includes(from)) return clear(ui);
  const targets = new Map<number, Route[]>();
  for (const route of routesFrom(ui.turn, from)) {
    const list = targets.get(route.to) ?? [];
    list.push(route);
    targets.set(route.to, list);
  }
  return { ...ui, selected: from, targets, choice: null, listPick: null };
}

export function clear(ui: MoveUi): MoveUi {
  return { ...ui, selected: null, targets: new Map(), choice: null, listPick: null };
}

/** Move the selected checker to `to`: at once when there is one real way, else ask. */
export function moveTo(ui: MoveUi, to: number): MoveUi {
  const routes = ui.targets.get(to);
  if (ui.selected === null || !routes) return ui;
  const choices = choicesTo(ui.turn, routes, to);
  if (choices.length === 1) return fresh(applyRoute(ui.turn, choices[0]!));
  return { ...ui, choice: { to, routes: choices }, listPick: null };
}

/** Take the i-th route of the pending choice. */
export function pickChoice(ui: MoveUi, i: number): MoveUi {
  const route = ui.choice?.routes[i];
  if (!route) return ui;
  return fresh(applyRoute(ui.turn, route));
}

/**
 * A tap (or Enter) on a place of the board: move there when it is a destination of the
 * selected checker, select it when it holds a movable checker, else clear.
 */
export function tap(ui: MoveUi, place: number): MoveUi {
  if (ui.selected !== null && ui.targets.has(place)) return moveTo(ui, place);
  if (ui.selected === place) return clear(ui);
  return select(ui, place);
}

/** Bear off the selected checker (O key / tray tap), when it can. */
export function bearOff(ui: MoveUi): MoveUi {
  return ui.selected !== null && ui.targets.has(OFF) ? moveTo(ui, OFF) : ui;
}

/** Select the bar (B key). */
export function selectBar(ui: MoveUi): MoveUi {
  return select(ui, BAR);
}

/** Pick a step in the move list (it highlights on the board). */
export function pickListStep(ui: MoveUi, index: number): MoveUi {
  const steps = listSteps(ui);
  if (index < 0 || index >= steps.length) return ui;
  return { ...select(ui, steps[index]!.from), listPick: index };
}

/** Play a step of the move list (the Play button). */
export function playListStep(ui: MoveUi, index: number | null = ui.listPick): MoveUi {
  if (index === null) return ui;
  const step = listSteps(ui)[index];
  return step ? fresh(applyStep(ui.turn, step)) : ui;
}

export function undo(ui: MoveUi): MoveUi {
  return ui.turn.steps.length ? fresh(undoTurn(ui.turn)) : clear(ui);
}

export function redo(ui: MoveUi): MoveUi {
  return ui.turn.undone.length ? fresh(redoTurn(ui.turn)) : ui;
}

export function complete(ui: MoveUi): boolean {
  return isComplete(ui.turn);
}

/** Dice not used yet, for dimming the used ones. */
export function remainingDice(ui: MoveUi): readonly number[] {
  return ui.turn.remaining;
}

// ---- quick input: one tap per checker step ------------------------------------------------

/**
 * The step a tap on `from` makes in quick mode, or null when that checker cannot move: the die
 * that makes sense there. A step that makes a point (lands on a lone checker of the mover's),
 * hits or bears off comes first; otherwise the higher die, so the other die is a second tap.
 */
export function quickStep(ui: MoveUi, from: number): Step | null {
  const steps = listSteps(ui).filter((s) => s.from === from);
  if (steps.length === 0) return null;
  const board = ui.turn.position.mover;
  const score = (s: Step) => {
    if (s.to === OFF) return 2;
    if (s.to !== BAR && board[s.to] === 1) return 2; // makes a point
    if (s.hit) return 1;
    return 0;
  };
  return [...steps].sort((a, b) => score(b) - score(a) || b.die - a.die)[0]!;
}

/**
 * The one real way to reach `to` with the turn's remaining dice, from whichever checker, or null
 * when no checker can get there or when several can (then the player taps the checker instead).
 */
export function uniqueRouteTo(ui: MoveUi, to: number): Route | null {
  const found = new Map<string, Route>();
  for (const from of sources(ui)) {
    const routes = routesFrom(ui.turn, from).filter((r) => r.to === to);
    for (const route of choicesTo(ui.turn, routes, to)) {
      const after = applyRoute(ui.turn, route);
      found.set(`${from}:${after.remaining.join('')}`, route);
    }
  }
  return found.size === 1 ? [...found.values()][0]! : null;
}

/**
 * A tap in quick mode: with a checker selected (a drag, the move list) it behaves like `tap`;
 * a tap on a movable checker moves it at once by `quickStep`; a tap on a place only one checker
 * can reach moves that checker there; anything else clears.
 */
export function quickTap(ui: MoveUi, place: number): MoveUi {
  if (ui.selected !== null && ui.targets.has(place)) return moveTo(ui, place);
  const step = quickStep(ui, place);
  if (step) return fresh(applyStep(ui.turn, step));
  const route = uniqueRouteTo(ui, place);
  if (route) return fresh(applyRoute(ui.turn, route));
  return clear(ui);
}
