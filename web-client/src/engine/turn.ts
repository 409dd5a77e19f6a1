/**
 * Building a turn one checker step at a time, as the UI needs it.
 *
 * A TurnState holds the position at the start of the turn, the dice, the steps made so far and
 * the steps undone (for redo). `nextSteps` offers exactly the single steps after which a legal
 * play can still be completed, so a player can never wander into a dead end; a turn is
 * complete when it has used as many dice as the best legal play does.
 */

import { type Move, diceToPlay, distinctDice } from './movegen';
import { BAR, OFF, type Position, positionKey } from './position';
import { RULES, type VariantRules, legalPlaysOf } from './variants';

/** One checker step of a turn: a move and the die it uses. */
export interface Step {
  readonly from: number;
  readonly to: number;
  readonly die: number;
  /** The step lands on a lone opposing checker. */
  readonly hit: boolean;
}

export interface TurnState {
  readonly start: Position;
  readonly roll: readonly [number, number];
  /** Dice used by every legal play (0 = no legal play: the turn passes). */
  readonly maxUsed: number;
  /** When only one die of a non-double can be used and the higher can be, it must be. */
  readonly forcedDie: number | null;
  readonly steps: readonly Step[];
  /** Undone steps, most recently undone last. */
  readonly undone: readonly Step[];
  /** Position after `steps`. */
  readonly position: Position;
  /** Dice not used yet. */
  readonly remaining: readonly number[];
  /** The variant's rules (backgammon's unless the turn was started with others). */
  readonly rules: VariantRules;
  /** The keys (positionKey) of the legal plays' results where whole-play rules (fevga's) pick
   * among them; null where every sequence using `maxUsed` dice is a legal play. */
  readonly finals: ReadonlySet<string> | null;
  /** Memo of "a legal play can still be completed from here" (position and dice left). */
  readonly memo: Map<string, boolean>;
}

function without(dice: readonly number[], die: number): number[] {
  const i = dice.indexOf(die);
  if (i < 0) throw new Error(`die ${die} is not available`);
  return dice.slice(0, i).concat(dice.slice(i + 1));
}

/** A fresh turn for roll d1-d2 in `position` (the mover is on roll) under `rules`. */
export function startTurn(position: Position, d1: number, d2: number, rules: VariantRules = RULES.backgammon): TurnState {
  const dice = diceToPlay(d1, d2);
  let maxUsed: number;
  let finals: Set<string> | null = null;
  if (rules.endRules(position) === null) {
    maxUsed = usable(rules, position, dice);
  } else {
    const plays = legalPlaysOf(rules, position, d1, d2);
    maxUsed = plays.length ? plays[0]!.moves.length : 0;
    finals = new Set(plays.map((p) => positionKey(p.position)));
  }
  let forcedDie: number | null = null;
  if (maxUsed === 1 && d1 !== d2) {
    // Only one die can be used: the higher when a legal play uses it.
    const higher = Math.max(d1, d2);
    const legal = (m: Move) => finals === null || finals.has(positionKey(rules.applyMove(position, m)));
    if (rules.singleMoves(position, higher).some(legal)) forcedDie = higher;
  }
  return {
    start: position,
    roll: [d1, d2],
    maxUsed,
    forcedDie,
    steps: [],
    undone: [],
    position,
    remaining: dice,
    rules,
    finals,
    memo: new Map(),
  };
}

/** The most dice of the multiset `dice` that can be used from `position` by the step rules. */
function usable(rules: VariantRules, position: Position, dice: readonly number[]): number {
  if (dice.length === 0) return 0;
  let best = 0;
  for (const [die, rest] of distinctDice(dice)) {
    for (const move of rules.singleMoves(position, die)) {
      const used = 1 + usable(rules, rules.applyMove(position, move), rest);
      if (used > best) best = used;
      if (best === dice.length) return best;
    }
  }
  return best;
}

