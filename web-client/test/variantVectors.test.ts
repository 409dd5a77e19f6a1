import { describe, expect, it } from 'vitest';
import vectors from './vectors/variant-vectors.json';
import { type Position, positionKey } from '../src/engine/position';
import { reachablePlays, startTurn } from '../src/engine/turn';
import { type GameVariant, RULES, type VariantRules, legalPlaysOf, rulesOf } from '../src/engine/variants';
import type { Move } from '../src/engine/movegen';

// The variant rules vectors, written from the Python rules (engine/variants) by
// tools/make_variant_vectors.py; its docstring describes the encoding.

interface Case {
  variant: GameVariant;
  family: string;
  position: string;
  dice: [number, number];
  used: number;
  plays: string[];
}
const cases = (vectors as unknown as { cases: Case[] }).cases;

const DIGITS = '0123456789abcdefghijklmnopqrstuvwxyz';
const board = (text: string) => [...text].map((c) => DIGITS.indexOf(c));
const write = (b: readonly number[]) => b.map((n) => DIGITS[n]).join('');

function decode(text: string): Position {
  const [boards, pins] = text.split('.');
  const position = { mover: board(boards!.slice(0, 26)), opponent: board(boards!.slice(26, 52)) };
  if (!pins) return position;
  const [mp, op] = pins.split(',').map((h) => parseInt(h, 16));
  return { ...position, moverPinned: mp!, opponentPinned: op! };
}

function result(rules: VariantRules, start: Position, p: Position): string {
  const changed = p.opponent.every((n, i) => n === start.opponent[i]) ? '' : '/' + write(p.opponent);
  const mp = p.moverPinned ?? 0;
  const op = p.opponentPinned ?? 0;
  const end = rules.ending(p);
  const ending = end ? `=${end.winner === null ? 'd' : end.winner === 'mover' ? 'm' : 'o'}${end.points}${end.finish[0] === 'b' ? 'b' : end.finish === 'mother' ? 'm' : 'd'}` : '';
  return write(p.mover) + changed + (mp || op ? `.${mp.toString(16)},${op.toString(16)}` : '') + ending;
}

/** The cases where `rules` (by variant) disagree with the Python rules. */
function check(selected: readonly Case[], rulesFor: (name: GameVariant) => VariantRules): string[] {
  const failures: string[] = [];
  for (const c of selected) {
    const rules = rulesFor(c.variant);
    const position = decode(c.position);
    const plays = legalPlaysOf(rules, position, c.dice[0], c.dice[1]);
    const got = plays.map((p) => result(rules, position, p.position)).sort();
    const used = plays.length ? plays[0]!.moves.length : 0;
    if (used !== c.used || JSON.stringify(got) !== JSON.stringify(c.plays)) {
      failures.push(`${c.variant} ${c.family} ${c.position} ${c.dice}: ${got.length} plays/${used} dice, expected ${c.plays.length}/${c.used}`);
    }
    if (plays.some((p) => p.moves.length !== used)) failures.push(`${c.position}: uneven play lengths`);
    // Every play's moves are a legal order of steps reaching its position.
    for (const play of plays) {
      let at = position;
      for (const move of play.moves) {
        if (!c.dice.some((d) => rules.singleMoves(at, d).some((m: Move) => m[0] === move[0] && m[1] === move[1]))) {
          failures.push(`${c.position} ${c.dice}: ${move} is no step`);
          break;
        }
        at = rules.applyMove(at, move);
      }
      if (positionKey(at) !== positionKey(play.position)) failures.push(`${c.position} ${c.dice}: moves miss their result`);
    }
  }
  return failures;
}

