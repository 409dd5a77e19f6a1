import { describe, expect, it } from 'vitest';
import { levelName, levels } from '../src/net/botApi';

describe('botApi', () => {
  it('names the four levels the server knows', () => {
    expect(levels().map(([l]) => l)).toEqual(['easy', 'normal', 'hard', 'expert']);
    expect(levelName('expert')).toBe('Expert');
    expect(levelName('unknown')).toBe('unknown');
  });
});
