/**
 * What the board shows right now, computed from the GameView and the move input: checkers per
 * place from the bottom seat's side, highlights, dice (used ones dimmed) and the cube. Pure, so
 * the view state is unit-tested without a DOM.
 */

import { BAR, OFF, type Board, pipCount } from '../engine/position';
import { stepLabel, type Step } from '../engine/turn';
import type { DiceCheck, GameView, Seat } from '../view/gameView';
import { actingSeat } from '../view/gameView';
import { type GameVariant, rulesOf, theirPoint } from '../engine/variants';
import { type MoveUi, complete, listSteps, sources } from './moveController';

export interface Stack {
  readonly seat: Seat;
  readonly count: number;
  /** Plakoto: the other seat's single checker pinned under this stack (drawn beneath it). */
  readonly pinned?: Seat;
}

export interface SceneDie {
  readonly value: number;
  readonly used: boolean;
  /** The seat whose colour the die has. */
  readonly seat: Seat;
}

export interface MoveOption {
  readonly index: number;
  readonly step: Step;
  /** e.g. "13/10" or "Bar/22*" or "6/Off". */
  readonly label: string;
  readonly die: number;
}

export interface Scene {
  /** The game's variant (backgammon unless the view names another). */
  readonly variant: GameVariant;
  /** How the top seat's points face the bottom seat's: mirrored, or fevga's half a lap on. */
  readonly facing: 'mirrored' | 'same-way';
  readonly bottom: Seat;
  readonly top: Seat;
  /** The seat whose checkers can be moved now (the bottom one unless the board keeps a side). */
  readonly mover: Seat;
  /** Index 1..24: the stack on each point (screen numbering), or null. */
  readonly points: readonly (Stack | null)[];
  readonly bar: readonly [number, number];
  readonly off: readonly [number, number];
  readonly pips: readonly [number, number];
  /** The bottom seat is moving checkers now. */
  readonly interactive: boolean;
  readonly movable: readonly number[];
  readonly selected: number | null;
  readonly targets: readonly number[];
  readonly options: readonly MoveOption[];
  readonly listPick: number | null;
  /** Dice drawn in the bottom seat's half (true) or the top seat's (false); roll-off: both. */
  readonly dice: {
    readonly k: number;
    readonly dice: readonly SceneDie[];
    readonly check: DiceCheck;
    readonly rollOff: boolean;
  } | null;
  /** 'offered-top' / 'offered-bottom': a double offered by that side, drawn on its half. */
  readonly cube: {
    readonly value: number;
    readonly at: 'top' | 'middle' | 'bottom' | 'offered-top' | 'offered-bottom';
    readonly enabled: boolean;
  };
  /** Arrows of the last play, in places (0 = that seat's tray, 25 = its bar). */
  readonly arrows: readonly { readonly seat: Seat; readonly from: number; readonly to: number }[];
  /** The arrows are a hinted play (not the last one made): drawn in their own colour. */
  readonly hinted?: boolean;
  readonly turnComplete: boolean;
  readonly canUndo: boolean;
  readonly canRedo: boolean;
  readonly acting: Seat | null;
}

/** The checker counts on display: the turn in progress when there is one, else the view's. */
export function displayBoards(view: GameView, ui: MoveUi | null): readonly [Board, Board] {
  if (!ui || view.turn === null) return view.boards;
  const { mover, opponent } = ui.turn.position;
  return view.turn === 0 ? [mover, opponent] : [opponent, mover];
}

/** The pinned checkers on display (plakoto): each seat's bitmask of its own points. */
export function displayPins(view: GameView, ui: MoveUi | null): readonly [number, number] {
  if (!ui || view.turn === null) return view.pinned ?? [0, 0];
  const { moverPinned = 0, opponentPinned = 0 } = ui.turn.position;
  return view.turn === 0 ? [moverPinned, opponentPinned] : [opponentPinned, moverPinned];
}

/** The arrows of `seat`'s play `moves` (`[from, to]` in that seat's points) on a board with `bottom` below. */
export function playArrows(
  seat: Seat,
  bottom: Seat,
  moves: readonly (readonly [number, number])[],
  facing: Scene['facing'] = 'mirrored',
): Scene['arrows'] {
  return moves.map(([from, to]) => ({
    seat,
    from: from === BAR ? BAR : screenPlace(seat, bottom, from, facing),
    to: to === OFF ? OFF : screenPlace(seat, bottom, to, facing),
  }));
}

/** Place a seat's own point q is drawn at, from the bottom seat's side (its own inverse). */
export function screenPlace(seat: Seat, bottom: Seat, q: number, facing: Scene['facing'] = 'mirrored'): number {
  return seat === bottom ? q : theirPoint({ facing }, q);
}

