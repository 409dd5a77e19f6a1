import { describe, expect, it } from 'vitest';
import { positionFromPoints, startPosition } from '../src/engine';
import { turnMoves } from '../src/engine/turn';
import * as mc from '../src/ui/moveController';

describe('quick input: one tap per checker step', () => {
  it('moves a tapped checker by the higher die, and the other die on a second tap', () => {
    let ui = mc.newMoveUi(startPosition(), 6, 5);
    ui = mc.quickTap(ui, 24);
    expect(turnMoves(ui.turn)).toEqual([[24, 18]]);
    ui = mc.quickTap(ui, 18);
    expect(turnMoves(ui.turn)).toEqual([[24, 18], [18, 13]]);
    expect(mc.complete(ui)).toBe(true);
  });

  it('prefers the die that makes a point or hits over the higher one', () => {
    // 3-1 from the start: 8 takes the 3 (8/5), then 6 takes the 1 and makes the 5-point.
    let ui = mc.quickTap(mc.newMoveUi(startPosition(), 3, 1), 8);
    expect(turnMoves(ui.turn)).toEqual([[8, 5]]);
    ui = mc.quickTap(ui, 6);
    expect(turnMoves(ui.turn)).toEqual([[8, 5], [6, 5]]);
    // A lone checker on the mover's 4: a tap on 6 with 5-2 makes the 4-point with the 2.
    const pos = positionFromPoints({ 6: 5, 4: 1, 8: 3, 13: 4, 24: 2 }, { 6: 5, 8: 3, 13: 5, 24: 2 });
    const made = mc.quickTap(mc.newMoveUi(pos, 5, 2), 6);
    expect(turnMoves(made.turn)).toEqual([[6, 4]]);
    // A blot of the opponent on the mover's 3 (its 22): 6 hits it with the 3 rather than the 5.
    const blot = positionFromPoints({ 6: 5, 8: 3, 13: 5, 24: 2 }, { 22: 1, 6: 4, 8: 3, 13: 5, 24: 2 });
    const hit = mc.quickTap(mc.newMoveUi(blot, 5, 3), 6);
    expect(hit.turn.steps[0]).toMatchObject({ from: 6, to: 3, die: 3, hit: true });
  });

  it('moves to a tapped destination when only one checker can reach it', () => {
    // 6-5 from the start: a tap on 8 moves a checker from 8 (a source wins over a target).
    let ui = mc.quickTap(mc.newMoveUi(startPosition(), 6, 5), 8);
    expect(turnMoves(ui.turn)).toEqual([[8, 2]]);
    ui = mc.undo(ui);
    ui = mc.quickTap(ui, 18); // empty, reached only from 24 with the 6
    expect(turnMoves(ui.turn)).toEqual([[24, 18]]);
    ui = mc.quickTap(ui, 3); // only 8/3 with the 5 lands there
    expect(turnMoves(ui.turn)).toEqual([[24, 18], [8, 3]]);
  });

  it('ignores an ambiguous destination and a checker that cannot move', () => {
    const ui = mc.newMoveUi(startPosition(), 3, 1);
    expect(mc.quickTap(ui, 5).turn.steps).toEqual([]); // 8/5 or 6/5: tap the checker instead
    expect(mc.quickTap(ui, 1).turn.steps).toEqual([]); // the opponent's checkers
  });

  it('enters from the bar and bears off by a tap', () => {
    const entering = positionFromPoints({ 25: 1, 6: 14 }, { 1: 2, 2: 2, 12: 11 });
    expect(mc.quickTap(mc.newMoveUi(entering, 6, 5), 25).turn.steps[0]).toMatchObject({ from: 25, to: 19, die: 6 });
    const bearing = positionFromPoints({ 6: 2, 5: 3, 2: 1 }, { 24: 5 });
    expect(mc.quickTap(mc.newMoveUi(bearing, 6, 4), 6).turn.steps[0]).toMatchObject({ from: 6, to: 0, die: 6 });
    // The tray: one checker can bear off with the 6 only (the 4 from 6 goes to 2).
    expect(mc.quickTap(mc.newMoveUi(bearing, 6, 4), 0).turn.steps[0]).toMatchObject({ from: 6, to: 0, die: 6 });
  });

  it('keeps the selected-checker behaviour of a drag or the move list', () => {
    let ui = mc.select(mc.newMoveUi(startPosition(), 3, 1), 8);
    ui = mc.quickTap(ui, 7);
    expect(turnMoves(ui.turn)).toEqual([[8, 7]]);
  });
});
