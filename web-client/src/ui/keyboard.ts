/**
 * The keyboard map: arrows over the points, and the one-letter commands. Pure functions, so
 * the map is unit-tested; the app applies the results.
 */

import { gridOf, pointAtGrid } from './geometry';

export type Command = 'bar' | 'off' | 'undo' | 'redo' | 'roll' | 'double' | 'end' | 'clear';

/** The command of a key (B bar, O off, U undo, R redo, D roll, Shift+D double, E end, Esc). */
export function commandFor(key: string, shift: boolean): Command | null {
  switch (key.toLowerCase()) {
    case 'b':
      return 'bar';
    case 'o':
      return 'off';
    case 'u':
      return 'undo';
    case 'r':
      return 'redo';
    case 'd':
      return shift ? 'double' : 'roll';
    case 'e':
      return 'end';
    case 'escape':
      return 'clear';
    default:
      return null;
  }
}

/**
 * Where the board focus goes from `place` on an arrow, Home or End key (screen layout: the
 * top row is 13..24 left to right, the bottom row 12..1); null for any other key.
 */
export function moveFocus(place: number, key: string): number | null {
  const { row, col } = gridOf(place >= 1 && place <= 24 ? place : 1);
  switch (key) {
    case 'ArrowLeft':
      return pointAtGrid(row, col - 1);
    case 'ArrowRight':
      return pointAtGrid(row, col + 1);
    case 'ArrowUp':
      return pointAtGrid(0, col);
    case 'ArrowDown':
      return pointAtGrid(1, col);
    case 'Home':
      return pointAtGrid(row, 0);
    case 'End':
      return pointAtGrid(row, 11);
    default:
      return null;
  }
}
