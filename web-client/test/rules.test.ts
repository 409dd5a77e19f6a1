import { describe, expect, it } from 'vitest';
import vectors from './vectors/rules-vectors.json';
import {
  decodePositionId,
  encodePositionId,
  legalPlays,
  maxDiceUsable,
  diceToPlay,
  pipCount,
  positionKey,
  reachablePlays,
  startPosition,
  startTurn,
} from '../src/engine';

interface Case {
  family: string;
  id: string;
  dice: [number, number];
  used: number;
  plays: string[];
}
const cases = (vectors as unknown as { cases: Case[] }).cases;

describe('rules vectors from the Python engine', () => {
  it('has the vectors', () => {
    expect(cases.length).toBeGreaterThan(2000);
  });

  it('legalPlays reproduces every case', () => {
    const failures: string[] = [];
    for (const c of cases) {
      const position = decodePositionId(c.id);
      const plays = legalPlays(position, c.dice[0], c.dice[1]);
      const ids = plays.map((p) => encodePositionId(p.position)).sort();
      const used = plays.length ? plays[0]!.moves.length : 0;
      if (JSON.stringify(ids) !== JSON.stringify(c.plays) || used !== c.used) {
        failures.push(`${c.family} ${c.id} ${c.dice}: got ${ids.length} plays/${used} dice`);
      }
      if (plays.some((p) => p.moves.length !== used)) failures.push(`${c.id}: uneven play lengths`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });

  it('step-by-step turns reach exactly the legal plays', () => {
    // Every path of legal next steps ends in a legal play, and every legal play is reachable.
    const failures: string[] = [];
    for (const c of cases) {
      const position = decodePositionId(c.id);
      const turn = startTurn(position, c.dice[0], c.dice[1]);
      if (turn.maxUsed !== c.used) failures.push(`${c.id} ${c.dice}: maxUsed ${turn.maxUsed}`);
      const finals = [...reachablePlays(turn)];
      const expected = c.plays.map((id) => positionKey(decodePositionId(id))).sort();
      const got = c.used === 0 ? [] : finals.sort();
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        failures.push(`${c.family} ${c.id} ${c.dice}: ${got.length} vs ${expected.length}`);
      }
    }
    expect(failures.slice(0, 10)).toEqual([]);
  });
});

describe('position ids', () => {
  it('round-trips every vector position', () => {
    for (const c of cases) expect(encodePositionId(decodePositionId(c.id))).toBe(c.id);
  });

  it('encodes the start position like gnubg', () => {
    expect(encodePositionId(startPosition())).toBe('4HPwATDgc/ABMA');
  });

  it('rejects malformed ids', () => {
    expect(() => decodePositionId('4HPwATDgc/AB')).toThrow(/14 characters/);
    expect(() => decodePositionId('4HPwATDgc/AB!A')).toThrow(/base64/);
    expect(() => decodePositionId('//////////////')).toThrow();
    expect(() => decodePositionId('4HPwATDgc/ABMB')).toThrow(/non-canonical|stray/);
  });
});

describe('basics', () => {
  it('counts pips', () => {
    expect(pipCount(startPosition().mover)).toBe(167);
  });

  it('knows the start position play counts of rules.md', () => {
    const expected: Record<string, number> = {
      '21': 15, '31': 16, '32': 17, '41': 14, '42': 18, '43': 17, '51': 8, '52': 8, '53': 9,
      '54': 9, '61': 10, '62': 14, '63': 14, '64': 14, '65': 7, '11': 42, '22': 75, '33': 73,
      '44': 52, '55': 4, '66': 11,
    };
    for (const [roll, count] of Object.entries(expected)) {
      expect(legalPlays(startPosition(), Number(roll[0]), Number(roll[1])).length).toBe(count);
    }
    expect(maxDiceUsable(startPosition(), diceToPlay(6, 6))).toBe(4);
  });
});
