import { describe, expect, it } from 'vitest';
import { encodePositionId } from '../src/engine/positionId';
import { applyMove } from '../src/engine/movegen';
import { pipCount, startPosition, swapped } from '../src/engine/position';
import type { GameRecordDoc } from '../src/net/recordApi';
import { type AnalysisDoc, DEEPER_POLLS, DEEPER_POLL_MS, type DoneAnalysis, POLL_MAX_MS, POLL_MS, type TurnAnalysis, chartSeries, nextPoll, recordMarks, signed, verdict } from '../src/view/analysis';
import { entriesOf, replayPath, replaySteps, stepFromHash } from '../src/view/replay';

// Seat 0 opens 31 with 8/5 6/5; seat 1 doubles, seat 0 takes, seat 1 cannot move... then resigns.
const start = startPosition();
const afterOpening = applyMove(applyMove(start, [8, 5]), [6, 5]);
const seen1 = swapped(afterOpening);
const doc: GameRecordDoc = {
  match: 'a'.repeat(32),
  game: 2,
  games: [1, 2],
  v: 40,
  names: ['Ann', 'Bob'],
  mode: 'match',
  length: 5,
  score: [1, 0],
  crawford: false,
  start: encodePositionId(start),
  turns: [
    { seat: 0, action: 'move', dice: [3, 1], text: '8/5 6/5', moves: [[8, 5], [6, 5]], position: encodePositionId(afterOpening), cube: 1, owner: null },
    { seat: 1, action: 'double', dice: null, text: 'doubles to 2', moves: [], position: encodePositionId(seen1), cube: 1, owner: null },
    { seat: 0, action: 'take', dice: null, text: 'takes', moves: [], position: encodePositionId(afterOpening), cube: 2, owner: 0 },
    { seat: 1, action: 'resign', dice: null, text: 'resigns a single', moves: [], position: encodePositionId(seen1), cube: 2, owner: 0 },
    { seat: 0, action: 'accept', dice: null, text: 'accepts', moves: [], position: encodePositionId(afterOpening), cube: 2, owner: 0 },
  ],
  result: { winner: 0, points: 2, result: 'single', reason: 'resign', score: [3, 0] },
};

describe('replay steps from a game record', () => {
  const steps = replaySteps(doc);
  it('has the start, one step per entry and the end', () => {
    expect(steps).toHaveLength(1 + doc.turns.length + 1);
    expect(entriesOf(doc).map((e) => e.action)).toEqual(['move', 'double', 'take', 'resign', 'accept', 'win']);
    expect(entriesOf(doc).at(-1)!.text).toBe('wins 2 points');
  });
  it('shows the boards from seat 0 and seat 1, with pips, dice, cube and score', () => {
    expect(steps[0]!.boards).toEqual([start.mover, start.opponent]);
    expect(steps[0]!.pips).toEqual([167, 167]);
    const s1 = steps[1]!;
    expect(s1.boards[0]).toEqual(afterOpening.mover);
    expect(s1.boards[1]).toEqual(afterOpening.opponent);
    expect(s1.pips).toEqual([pipCount(afterOpening.mover), 167]);
    expect(s1.dice).toEqual([3, 1]);
    expect(s1.moves).toEqual([[8, 5], [6, 5]]);
    // Seat 1's double is seen by seat 1, yet the boards stay those of seat 0 and seat 1.
    expect(steps[2]!.boards).toEqual(s1.boards);
    expect([steps[3]!.cube, steps[3]!.owner]).toEqual([2, 0]);
    expect(steps[3]!.score).toEqual([1, 0]);
    expect(steps.at(-1)!.score).toEqual([3, 0]);
  });
  it('links to a turn and reads the turn back', () => {
    expect(replayPath(doc.match, 2, 12)).toBe(`/m/${doc.match}/replay/2#turn=12`);
    expect(replayPath(doc.match, 2)).toBe(`/m/${doc.match}/replay/2`);
    expect(stepFromHash('#turn=12')).toBe(12);
    expect(stepFromHash('#turn=x')).toBeNull();
    expect(stepFromHash('#turn=123456789')).toBeNull();
  });
});

describe('analysis helpers', () => {
  const turn = (over: Partial<TurnAnalysis>): TurnAnalysis => ({
    seat: 0, action: 'move', dice: [3, 1], played: 'a', best: 'a', played_text: '8/5 6/5', best_text: '8/5 6/5',
    equity_lost: 0, best_action: null, cube_lost: null, luck: 0.1, equity: 0.2, forced: false, plays: 16, mark: null, ...over,
  });
  const analysis: DoneAnalysis = {
    status: 'done',
    level: '1-ply',
    players: [
      { seat: 0, decisions: 1, checker_decisions: 1, cube_decisions: 0, resign_decisions: 0, total_error: 0, error_rate: 0, pr: 0, errors: 0, blunders: 0, luck: 0.1, rolls: 1, result: 1, luck_adjusted: 1.3 },
      { seat: 1, decisions: 1, checker_decisions: 1, cube_decisions: 0, resign_decisions: 0, total_error: 0.1, error_rate: 100, pr: 50, errors: 0, blunders: 1, luck: 0.3, rolls: 1, result: -1, luck_adjusted: -1.3 },
    ],
    turns: [turn({}), turn({ seat: 1, luck: 0.3, equity: 0.4, equity_lost: 0.1, best: 'b', best_text: '13/10 13/12', mark: 'blunder' }), turn({ action: 'double', luck: null, equity: null, equity_lost: 0.05, best_action: 'no_double', mark: 'error' })],
  };
  it('marks the record and draws the series', () => {
    expect([...recordMarks(analysis)]).toEqual([[1, 'blunder'], [2, 'error']]);
    const series = chartSeries(analysis);
    expect(series.map((p) => p.equity)).toEqual([0.2, 0.4, 0.4]);
    expect(series.map((p) => Number(p.luck.toFixed(3)))).toEqual([0.1, -0.2, -0.2]);
  });
  it('says what a turn was worth', () => {
    expect(verdict(analysis.turns[1]!)).toBe('Blunder: lost 0.100; best 13/10 13/12 · luck +0.300');
    expect(verdict(analysis.turns[2]!)).toBe('Error: wrong: no double was right (−0.050)');
    expect(signed(-1.234)).toBe('−1.23');
    expect(signed(0)).toBe('0.00');
  });
});

