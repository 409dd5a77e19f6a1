import { describe, expect, it } from 'vitest';
import { personal } from '../src/net/voice';

describe('notices on your own device', () => {
  const names = ['Ann', 'Bob'] as const;

  it('speak to you about yourself and name the opponent', () => {
    expect(personal('Ann rolled 2–2 and cannot move: the turn passes', names, 0)).toBe('You rolled 2–2 and cannot move: the turn passes');
    expect(personal('Ann rolled 2–2 and cannot move: the turn passes', names, 1)).toBe('Ann rolled 2–2 and cannot move: the turn passes');
    expect(personal('Bob wins the opening roll 6–1', names, 1)).toBe('You win the opening roll 6–1');
    expect(personal('Bob takes: the cube is at 2', names, 1)).toBe('You take: the cube is at 2');
    expect(personal('Ann beavers: the cube is at 4', names, 0)).toBe('You beaver: the cube is at 4');
    expect(personal('Ann rejects the resignation: play on', names, 0)).toBe('You reject the resignation: play on');
  });

  it('leave spectators, unknown names and equal names alone', () => {
    expect(personal('Ann rolled 6–6 and cannot move', names, null)).toBe('Ann rolled 6–6 and cannot move');
    expect(personal('Guest rolled 6–6 and cannot move', ['Guest', 'Guest'], 0)).toBe('Guest rolled 6–6 and cannot move');
    expect(personal('Annette rolled 6–6', ['Ann', 'Annette'], 0)).toBe('Annette rolled 6–6');
  });

  it('call a new device a new device, not a lost secret', () => {
    const said = personal('Bob committed a new dice chain (lost secret) from roll 7', names, 0);
    expect(said).toBe('Bob continues on another device or browser: a new dice commitment from roll 7, checked like the first');
    expect(said).not.toMatch(/lost/);
  });
});
