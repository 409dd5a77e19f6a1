import { describe, expect, it } from 'vitest';
import { LEVELS, formatMoves, levelName } from '../src/net/botApi';

describe('botApi', () => {
  it('writes hinted plays the way players read them', () => {
    expect(formatMoves([[24, 18], [13, 9]])).toBe('24/18 13/9');
    expect(formatMoves([[25, 20], [6, 0]])).toBe('bar/20 6/off');
    expect(formatMoves([])).toBe('');
  });
  it('names the four levels the server knows', () => {
    expect(LEVELS.map(([l]) => l)).toEqual(['easy', 'normal', 'hard', 'expert']);
    expect(levelName('expert')).toBe('Expert');
    expect(levelName('unknown')).toBe('unknown');
  });
});
