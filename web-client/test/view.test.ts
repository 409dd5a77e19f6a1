import { afterEach, describe, expect, it, vi } from 'vitest';
import { encodePositionId, positionFromPoints, startPosition } from '../src/engine';
import * as mc from '../src/ui/moveController';
import { buildScene, screenPlace } from '../src/ui/scene';
import { ScriptedDice } from '../src/view/dice';
import type { GameView } from '../src/view/gameView';
import { LocalGame } from '../src/view/localGame';
import { worstPossible } from '../src/engine/matchRules';
import { boardFromPoints, decodePositionId, legalPlays, resultLevel } from '../src/engine';

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

function game(dice: string, extra: Partial<ConstructorParameters<typeof LocalGame>[0]> = {}) {
  return new LocalGame({
    kind: 'match',
    length: 5,
    clockSeconds: 0,
    names: ['Ivory', 'Copper'],
    dice: new ScriptedDice(ScriptedDice.parse(dice)),
    passDelayMs: 0,
    ...extra,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('local hot-seat game', () => {
  it('rolls off (ties repeat) and the higher die moves first with both numbers', async () => {
    const g = game('44,31');
    const seen: string[] = [];
    g.subscribe((v) => v.notice && seen.push(v.notice.text));
    await g.start();
    const v = g.current();
    expect(seen[0]).toMatch(/tie 4–4/);
    expect(v.phase).toBe('moving');
    expect(v.turn).toBe(0);
    expect(v.viewer).toBe(0);
    expect(v.dice?.values).toEqual([3, 1]);
    expect(v.dice?.k).toBe(2);
  });

  it('refuses an illegal or incomplete play and accepts a legal one', async () => {
    const g = game('31,65');
    await g.start();
    g.play([[8, 5]]);
    expect(g.current().notice?.text).toMatch(/refused/);
    expect(g.current().turn).toBe(0);
    g.play([[8, 4], [6, 5]]);
    expect(g.current().turn).toBe(0);
    g.play([[8, 5], [6, 5]]);
    await flush();
    const v = g.current();
    expect(v.turn).toBe(1);
    expect(v.boards[0][5]).toBe(2);
    // Cube centred in a match: the next player decides between doubling and rolling.
    expect(v.phase).toBe('decide');
    expect(v.viewer).toBe(1);
  });

  it('doubles, takes (the taker owns the cube), and the doubler rolls', async () => {
    const g = game('31,65');
    await g.start();
    g.play([[8, 5], [6, 5]]);
    g.double();
    expect(g.current().phase).toBe('offer');
    expect(g.current().offer).toEqual({ kind: 'double', by: 1, value: 2 });
    expect(g.current().viewer).toBe(0);
    g.take();
    await flush();
    const v = g.current();
    expect(v.cube).toMatchObject({ value: 2, owner: 0 });
    expect(v.phase).toBe('moving');
    expect(v.turn).toBe(1);
    expect(v.dice?.values).toEqual([6, 5]);
  });

  it('a dropped double ends the game for the cube value', async () => {
    const g = game('31');
    await g.start();
    g.play([[8, 5], [6, 5]]);
    g.double();
    g.drop();
    const v = g.current();
    expect(v.phase).toBe('gameover');
    expect(v.result).toMatchObject({ winner: 1, reason: 'drop', points: 1, score: [0, 1], matchOver: false });
  });

  it('scores a gammon when the last checker comes off', async () => {
    const position = positionFromPoints({ 1: 1 }, { 1: 15 });
    const g = game('21', { position });
    await g.start();
    expect(g.current().phase).toBe('moving');
    g.play([[1, 0]]);
    expect(g.current().result).toMatchObject({ winner: 0, reason: 'gammon', points: 2, score: [2, 0] });
  });

  it('starts the Crawford game after a player reaches match point', async () => {
    const position = positionFromPoints({ 1: 1 }, { 1: 15 });
    const g = game('21,31', { position, length: 3 });
    await g.start();
    g.play([[1, 0]]);
    expect(g.current().match.score).toEqual([2, 0]);
    expect(g.current().match.crawford).toBe(true);
    g.next();
    await flush();
    const v = g.current();
    expect(v.match.gameNo).toBe(2);
    expect(v.match.crawford).toBe(true);
    expect(v.cube.enabled).toBe(false);
  });

  it('passes a turn without a legal move automatically', async () => {
    // Seat 0 on the bar against a closed board.
    const position = positionFromPoints({ 25: 1, 6: 14 }, { 1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 12: 3 });
    const g = game('66,21', { position, kind: 'single' });
    await g.start();
    expect(g.current().notice?.text).toMatch(/cannot move/);
    await flush();
    await flush();
    const v = g.current();
    expect(v.turn).toBe(1);
    expect(v.dice?.values).toEqual([2, 1]);
  });

  it('forfeits on time', async () => {
    vi.useFakeTimers();
    const g = game('31', { clockSeconds: 30, kind: 'money' });
    await g.start();
    expect(g.current().clocks[0].deadline).not.toBeNull();
    expect(g.current().clocks[1].deadline).toBeNull();
    vi.advanceTimersByTime(30_001);
    const v = g.current();
    expect(v.result).toMatchObject({ winner: 1, reason: 'timeout' });
    // Still in contact with nothing borne off: the worst result, a backgammon.
    expect(v.result?.points).toBe(3);
    // A forfeit ends a money session (engine/match.py).
    expect(v.result?.matchOver).toBe(true);
  });

  it('keeps a rejected resignation level in a saved game', async () => {
    const g = game('31');
    await g.start();
    g.resign(1);
    g.rejectResign();
    const saved = JSON.parse(JSON.stringify(g.save()));
    expect(saved.declined).toBe(1);
    const h = game('');
    h.restore(saved);
    h.resume();
    expect(h.current().resignLevels).toEqual([2, 3]);
    h.resign(1);
    expect(h.current().offer).toBeNull();
    // A save from before the level was kept: none was rejected.
    const older = game('');
    older.restore({ ...saved, declined: undefined });
    older.resume();
    expect(older.current().resignLevels).toEqual([1, 2, 3]);
    for (const x of [g, h, older]) x.dispose();
  });

  it('resignation offers are answered by the other seat', async () => {
    const g = game('31,21');
    await g.start();
    g.resign(2);
    expect(g.current().offer).toEqual({ kind: 'resign', by: 0, level: 2 });
    g.rejectResign();
    expect(g.current().phase).toBe('moving');
    // As the engine has it: after a rejection, only a higher level until play moves on.
    expect(g.current().resignLevels).toEqual([3]);
    g.resign(1);
    expect(g.current().offer).toBeNull();
    g.play([[8, 5], [6, 5]]);
    expect(g.current().phase).toBe('decide');
    g.roll();
    await flush();
    const v = g.current();
    g.play(legalPlays({ mover: v.boards[1], opponent: v.boards[0] }, 2, 1)[0]!.moves);
    expect(g.current()).toMatchObject({ phase: 'decide', turn: 0, resignLevels: [1, 2, 3] });
    g.resign(1);
    g.acceptResign();
    expect(g.current().result).toMatchObject({ winner: 1, reason: 'resign', points: 1 });
  });
});

describe('result levels', () => {
  it('grades single, gammon and backgammon', () => {
    expect(resultLevel(boardFromPoints({ 6: 14 }))).toBe(1);
    expect(resultLevel(boardFromPoints({ 6: 15 }))).toBe(2);
    expect(resultLevel(boardFromPoints({ 6: 14, 20: 1 }))).toBe(3);
    expect(resultLevel(boardFromPoints({ 6: 14, 25: 1 }))).toBe(3);
  });

  it('makes forfeiting never better than playing on', () => {
    const s = startPosition();
    expect(worstPossible(s.mover, s.opponent)).toBe(3);
    const race = decodePositionId(encodePositionId(positionFromPoints({ 5: 15 }, { 5: 15 })));
    expect(worstPossible(race.mover, race.opponent)).toBe(2);
  });
});

describe('scene', () => {
  const base = (over: Partial<GameView> = {}): GameView => ({
    viewer: 1,
    players: [
      { name: 'Ivory', presence: 'online', forfeitAt: null },
      { name: 'Copper', presence: 'online', forfeitAt: null },
    ],
    boards: [startPosition().mover, startPosition().opponent],
    turn: 1,
    phase: 'moving',
    dice: { k: 3, values: [5, 5], seat: 1, check: 'verified' },
    cube: { value: 2, owner: 0, enabled: true },
    match: { kind: 'match', length: 5, score: [0, 0], crawford: false, gameNo: 1 },
    clocks: [
      { deadline: null, budgetMs: 30000, reserve: null },
      { deadline: 1, budgetMs: 30000, reserve: null },
    ],
    offer: null,
    lastPlay: null,
    result: null,
    notice: null,
    fairness: null,
    spectators: 0,
    pending: false,
    version: 0,
    ...over,
  });

  it('draws from the viewer side and maps the other seat', () => {
    const scene = buildScene(base(), null);
    expect(scene.bottom).toBe(1);
    expect(scene.points[24]).toEqual({ seat: 1, count: 2 });
    expect(scene.points[1]).toEqual({ seat: 0, count: 2 }); // seat 0's 24-point
    expect(screenPlace(0, 1, 24)).toBe(1);
    expect(scene.cube.at).toBe('top');
    expect(scene.interactive).toBe(false);
  });

  it('dims used dice of a double as the turn goes on', () => {
    const view = base();
    let ui = mc.newMoveUi(startPosition(), 5, 5);
    ui = mc.tap(mc.tap(ui, 13), 8);
    const scene = buildScene(view, ui);
    expect(scene.interactive).toBe(true);
    expect(scene.dice?.dice.map((d) => d.used)).toEqual([true, false, false, false]);
    expect(scene.pips[1]).toBe(162);
    expect(scene.canUndo).toBe(true);
    expect(scene.options.every((o) => o.die === 5)).toBe(true);
  });

  it('shows an offered cube on the doubler\'s side with the new value', () => {
    const view = base({ phase: 'offer', offer: { kind: 'double', by: 0, value: 4 }, viewer: 1 });
    expect(buildScene(view, null).cube).toEqual({ value: 4, at: 'offered-top', enabled: true });
    expect(buildScene(base({ cube: { value: 1, owner: null, enabled: false } }), null).cube.at).toBe('middle');
  });

  it('is read-only for a spectator and while a play is pending', () => {
    const ui = mc.newMoveUi(startPosition(), 5, 5);
    expect(buildScene(base({ viewer: null }), ui).interactive).toBe(false);
    expect(buildScene(base({ pending: true }), ui).interactive).toBe(false);
  });
});
