import { describe, expect, it } from 'vitest';
import { startPosition } from '../src/engine';
import { turnMoves } from '../src/engine/turn';
import { earnedByPlay, earnedByResult } from '../src/pages/achievements';
import { tidyNames } from '../src/pages/localNames';
import * as mc from '../src/ui/moveController';
import { buildScene } from '../src/ui/scene';
import { CUES } from '../src/ui/sound';
import { LocalFairDice, ScriptedDice } from '../src/view/dice';
import type { GameView } from '../src/view/gameView';
import { LocalGame } from '../src/view/localGame';

const flush = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 0));
};

function game(dice: ConstructorParameters<typeof LocalGame>[0]['dice'], extra: Partial<ConstructorParameters<typeof LocalGame>[0]> = {}) {
  return new LocalGame({ kind: 'match', length: 5, clockSeconds: 0, names: ['Ivory', 'Copper'], dice, passDelayMs: 0, ...extra });
}

describe('two players on one device', () => {
  it('never gives both players the same name', () => {
    expect(tidyNames('', '')).toEqual(['Ivory', 'Copper']);
    expect(tidyNames('Ann', 'ann')).toEqual(['Ann', 'ann 2']);
    expect(tidyNames('  Copper ', '')).toEqual(['Copper', 'Ivory']);
  });

  it('keeps the board from one side: the top seat moves with its places drawn where they are', async () => {
    const g = game(new ScriptedDice(ScriptedDice.parse('13,52')), { side: 0 });
    await g.start(); // Copper wins the roll-off with 3-1
    const view = g.current();
    expect(view.turn).toBe(1);
    const ui = mc.newMoveUi({ mover: view.boards[1], opponent: view.boards[0] }, 3, 1);
    const scene = buildScene(view, ui);
    expect(scene.bottom).toBe(0);
    expect(scene.mover).toBe(1);
    expect(scene.interactive).toBe(true);
    // Copper's 24, 13, 8, 6 are drawn at Ivory's 1, 12, 17, 19.
    expect([...scene.movable].sort((a, b) => a - b)).toEqual([1, 12, 17, 19]);
    const selected = buildScene(view, mc.select(ui, 8));
    expect(selected.selected).toBe(17);
    expect([...selected.targets].sort((a, b) => a - b)).toEqual([20, 21, 18].sort((a, b) => a - b));
  });

  it('saves a game, restores it paused, and goes on after Resume with the same dice chains', async () => {
    const dice = new LocalFairDice(64);
    const g = game(dice);
    await g.start();
    await flush();
    const v = g.current();
    expect(v.phase).toBe('moving');
    const seat = v.turn!;
    let ui = mc.newMoveUi({ mover: v.boards[seat], opponent: v.boards[seat === 0 ? 1 : 0] }, v.dice!.values[0], v.dice!.values[1]);
    while (!mc.complete(ui)) ui = mc.quickTap(ui, mc.sources(ui)[0]!);
    g.play(turnMoves(ui.turn));
    await flush();
    const saved = JSON.parse(JSON.stringify(g.save()));
    const savedDice = JSON.parse(JSON.stringify(dice.save()));
    expect(saved).not.toBeNull();
    expect(savedDice.k).toBe(g.current().dice?.k ?? savedDice.k);

    const again = await LocalFairDice.restore(savedDice, 64);
    const h = game(again);
    h.restore(saved);
    expect(h.paused).toBe(true);
    h.roll(); // nothing moves while paused
    expect(h.current().boards).toEqual(g.current().boards);
    expect(h.current().phase).toBe(g.current().phase);
    h.resume();
    expect(h.paused).toBe(false);
    // Both copies roll on from the same chains: the next dice agree.
    if (g.current().phase === 'decide') {
      g.roll();
      h.roll();
    }
    await flush();
    expect(h.current().dice).toEqual(g.current().dice);
    expect(h.current().dice?.check).toBe('verified');
  });

  it('stops the clock while paused and gives back what was left', async () => {
    let now = 1_000_000;
    const g = game(new ScriptedDice(ScriptedDice.parse('31')), { clockSeconds: 30, now: () => now });
    await g.start();
    now += 10_000;
    g.pause();
    expect(g.current().clocks.every((c) => c.deadline === null)).toBe(true);
    now += 60_000; // a long pause costs nothing
    g.resume();
    expect(g.current().clocks[0].deadline).toBe(now + 20_000);
    g.dispose();
  });
});

