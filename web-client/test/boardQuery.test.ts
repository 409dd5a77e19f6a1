import { describe, expect, it } from 'vitest';
import { analysePath, hashOf, queryFromHash } from '../src/view/boardQuery';

describe('the analysis board address', () => {
  it('round-trips what it names', () => {
    const q = { pid: '4HPwATDgc/ABMA', mid: 'cAkAAAAAAAAA', xgid: null, dice: [6, 4] as const, ply: 3 as const };
    expect(queryFromHash(hashOf(q))).toEqual(q);
    const x = { pid: null, mid: null, xgid: 'XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10', dice: null, ply: 1 as const };
    expect(queryFromHash(hashOf(x))).toEqual(x);
  });
  it('leaves out what is malformed', () => {
    expect(queryFromHash('#pid=abc&dice=71&ply=9')).toEqual({ pid: 'abc', mid: null, xgid: null, dice: null, ply: 1 });
    expect(queryFromHash('')).toEqual({ pid: null, mid: null, xgid: null, dice: null, ply: 1 });
  });
  it('links a position at 2-ply', () => {
    expect(analysePath('4HPwATDgc/ABMA', [3, 1])).toBe('/analyse#pid=4HPwATDgc%2FABMA&dice=31&ply=2');
    expect(queryFromHash(analysePath('4HPwATDgc/ABMA', [3, 1], 'cIkFAAAAAAAA').slice('/analyse'.length))).toEqual({
      pid: '4HPwATDgc/ABMA',
      mid: 'cIkFAAAAAAAA',
      xgid: null,
      dice: [3, 1],
      ply: 2,
    });
  });
});
