/**
 * Standard notation of a play, the same rule as the Python engine's engine/notation.py (both are
 * tested against test/vectors/notation-vectors.json): each checker's path `from/to` with `bar`
 * and `off`, a hit marked `*` where it happened (`24/18*\/13` keeps the stop, `24/18 18/13` is
 * `24/13`), the same path by several checkers once with its count (`8/5(2)`), highest start
 * first. Pure.
 */

import { applyMove, type Move } from './movegen';
import { BAR, OFF, type Position } from './position';

const pointName = (p: number): string => (p === BAR ? 'bar' : p === OFF ? 'off' : String(p));

/** How a variant's steps go, for the notation: a step's effect and whether it hits (or pins). */
export interface StepRules {
  applyMove(position: Position, move: Move): Position;
  marks(position: Position, move: Move): boolean;
}

const BACKGAMMON_STEPS: StepRules = { applyMove, marks: (pos, [, to]) => to !== OFF && pos.opponent[25 - to] === 1 };

/** `moves` (single-die steps in the order played, from the mover's side) in standard notation;
 * `rules`: another variant's steps (plakoto marks a pin with the `*` of a hit; fevga none). */
export function playText(position: Position, moves: readonly Move[], rules: StepRules = BACKGAMMON_STEPS): string {
  const chains: { p: number; hit: boolean }[][] = [];
  let pos = position;
  for (const [from, to] of moves) {
    const hit = rules.marks(pos, [from, to]);
    pos = rules.applyMove(pos, [from, to]);
    let joined = false;
    for (let i = chains.length - 1; i >= 0; i--) {
      const chain = chains[i]!;
      if (chain[chain.length - 1]!.p === from && from !== OFF) {
        chain.push({ p: to, hit });
        joined = true;
        break;
      }
    }
    if (!joined) chains.push([{ p: from, hit: false }, { p: to, hit }]);
  }
  const paths = chains.map((chain) => {
    const kept = [chain[0]!, ...chain.slice(1, -1).filter((s) => s.hit), chain[chain.length - 1]!];
    return { from: chain[0]!.p, to: chain[chain.length - 1]!.p, text: kept.map((s) => pointName(s.p) + (s.hit ? '*' : '')).join('/') };
  });
  paths.sort((a, b) => b.from - a.from || b.to - a.to);
  const out: { text: string; n: number }[] = [];
  for (const { text } of paths) {
    const last = out[out.length - 1];
    if (last && last.text === text) last.n++;
    else out.push({ text, n: 1 });
  }
  return out.map(({ text, n }) => (n === 1 ? text : `${text}(${n})`)).join(' ');
}