describe('achievements and sounds', () => {
  const base = startPosition();
  const view = (over: Partial<GameView>): GameView =>
    ({
      viewer: 0,
      players: [
        { name: 'A', presence: 'online', forfeitAt: null },
        { name: 'B', presence: 'online', forfeitAt: null },
      ],
      boards: [base.mover, base.opponent],
      turn: 0,
      phase: 'moving',
      dice: null,
      cube: { value: 1, owner: null, enabled: true },
      match: { kind: 'match', length: 3, score: [0, 0], crawford: false, gameNo: 1 },
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
      ...over,
    }) as GameView;

  it('earns a move, an entry, a bear-off and a hit from the plays', () => {
    const before = view({});
    const hitBoard = [...base.opponent];
    hitBoard[25] = 1;
    const after = view({ lastPlay: { seat: 0, moves: [[25, 22], [3, 0]] }, boards: [base.mover, hitBoard] });
    expect(earnedByPlay(before, after).sort()).toEqual(['bear-off', 'enter', 'first-move', 'hit']);
    expect(earnedByPlay(after, after)).toEqual([]); // the same play twice earns nothing more
  });

  it('counts wins against the computer, cleanly or not', () => {
    const won = view({ phase: 'gameover', result: { winner: 0, reason: 'single', points: 1, score: [1, 0], matchOver: false } });
    expect(earnedByResult(won, { earned: {}, computerWins: 0 }, null).ids).toEqual(['finish']);
    expect(earnedByResult(won, { earned: {}, computerWins: 0 }, { usedUndo: false }).ids).toEqual(['finish', 'beat-computer', 'clean-win']);
    const third = earnedByResult(won, { earned: {}, computerWins: 2 }, { usedUndo: true });
    expect(third.ids).toEqual(['finish', 'beat-computer', 'three-wins']);
    expect(third.computerWins).toBe(3);
  });

  it('has a short, audible tone list for each cue', () => {
    for (const tones of Object.values(CUES)) {
      expect(tones.length).toBeGreaterThan(0);
      for (const t of tones) {
        expect(t.hz).toBeGreaterThan(100);
        expect(t.at + t.len).toBeLessThan(0.5);
      }
    }
  });
});

describe('achievements against the computer', () => {
  it('count only the player’s own plays and follow only matches against the computer', async () => {
    const { followComputerMatch, loadAchievements } = await import('../src/pages/achievements');
    const store = new Map<string, string>();
    Object.assign(globalThis, {
      localStorage: { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) },
    });
    const listeners: ((v: GameView) => void)[] = [];
    const start = startPosition();
    let current = {
      viewer: 0,
      players: [
        { name: 'A', presence: 'online', forfeitAt: null },
        { name: 'Bot', presence: 'online', forfeitAt: null },
      ],
      boards: [start.mover, start.opponent],
      turn: 1,
      phase: 'moving',
      match: { kind: 'single', length: 0, score: [0, 0], crawford: false, gameNo: 1 },
      lastPlay: null,
      result: null,
    } as unknown as GameView;
    const game = { current: () => current, subscribe: (l: (v: GameView) => void) => listeners.push(l) };
    const emit = (over: Partial<GameView>) => {
      current = { ...current, ...over } as GameView;
      for (const l of listeners) l(current);
    };
    // Not against the computer: nothing is followed.
    await followComputerMatch(async () => ({ bot: null }), game, () => 0, { append: () => undefined } as unknown as HTMLElement);
    expect(listeners).toHaveLength(0);
    // Against it: the computer's play earns nothing, the player's does; a win without Undo is clean.
    const panel: Node[] = [];
    await followComputerMatch(async () => ({ bot: 'hard' }), game, () => 0, { append: (n: Node) => panel.push(n) } as unknown as HTMLElement).catch(() => undefined);
    emit({ lastPlay: { seat: 1, moves: [[13, 7]] } });
    expect(loadAchievements().earned['first-move']).toBeUndefined();
    emit({ lastPlay: { seat: 0, moves: [[13, 7]] } });
    expect(loadAchievements().earned['first-move']).toBeDefined();
    emit({ phase: 'gameover', result: { winner: 0, reason: 'single', points: 1, score: [1, 0], matchOver: true } });
    const earned = loadAchievements().earned;
    expect(earned['beat-computer']).toBeDefined();
    expect(earned['clean-win']).toBeDefined();
    expect(loadAchievements().computerWins).toBe(1);
  });
});