describe('variant rules against the Python rules (test/vectors/variant-vectors.json)', () => {
  it('has thousands of cases covering every variant and rule family', () => {
    expect(cases.length).toBeGreaterThan(2400);
    const families = new Set(cases.map((c) => `${c.variant}/${c.family}`));
    for (const f of ['plakoto/pins', 'plakoto/bear_off', 'plakoto/mothers', 'fevga/opening', 'fevga/quarter', 'fevga/prime', 'fevga/bear_off', 'fevga/crowded']) {
      expect(families).toContain(f);
    }
    for (const v of ['backgammon', 'nackgammon', 'hypergammon', 'portes', 'plakoto', 'fevga']) expect(families).toContain(`${v}/start`);
    // Endings of every kind occur: bearing off single and double, the mother, the draw.
    const endings = new Set(cases.flatMap((c) => c.plays.map((p) => p.split('=')[1]).filter(Boolean)));
    for (const e of ['m1b', 'm2b', 'm3b', 'm2m', 'o2m', 'd0d']) expect(endings).toContain(e);
  });

  // CPU-bound (about a second alone): room for a loaded machine.
  const HEAVY = 30_000;

  it('legalPlaysOf reproduces every case, endings included', () => {
    expect(check(cases, (name) => RULES[name]).slice(0, 10)).toEqual([]);
  }, HEAVY);

  it('step-by-step turns reach exactly the legal plays', () => {
    const failures: string[] = [];
    // Every third case (the turn search is the slower part): all variants and families still.
    for (const c of cases.filter((_, i) => i % 3 === 0)) {
      const rules = rulesOf(c.variant);
      const position = decode(c.position);
      const turn = startTurn(position, c.dice[0], c.dice[1], rules);
      if (turn.maxUsed !== c.used) failures.push(`${c.position} ${c.dice}: maxUsed ${turn.maxUsed}`);
      const got = c.used === 0 ? [] : [...reachablePlays(turn)].sort();
      const expected = legalPlaysOf(rules, position, c.dice[0], c.dice[1]).map((p) => positionKey(p.position)).sort();
      if (JSON.stringify(got) !== JSON.stringify(expected)) failures.push(`${c.variant} ${c.position} ${c.dice}: ${got.length} vs ${expected.length}`);
    }
    expect(failures.slice(0, 10)).toEqual([]);
  }, HEAVY);

  // Controls: a rule broken on purpose must be caught by the vectors of its family.
  const broken = (name: GameVariant, change: Partial<VariantRules>) => (v: GameVariant) => (v === name ? { ...RULES[v], ...change } : RULES[v]);
  const family = (variant: string, f: string) => cases.filter((c) => c.variant === variant && c.family === f);

  it('catches pinned checkers that move (plakoto)', () => {
    const plakoto = RULES.plakoto;
    const freed = broken('plakoto', { singleMoves: (p, d) => plakoto.singleMoves({ ...p, moverPinned: 0 }, d) });
    expect(check(family('plakoto', 'pins'), freed).length).toBeGreaterThan(0);
  });

  it('catches a missing mother rule (plakoto)', () => {
    const noMother = broken('plakoto', { ending: (p) => (p.mover.slice(1).some((n) => n > 0) ? null : RULES.plakoto.ending(p)) });
    expect(check(family('plakoto', 'mothers'), noMother).length).toBeGreaterThan(0);
  });

  it("catches fevga without the first checker's rule, and without the starting quarter's", () => {
    const fevga = RULES.fevga;
    const runners = broken('fevga', {
      singleMoves: (p, d) => {
        // Pretend the runner has passed: let a second checker leave at once.
        const moves = fevga.singleMoves(p, d);
        const from24 = p.mover[24]! > 0 && p.opponent[(24 - d <= 12 ? 24 - d + 12 : 24 - d - 12)] === 0 && 24 - d >= 1;
        return from24 && !moves.some((m) => m[0] === 24) ? [[24, 24 - d] as const, ...moves] : moves;
      },
    });
    expect(check(family('fevga', 'opening'), runners).length).toBeGreaterThan(0);
    const quarter = broken('fevga', { endRules: (start) => ({ allowed: null, preferred: fevga.endRules(start)!.preferred }) });
    expect(check(family('fevga', 'quarter'), quarter).length).toBeGreaterThan(0);
    const prime = broken('fevga', { endRules: (start) => ({ allowed: fevga.endRules(start)!.allowed, preferred: null }) });
    expect(check(family('fevga', 'prime'), prime).length).toBeGreaterThan(0);
  });

  it('catches the backgammon triple in the Greek scoring (portes)', () => {
    const triple = broken('portes', { ending: RULES.backgammon.ending });
    expect(check(cases.filter((c) => c.variant === 'portes'), triple).length).toBeGreaterThan(0);
  });
});