/** Whether `need` more steps with `dice` can reach one of the turn's legal results. */
function canFinish(turn: TurnState, position: Position, dice: readonly number[], need: number): boolean {
  if (turn.finals === null) return usable(turn.rules, position, dice) >= need;
  if (need === 0) return turn.finals.has(positionKey(position));
  const key = positionKey(position) + '#' + [...dice].sort().join('');
  const known = turn.memo.get(key);
  if (known !== undefined) return known;
  let found = false;
  for (const [die, rest] of distinctDice(dice)) {
    if (found) break;
    for (const move of turn.rules.singleMoves(position, die)) {
      if (canFinish(turn, turn.rules.applyMove(position, move), rest, need - 1)) {
        found = true;
        break;
      }
    }
  }
  turn.memo.set(key, found);
  return found;
}

/** Every legal next single step, sorted by source (furthest first), then die (highest first). */
export function nextSteps(turn: TurnState): Step[] {
  const steps: Step[] = [];
  const need = turn.maxUsed - turn.steps.length;
  if (need <= 0) return steps;
  const dice = [...new Set(turn.remaining)].sort((a, b) => b - a);
  const rules = turn.rules;
  for (const die of dice) {
    if (turn.forcedDie !== null && die !== turn.forcedDie) continue;
    const rest = without(turn.remaining, die);
    for (const move of rules.singleMoves(turn.position, die)) {
      const after = rules.applyMove(turn.position, move);
      if (canFinish(turn, after, rest, need - 1)) {
        steps.push({ from: move[0], to: move[1], die, hit: rules.marks(turn.position, move) });
      }
    }
  }
  return steps.sort((a, b) => b.from - a.from || b.die - a.die || b.to - a.to);
}

/** True when `step` is one of the legal next steps. */
export function isLegalStep(turn: TurnState, step: Pick<Step, 'from' | 'to' | 'die'>): boolean {
  return nextSteps(turn).some((s) => s.from === step.from && s.to === step.to && s.die === step.die);
}

/** The turn after `step`; throws if the step is not a legal next step. Clears redo. */
export function applyStep(turn: TurnState, step: Pick<Step, 'from' | 'to' | 'die'>): TurnState {
  const legal = nextSteps(turn).find(
    (s) => s.from === step.from && s.to === step.to && s.die === step.die,
  );
  if (!legal) throw new Error(`illegal step ${step.from}/${step.to} with ${step.die}`);
  return advance(turn, legal, []);
}

function advance(turn: TurnState, step: Step, undone: readonly Step[]): TurnState {
  return {
    ...turn,
    steps: [...turn.steps, step],
    undone,
    position: turn.rules.applyMove(turn.position, [step.from, step.to]),
    remaining: without(turn.remaining, step.die),
  };
}

/** Take back the last step (its die is available again). */
export function undo(turn: TurnState): TurnState {
  if (turn.steps.length === 0) return turn;
  const steps = turn.steps.slice(0, -1);
  const last = turn.steps[turn.steps.length - 1]!;
  let state: TurnState = { ...turn, steps: [], undone: [], position: turn.start, remaining: diceToPlay(...turn.roll) };
  for (const s of steps) state = advance(state, s, []);
  return { ...state, undone: [...turn.undone, last] };
}

/** Replay the most recently undone step. */
export function redo(turn: TurnState): TurnState {
  if (turn.undone.length === 0) return turn;
  const step = turn.undone[turn.undone.length - 1]!;
  return advance(turn, step, turn.undone.slice(0, -1));
}

/** Take back every step of the turn. */
export function undoAll(turn: TurnState): TurnState {
  let state = turn;
  while (state.steps.length) state = undo(state);
  return state;
}

/** The turn has used as many dice as a legal play must (a legal play can be sent). */
export function isComplete(turn: TurnState): boolean {
  return turn.steps.length === turn.maxUsed;
}