/** `spectatorSide`: the seat drawn at the bottom for a spectator (the board can be flipped). */
export function buildScene(view: GameView, ui: MoveUi | null, spectatorSide: Seat = 0): Scene {
  const bottom: Seat = view.side ?? view.viewer ?? spectatorSide;
  const top: Seat = bottom === 0 ? 1 : 0;
  const boards = displayBoards(view, ui);
  const pins = displayPins(view, ui);
  const rules = rulesOf(view.variant);
  const facing = rules.facing;
  const points: (Stack | null)[] = new Array(25).fill(null);
  for (const seat of [0, 1] as const) {
    for (let q = 1; q <= 24; q++) {
      const n = boards[seat][q]!;
      // A pinned checker is drawn under its pinners' stack (which sets it when drawn).
      if (n > 0 && !((pins[seat] >> q) & 1)) points[screenPlace(seat, bottom, q, facing)] = { seat, count: n };
    }
  }
  for (const seat of [0, 1] as const) {
    for (let q = 1; q <= 24; q++) {
      if (!((pins[seat] >> q) & 1)) continue;
      const place = screenPlace(seat, bottom, q, facing);
      const pinner = points[place];
      points[place] = pinner ? { ...pinner, pinned: seat } : { seat, count: 1 };
    }
  }
  const interactive = ui !== null && view.viewer !== null && view.turn === view.viewer && view.phase === 'moving' && !view.pending;
  const mover: Seat = interactive && view.turn !== null ? view.turn : bottom;
  // The turn's places (the mover's numbering) where they are drawn (the bottom seat's).
  const onScreen = (q: number) => (q >= 1 && q <= 24 ? screenPlace(mover, bottom, q, facing) : q);
  const options: MoveOption[] = interactive
    ? listSteps(ui).map((step, index) => ({ index, step, label: stepLabel(step), die: step.die }))
    : [];

  let dice: Scene['dice'] = null;
  if (view.dice) {
    const [a, b] = view.dice.values;
    if (view.dice.seat === null || view.phase === 'rolloff') {
      dice = {
        k: view.dice.k,
        dice: [
          { value: a, used: false, seat: 0 },
          { value: b, used: false, seat: 1 },
        ],
        check: view.dice.check,
        rollOff: true,
      };
    } else {
      const seat = view.dice.seat;
      const values = a === b ? [a, a, a, a] : [a, b];
      // Dim the dice already used, leftmost first.
      const remaining = ui && interactive ? [...ui.turn.remaining] : values;
      const spent = new Map<number, number>();
      for (const v of values) spent.set(v, (spent.get(v) ?? 0) + 1);
      for (const v of remaining) spent.set(v, spent.get(v)! - 1);
      const used = values.map((v) => {
        const n = spent.get(v)!;
        spent.set(v, n - 1);
        return n > 0;
      });
      dice = {
        k: view.dice.k,
        dice: values.map((value, i) => ({ value, used: used[i]!, seat })),
        check: view.dice.check,
        rollOff: false,
      };
    }
  }
  const owner = view.cube.owner;
  return {
    variant: rules.name,
    facing,
    bottom,
    top,
    mover,
    points,
    bar: [boards[0][BAR]!, boards[1][BAR]!],
    off: [boards[0][OFF]!, boards[1][OFF]!],
    pips: [pipCount(boards[0]), pipCount(boards[1])],
    interactive,
    movable: interactive ? sources(ui).map(onScreen) : [],
    selected: interactive && ui.selected !== null ? onScreen(ui.selected) : null,
    targets: interactive ? [...ui.targets.keys()].map(onScreen) : [],
    options,
    listPick: interactive ? ui.listPick : null,
    dice,
    cube:
      view.offer?.kind === 'double'
        ? {
            value: view.offer.value,
            at: view.offer.by === bottom ? 'offered-bottom' : 'offered-top',
            enabled: true,
          }
        : {
            value: view.cube.value,
            at: owner === null ? 'middle' : owner === bottom ? 'bottom' : 'top',
            enabled: view.cube.enabled,
          },
    arrows: view.lastPlay && !(interactive && ui.turn.steps.length > 0) ? playArrows(view.lastPlay.seat, bottom, view.lastPlay.moves, facing) : [],
    turnComplete: interactive && complete(ui),
    canUndo: interactive && ui.turn.steps.length > 0,
    canRedo: interactive && ui.turn.undone.length > 0,
    acting: actingSeat(view),
  };
}

/** Words for a place (ARIA labels, move list): "point 13", "the bar", "off". */
export function placeName(place: number): string {
  if (place === BAR) return 'the bar';
  if (place === OFF) return 'off';
  return `point ${place}`;
}
