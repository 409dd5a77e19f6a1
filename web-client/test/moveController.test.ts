import { describe, expect, it } from 'vitest';
import { decodePositionId, encodePositionId, legalPlays, positionFromPoints, startPosition } from '../src/engine';
import { singleMoves } from '../src/engine/movegen';
import { turnMoves } from '../src/engine/turn';
import vectors from './vectors/rules-vectors.json';
import * as mc from '../src/ui/moveController';

const ids = (plays: { position: Parameters<typeof encodePositionId>[0] }[]) =>
  plays.map((p) => encodePositionId(p.position)).sort();

describe('move selection', () => {
  it('offers every legal next step with its die', () => {
    const ui = mc.newMoveUi(startPosition(), 3, 1);
    const labels = mc.listSteps(ui).map((s) => `${s.from}/${s.to}:${s.die}`);
    expect(labels).toEqual(['24/21:3', '24/23:1', '13/10:3', '8/5:3', '8/7:1', '6/3:3', '6/5:1']);
  });

  it('taps a source, lights its destinations (including both dice in one go), and moves', () => {
    let ui = mc.newMoveUi(startPosition(), 3, 1);
    ui = mc.tap(ui, 8);
    expect(ui.selected).toBe(8);
    expect([...ui.targets.keys()].sort((a, b) => a - b)).toEqual([4, 5, 7]);
    ui = mc.tap(ui, 5);
    expect(ui.selected).toBeNull();
    expect(ui.turn.steps.map((s) => [s.from, s.to, s.die])).toEqual([[8, 5, 3]]);
    ui = mc.tap(mc.tap(ui, 6), 5);
    expect(mc.complete(ui)).toBe(true);
    expect(turnMoves(ui.turn)).toEqual([[8, 5], [6, 5]]);
    expect(mc.listSteps(ui)).toEqual([]);
  });

  it('moves one checker by both dice when the landing point between is open', () => {
    let ui = mc.tap(mc.newMoveUi(startPosition(), 6, 5), 24);
    expect(ui.targets.has(13)).toBe(true); // 24/18/13 or 24/19/13
    ui = mc.tap(ui, 13);
    expect(mc.complete(ui)).toBe(true);
    expect(ui.turn.steps.length).toBe(2);
  });

  it('never offers a combined move over a blocked point', () => {
    // Opponent holds the mover's 18 and 19: a 6-5 cannot take 24/13 at all.
    const pos = positionFromPoints({ 24: 2, 6: 13 }, { 7: 2, 6: 2, 2: 11 });
    const ui = mc.tap(mc.newMoveUi(pos, 6, 5), 24);
    expect(ui.targets.has(13)).toBe(false);
  });

  it('lists each die for the same bear-off, and a tap takes the higher when results agree', () => {
    const pos = positionFromPoints({ 3: 1, 1: 2 }, { 20: 1 });
    let ui = mc.newMoveUi(pos, 6, 4);
    const off3 = mc.listSteps(ui).filter((s) => s.from === 3 && s.to === 0);
    expect(off3.map((s) => s.die)).toEqual([6, 4]);
    // The list can spend the 4 explicitly...
    const four = mc.listSteps(ui).findIndex((s) => s.from === 3 && s.to === 0 && s.die === 4);
    const byFour = mc.playListStep(ui, four);
    expect(byFour.turn.steps[0]).toMatchObject({ from: 3, to: 0, die: 4 });
    expect(byFour.turn.remaining).toEqual([6]);
    // ...while a tap does not ask, both dice leading to the same plays.
    ui = mc.moveTo(mc.tap(ui, 3), 0);
    expect(ui.choice).toBeNull();
    expect(ui.turn.steps[0]).toMatchObject({ from: 3, to: 0, die: 6 });
  });

  it('does not ask when either die gives the same results', () => {
    // A last checker on 2 with 6-5: whichever die bears it off, the game is over.
    const pos = positionFromPoints({ 2: 1 }, { 24: 1 });
    let ui = mc.tap(mc.newMoveUi(pos, 6, 5), 2);
    ui = mc.moveTo(ui, 0);
    expect(ui.choice).toBeNull();
    expect(ui.turn.steps.length).toBe(1);
    expect(mc.complete(ui)).toBe(true);
  });

  it('offers the hit and the quiet route as a choice when they differ', () => {
    // Opponent blot on the mover's 18: 24/18*/13 and 24/19/13 are different plays.
    const pos = positionFromPoints({ 24: 1, 6: 14 }, { 7: 1, 2: 14 });
    let ui = mc.tap(mc.newMoveUi(pos, 6, 5), 24);
    ui = mc.moveTo(ui, 13);
    const labels = ui.choice?.routes.map((r) => r.steps.map((s) => `${s.to}${s.hit ? '*' : ''}`).join('/'));
    expect(labels?.sort()).toEqual(['18*/13', '19/13']);
  });

  it('enters from the bar first', () => {
    const pos = positionFromPoints({ 25: 1, 6: 14 }, { 1: 2, 2: 2, 3: 11 });
    const ui = mc.newMoveUi(pos, 6, 1);
    expect(mc.sources(ui)).toEqual([25]);
    const bar = mc.selectBar(ui);
    // Enter on 19 with the 6 and go on to 18 with the 1; the 1 alone cannot enter (24 is closed).
    expect([...bar.targets.keys()].sort((a, b) => a - b)).toEqual([18, 19]);
    expect(mc.listSteps(ui).map((s) => `${s.from}/${s.to}:${s.die}`)).toEqual(['25/19:6']);
  });

  it('applies the higher-die rule on every one-die vector', () => {
    let checked = 0;
    for (const c of (vectors as unknown as { cases: { id: string; dice: [number, number]; used: number }[] }).cases) {
      const [a, b] = c.dice;
      if (c.used !== 1 || a === b) continue;
      const pos = decodePositionId(c.id);
      const ui = mc.newMoveUi(pos, a, b);
      const dice = new Set(mc.listSteps(ui).map((s) => s.die));
      expect(dice.size).toBeGreaterThan(0);
      if (singleMoves(pos, Math.max(a, b)).length > 0) {
        // The higher die can be played: it is the only one offered.
        expect([...dice]).toEqual([Math.max(a, b)]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('undoes and redoes steps within the turn, restoring the dice', () => {
    let ui = mc.newMoveUi(startPosition(), 4, 2);
    ui = mc.tap(mc.tap(ui, 8), 4);
    ui = mc.tap(mc.tap(ui, 6), 4);
    expect(mc.complete(ui)).toBe(true);
    const done = ui.turn.position;
    ui = mc.undo(ui);
    expect(ui.turn.steps.length).toBe(1);
    expect(mc.remainingDice(ui)).toEqual([2]);
    ui = mc.undo(ui);
    expect(ui.turn.steps.length).toBe(0);
    expect(mc.remainingDice(ui)).toEqual([4, 2]);
    expect(ui.turn.position).toEqual(startPosition());
    ui = mc.redo(mc.redo(ui));
    expect(ui.turn.position).toEqual(done);
    expect(mc.redo(ui)).toBe(ui);
    // A new step after undo clears the redo stack.
    ui = mc.undo(ui);
    ui = mc.tap(mc.tap(ui, 13), 11);
    expect(ui.turn.undone).toEqual([]);
  });

  it('plays from the move list and clears with Escape', () => {
    let ui = mc.newMoveUi(startPosition(), 6, 6);
    const steps = mc.listSteps(ui);
    const i = steps.findIndex((s) => s.from === 24 && s.to === 18);
    ui = mc.pickListStep(ui, i);
    expect(ui.selected).toBe(24);
    expect(ui.listPick).toBe(i);
    ui = mc.playListStep(ui);
    expect(ui.turn.steps).toEqual([{ from: 24, to: 18, die: 6, hit: false }]);
    ui = mc.clear(mc.select(ui, 13));
    expect(ui.selected).toBeNull();
  });

  it('every play assembled step by step is a legal play', () => {
    const pos = startPosition();
    const legal = new Set(ids(legalPlays(pos, 2, 2)));
    let ui = mc.newMoveUi(pos, 2, 2);
    while (!mc.complete(ui)) ui = mc.playListStep(ui, mc.listSteps(ui).length - 1);
    expect(legal.has(encodePositionId(ui.turn.position))).toBe(true);
  });
});
