import { describe, expect, it } from 'vitest';
import { startPosition } from '../src/engine/position';
import { encodePositionId } from '../src/engine/positionId';
import { dragChecker } from '../src/pages/analysePage';

describe('dragging a checker on the analysis board', () => {
  it('moves one checker of the side dragged, in that side\'s numbering', () => {
    const start = startPosition();
    const moved = dragChecker(start, 'mover', 6, 5);
    expect(typeof moved).toBe('object');
    if (typeof moved === 'string') return;
    expect(moved.mover[6]).toBe(start.mover[6]! - 1);
    expect(moved.mover[5]).toBe(1);
    expect(moved.opponent).toEqual(start.opponent);
    // The same drop the browser test makes: the 6-point to the 5-point.
    expect(encodePositionId(moved)).toBe('4HPwATDQc/ABMA');
    // The opponent's checkers are dragged in the board's numbering (the mover's view).
    const theirs = dragChecker(start, 'opponent', 19, 20);
    if (typeof theirs === 'string') throw new Error(theirs);
    expect(theirs.opponent[6]).toBe(start.opponent[6]! - 1);
    expect(theirs.opponent[5]).toBe(1);
  });

  it('refuses a drag from an empty point and onto a point the other side holds', () => {
    const start = startPosition();
    expect(dragChecker(start, 'mover', 5, 4)).toBe('No checker there.');
    expect(dragChecker(start, 'mover', 6, 1)).toBe('The other side holds that point.');
    expect(dragChecker(start, 'mover', 13, 12)).toBe('The other side holds that point.');
  });

  it('takes a checker to the bar and off the board', () => {
    const start = startPosition();
    const barred = dragChecker(start, 'mover', 24, 25);
    if (typeof barred === 'string') throw new Error(barred);
    expect(barred.mover[25]).toBe(1);
    const off = dragChecker(start, 'mover', 6, 0);
    if (typeof off === 'string') throw new Error(off);
    expect(off.mover[0]).toBe(1);
  });
});
