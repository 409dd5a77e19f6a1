import { describe, expect, it } from 'vitest';
import { aboutSeat, personal } from '../src/net/voice';

describe('notices on your own device', () => {
  it('speak to you about yourself and name the opponent', () => {
    const passed = aboutSeat(0, 'Ann', ['rolled', 'rolled'], ' 2–2 and cannot move: the turn passes');
    expect(personal(passed, 0)).toBe('You rolled 2–2 and cannot move: the turn passes');
    expect(personal(passed, 1)).toBe('Ann rolled 2–2 and cannot move: the turn passes');
    expect(personal(aboutSeat(1, 'Bob', ['wins', 'win'], ' the opening roll 6–1'), 1)).toBe('You win the opening roll 6–1');
    expect(personal(aboutSeat(1, 'Bob', ['takes', 'take'], ': the cube is at 2'), 1)).toBe('You take: the cube is at 2');
    expect(personal(aboutSeat(0, 'Ann', ['beavers', 'beaver'], ': the cube is at 4'), 0)).toBe('You beaver: the cube is at 4');
    expect(personal(aboutSeat(0, 'Ann', ['rejects', 'reject'], ' the resignation: play on'), 0)).toBe('You reject the resignation: play on');
  });

  it('leave spectators and sentences about no one alone; equal names are told apart by seat', () => {
    expect(personal(aboutSeat(0, 'Ann', ['rolled', 'rolled'], ' 6–6 and cannot move'), null)).toBe('Ann rolled 6–6 and cannot move');
    expect(personal({ text: 'Opening roll: both rolled 3 — rolling again' }, 0)).toBe('Opening roll: both rolled 3 — rolling again');
    const guest = aboutSeat(1, 'Guest', ['rolled', 'rolled'], ' 6–6 and cannot move');
    expect(personal(guest, 0)).toBe('Guest rolled 6–6 and cannot move');
    expect(personal(guest, 1)).toBe('You rolled 6–6 and cannot move');
  });
});