/** The checker moves made so far, as sent to the server. */
export function turnMoves(turn: TurnState): Move[] {
  return turn.steps.map((s) => [s.from, s.to] as const);
}

/** The legal final positions still reachable from here (keys from positionKey). */
export function reachablePlays(turn: TurnState): Set<string> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const walk = (state: TurnState) => {
    const key = positionKey(state.position) + '#' + [...state.remaining].sort().join('');
    if (seen.has(key)) return;
    seen.add(key);
    if (isComplete(state)) {
      out.add(positionKey(state.position));
      return;
    }
    for (const step of nextSteps(state)) walk(advance(state, step, []));
  };
  walk(turn);
  return out;
}

/** A way to bring one checker from a source to a destination: one or more legal steps. */
export interface Route {
  readonly from: number;
  readonly to: number;
  readonly steps: readonly Step[];
}

/**
 * Every destination the checker on `from` can reach with one or more legal steps of the same
 * checker (using several dice in one go only over open intermediate points). Routes are listed
 * shortest first, highest die first.
 */
export function routesFrom(turn: TurnState, from: number): Route[] {
  const routes: Route[] = [];
  const walk = (state: TurnState, at: number, path: Step[]) => {
    for (const step of nextSteps(state)) {
      if (step.from !== at) continue;
      const route = [...path, step];
      routes.push({ from, to: step.to, steps: route });
      if (step.to !== OFF) walk(advance(state, step, []), step.to, route);
    }
  };
  walk(turn, from, []);
  return routes.sort(
    (a, b) => a.steps.length - b.steps.length || b.steps[0]!.die - a.steps[0]!.die,
  );
}

/** The turn after taking every step of `route` (each must be legal in turn). */
export function applyRoute(turn: TurnState, route: Route): TurnState {
  let state = turn;
  for (const step of route.steps) state = applyStep(state, step);
  return state;
}

/**
 * Group the routes to `to` into the genuinely different choices: routes that leave the same
 * position and dice are one choice, and choices whose every completion reaches the same set of
 * final plays are interchangeable too. Returns one route per real choice (shortest first).
 */
export function choicesTo(turn: TurnState, routes: readonly Route[], to: number): Route[] {
  const byState = new Map<string, { route: Route; after: TurnState }>();
  for (const route of routes) {
    if (route.to !== to) continue;
    const after = applyRoute(turn, route);
    const key = positionKey(after.position) + '#' + [...after.remaining].sort().join('');
    if (!byState.has(key)) byState.set(key, { route, after });
  }
  const distinct = [...byState.values()];
  if (distinct.length <= 1) return distinct.map((d) => d.route);
  const finals = distinct.map((d) => [...reachablePlays(d.after)].sort().join(';'));
  if (finals.every((f) => f === finals[0])) return [distinct[0]!.route];
  const seen = new Set<string>();
  const out: Route[] = [];
  distinct.forEach((d, i) => {
    if (!seen.has(finals[i]!)) {
      seen.add(finals[i]!);
      out.push(d.route);
    }
  });
  return out;
}

/** Sources that have a legal next step (25 = the bar). */
export function movableSources(turn: TurnState): number[] {
  return [...new Set(nextSteps(turn).map((s) => s.from))];
}

/** Human notation of one step, e.g. "13/10", "Bar/22*" (hit), "6/Off". */
export function stepLabel(step: Pick<Step, 'from' | 'to' | 'hit'>): string {
  const from = step.from === BAR ? 'Bar' : String(step.from);
  const to = step.to === OFF ? 'Off' : String(step.to);
  return `${from}/${to}${step.hit ? '*' : ''}`;
}

/** Human notation of a route: the points it touches joined by slashes, a star after each hit. */
export function routeLabel(route: Route): string {
  const parts = [route.from === BAR ? 'Bar' : String(route.from)];
  for (const s of route.steps) parts.push((s.to === OFF ? 'Off' : String(s.to)) + (s.hit ? '*' : ''));
  return parts.join('/');
}