describe('dice statistics', () => {
  it('counts turn rolls (not the opening), faces, doubles, pips and bar entries', async () => {
    const { diceStats, PIPS_PER_ROLL } = await import('../src/view/diceStats');
    // Seat 1 is hit: seat 0 plays 6/1*... build it from real moves: the opening 31, then seat 1's
    // 66 and seat 0's 55.
    const p1 = applyMove(applyMove(start, [8, 5]), [6, 5]);
    let q = swapped(p1);
    for (const m of [[24, 18], [24, 18], [13, 7], [13, 7]] as const) q = applyMove(q, m);
    let r = swapped(q);
    for (const m of [[13, 8], [13, 8], [8, 3], [8, 3]] as const) r = applyMove(r, m);
    const game: GameRecordDoc = {
      ...doc,
      turns: [
        doc.turns[0]!,
        { seat: 1, action: 'move', dice: [6, 6], text: '', moves: [[24, 18], [24, 18], [13, 7], [13, 7]], position: encodePositionId(q), cube: 1, owner: null },
        { seat: 0, action: 'move', dice: [5, 5], text: '', moves: [[13, 8], [13, 8], [8, 3], [8, 3]], position: encodePositionId(r), cube: 1, owner: null },
      ],
      result: null,
    };
    const stats = diceStats([game]);
    expect(stats.rolls).toBe(2);
    expect(stats.faces).toEqual([0, 0, 0, 0, 2, 2]);
    expect(stats.seats[1]).toMatchObject({ rolls: 1, doubles: 1, pips: 24, barRolls: 0 });
    expect(stats.seats[0]).toMatchObject({ rolls: 1, doubles: 1, pips: 20 });
    expect(stats.chiSquare).toBeCloseTo(((4 * (2 / 3) ** 2) + 2 * (4 / 3) ** 2) / (2 / 3), 6);
    expect(PIPS_PER_ROLL).toBeCloseTo(8.1667, 3);
  });
});

describe('dice statistics from the bar', () => {
  it('compares entries with the chance the closed points allowed', async () => {
    const { diceStats } = await import('../src/view/diceStats');
    const { positionFromPoints } = await import('../src/engine/position');
    // After seat 0's (opening) turn: seat 0 holds its 1, 2 and 6 points, seat 1 has one on the bar.
    const after0 = positionFromPoints({ 1: 2, 2: 2, 6: 5, 8: 3, 13: 3 }, { 25: 1, 13: 6, 8: 3, 6: 5 });
    const seen1 = swapped(after0);
    const entered = applyMove(seen1, [25, 20]);
    const stays = swapped(entered);
    const game: GameRecordDoc = {
      ...doc,
      turns: [
        { ...doc.turns[0]!, position: encodePositionId(after0) },
        { seat: 1, action: 'move', dice: [5, 2], text: '', moves: [[25, 20], [13, 11]], position: encodePositionId(applyMove(entered, [13, 11])), cube: 1, owner: null },
        { seat: 0, action: 'move', dice: [2, 1], text: '', moves: [], position: encodePositionId(stays), cube: 1, owner: null },
      ],
      result: null,
    };
    const s = diceStats([game]).seats[1];
    expect([s.barRolls, s.entered]).toEqual([1, 1]);
    expect(s.expectedEntered).toBeCloseTo(1 - (3 / 6) ** 2, 9);
    expect(diceStats([game]).seats[0].barRolls).toBe(0);
  });
});

describe('polling analysis.json', () => {
  const done = (level: string, deeper?: boolean): AnalysisDoc =>
    ({ status: 'done', level, deeper, players: [] as never, turns: [] }) as AnalysisDoc;
  it('waits for a pending report, less often as time goes by', () => {
    expect(nextPoll(null, 0)).toBe(POLL_MS);
    expect(nextPoll({ status: 'pending', level: '1-ply', progress: null }, 0)).toBe(POLL_MS);
    expect(nextPoll({ status: 'pending', level: '1-ply', progress: null }, 10)).toBe(2 * POLL_MS);
    expect(nextPoll({ status: 'pending', level: '1-ply', progress: null }, 1000)).toBe(POLL_MAX_MS);
    // A game of a variant the analysis does not know: nothing more to wait for.
    expect(nextPoll({ status: 'unavailable', reason: 'variant', variant: 'plakoto' }, 0)).toBeNull();
  });
  it('keeps asking while a deeper report is queued, then stops', () => {
    expect(nextPoll(done('1-ply', true), 0)).toBe(DEEPER_POLL_MS);
    expect(nextPoll(done('1-ply', true), DEEPER_POLLS - 1)).toBe(DEEPER_POLL_MS);
    expect(nextPoll(done('1-ply', true), DEEPER_POLLS)).toBeNull();
    expect(nextPoll(done('1-ply'), 0)).toBeNull();
    expect(nextPoll(done('2-ply'), 0)).toBeNull();
  });
});
