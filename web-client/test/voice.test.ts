import { describe, expect, it } from 'vitest';
import { loadLanguage, setLanguage } from '../src/i18n';
import { aboutSeat, personal } from '../src/net/voice';

describe('notices on your own device', () => {
  it('speak to you about yourself and name the opponent', () => {
    const passed = aboutSeat(0, 'Ann', 'notice.passed', { dice: '2–2' });
    expect(personal(passed, 0)).toBe('You rolled 2–2 and cannot move: the turn passes');
    expect(personal(passed, 1)).toBe('Ann rolled 2–2 and cannot move: the turn passes');
    expect(personal(aboutSeat(1, 'Bob', 'notice.winsRolloff', { dice: '6–1' }), 1)).toBe('You win the opening roll 6–1');
    expect(personal(aboutSeat(1, 'Bob', 'notice.takes', { value: 2 }), 1)).toBe('You take: the cube is at 2');
    expect(personal(aboutSeat(0, 'Ann', 'notice.beavers', { value: 4 }), 0)).toBe('You beaver: the cube is at 4');
    expect(personal(aboutSeat(0, 'Ann', 'notice.rejects'), 0)).toBe('You reject the resignation: play on');
  });

  it('leave spectators and sentences about no one alone; equal names are told apart by seat', () => {
    expect(personal(aboutSeat(0, 'Ann', 'notice.passed', { dice: '6–6' }), null)).toBe('Ann rolled 6–6 and cannot move: the turn passes');
    expect(personal({ text: 'Opening roll: both rolled 3 — rolling again' }, 0)).toBe('Opening roll: both rolled 3 — rolling again');
    const guest = aboutSeat(1, 'Guest', 'notice.passed', { dice: '6–6' });
    expect(personal(guest, 0)).toBe('Guest rolled 6–6 and cannot move: the turn passes');
    expect(personal(guest, 1)).toBe('You rolled 6–6 and cannot move: the turn passes');
  });

  it('are worded by each language, the second person included', async () => {
    await loadLanguage('de');
    setLanguage('de');
    try {
      const took = aboutSeat(1, 'Bob', 'notice.takes', { value: 2 });
      expect(personal(took, 1)).toBe('Sie nehmen an: der Würfel steht auf 2');
      expect(personal(took, 0)).toBe('Bob nimmt an: der Würfel steht auf 2');
    } finally {
      setLanguage('en');
    }
  });
});
