/**
 * The transcript verifier in the browser: the checks of docs/fairness.md section 11, in the
 * same order as the Python verifier (protocol/fairdice/verify.py), so that both report the same
 * first fault (problem code, roll k, seat) on the shared vectors. Messages are for people and
 * may be worded differently.
 *
 *   json, schema/version -> commitment -> recommitment -> per roll: sequence, link, dice,
 *   rolloff -> order -> action -> result (and evidence) -> play (the rules-engine replay)
 */

import { type ResultLevel, resultPoints } from '../engine/matchRules';
import type { Move } from '../engine/movegen';
import { BAR, OFF, type Board, type Position, positionKey } from '../engine/position';
import { GAME_VARIANTS, type GameVariant, RULES, type VariantRules, legalPlaysOf } from '../engine/variants';
import { constantTimeEqual, fromHex, toHex } from './bytes';
import { MAX_RECOMMITMENTS, deriveDice, rollOffWinner, type Seat, verifyLink } from './scheme';

export type Problem =
  | 'json'
  | 'schema'
  | 'version'
  | 'commitment'
  | 'recommitment'
  | 'sequence'
  | 'link'
  | 'dice'
  | 'rolloff'
  | 'order'
  | 'action'
  | 'result'
  | 'evidence'
  | 'play';

export class TranscriptError extends Error {
  constructor(
    readonly problem: Problem,
    message: string,
    readonly k: number | null = null,
    readonly seat: Seat | null = null,
  ) {
    super(k !== null ? `roll ${k}: ${message}` : message);
  }
}

interface Commitment {
  seat: Seat;
  commitment: Uint8Array;
  v: number;
  t: number;
}
interface Recommitment extends Commitment {
  applies_from: number;
}
interface Roll {
  k: number;
  kind: 'rolloff' | 'turn';
  roller: Seat | null;
  reveals: [Uint8Array, Uint8Array];
  d1: number;
  d2: number;
  v: number;
  t: number;
}
interface Action {
  v: number;
  t: number;
  seat: Seat | null;
  type: string;
  k?: number;
  moves?: Move[];
}
interface Result {
  /** Null: a drawn game (plakoto's two pinned mothers). */
  winner: Seat | null;
  reason: string;
  multiplier: number;
  cube: number;
  points: number;
  v: number;
  t: number;
  evidence: { k: number; seat: Seat; reveal: Uint8Array } | null;
}
export interface Transcript {
  matchId: Uint8Array;
  gameNo: number;
  /** The rules the game was played by (absent from the JSON: backgammon). */
  variant: GameVariant;
  /** A Greek game opened without a roll-off by this seat (the previous game's winner). */
  opener: Seat | null;
  /** Played under the Jacoby rule, a money session's option (absent from the JSON: false): a
   * gammon or backgammon borne off with the cube never turned counts as a single. */
  jacoby: boolean;
  names: [string | null, string | null];
  commitments: [Commitment, Commitment];
  recommitments: Recommitment[];
  rolls: Roll[];
  actions: Action[];
  result: Result;
}

export interface Verdict {
  readonly matchId: string;
  readonly gameNo: number;
  readonly rolls: number;
  readonly rolloffRolls: number;
  readonly firstMover: Seat | null;
  readonly recommitments: number;
  readonly actions: number;
  readonly playsReplayed: number;
  readonly result: { winner: Seat | null; reason: string; points: number };
}

const SAFE = Number.MAX_SAFE_INTEGER;
const U32 = 0xffffffff;
const REASONS = ['bear_off', 'drop', 'resign', 'timeout', 'no_reveal', 'invalid_reveal', 'abandon', 'mother', 'mothers'];

// ---- schema ------------------------------------------------------------------------------------

function jsonName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v === 'object' ? 'object' : typeof v;
}

function fail(path: string, message: string): never {
  throw new TranscriptError('schema', `${path}: ${message}`);
}

function int(v: unknown, path: string, lo = 0, hi = SAFE): number {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(path, `expected an integer, got ${jsonName(v)}`);
  if (v < lo || v > hi) fail(path, `expected an integer in ${lo} .. ${hi}, got ${v}`);
  return v;
}

function seatOf(v: unknown, path: string, nullable = false): Seat | null {
  if (v === null && nullable) return null;
  if (v !== 0 && v !== 1) fail(path, `expected seat 0 or 1${nullable ? ' or null' : ''}, got ${JSON.stringify(v)}`);
  return v;
}

function hex(v: unknown, size: number, path: string): Uint8Array {
  if (typeof v !== 'string') fail(path, `expected a hex string, got ${jsonName(v)}`);
  if (/[^0-9a-f]/.test(v)) fail(path, 'expected lowercase hex digits only');
  if (v.length !== size * 2) fail(path, `expected ${size * 2} hex digits, got ${v.length}`);
  return fromHex(v);
}

function object(v: unknown, path: string, keys: readonly string[]): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, `expected an object, got ${jsonName(v)}`);
  const o = v as Record<string, unknown>;
  const missing = keys.find((k) => !(k in o));
  if (missing) fail(path, `missing field '${missing}'`);
  const extra = Object.keys(o).find((k) => !keys.includes(k));
  if (extra) fail(path, `unknown field '${extra}'`);
  return o;
}

function array(v: unknown, path: string, length?: number): unknown[] {
  if (!Array.isArray(v)) fail(path, `expected an array, got ${jsonName(v)}`);
  if (length !== undefined && v.length !== length) fail(path, `expected ${length} items, got ${v.length}`);
  return v;
}

function die(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 6) fail(path, `expected a die 1 .. 6, got ${JSON.stringify(v)}`);
  return v;
}

/** Parse JSON text (or an object) into a transcript, checking its layout. */
export function parseTranscript(data: string | unknown): Transcript {
  let obj: unknown = data;
  if (typeof data === 'string') {
    try {
      obj = JSON.parse(data);
    } catch (err) {
      throw new TranscriptError('json', `not valid JSON: ${(err as Error).message}`);
    }
  }
  // `variant` and `opener` appear only in a game of another variant than backgammon, `jacoby`
  // only in a money game played under the Jacoby rule.
  const optional = ['variant', 'opener', 'jacoby'].filter((k) => typeof obj === 'object' && obj !== null && k in obj);
  const top = object(obj, 'transcript', [
    'format',
    'scheme',
    'match_id',
    'game_no',
    ...optional,
    'seats',
    'commitments',
    'recommitments',
    'rolls',
    'actions',
    'result',
  ]);
  if (top.format !== 'fairgammon-transcript/1') {
    throw new TranscriptError('version', `format: expected 'fairgammon-transcript/1', got ${JSON.stringify(top.format)}`);
  }
  if (top.scheme !== 'fairgammon/v1') {
    throw new TranscriptError('version', `scheme: expected 'fairgammon/v1', got ${JSON.stringify(top.scheme)}`);
  }
  const matchId = hex(top.match_id, 16, 'match_id');
  const gameNo = int(top.game_no, 'game_no', 0, U32);
  let variant: GameVariant = 'backgammon';
  if ('variant' in top) {
    const others: readonly GameVariant[] = GAME_VARIANTS.filter((n) => n !== 'backgammon');
    if (!others.includes(top.variant as GameVariant)) fail('variant', `expected one of ${others.join(', ')}, got ${JSON.stringify(top.variant)}`);
    variant = top.variant as GameVariant;
  }
  let opener: Seat | null = null;
  if ('opener' in top) {
    opener = seatOf(top.opener, 'opener');
    if (RULES[variant].opening !== 'reroll') fail('opener', `a ${variant} game opens with the roll-off: no opener`);
  }
  const jacoby = 'jacoby' in top;
  if (jacoby) {
    if (top.jacoby !== true) fail('jacoby', 'expected true (a game without the Jacoby rule leaves it out)');
    if (!RULES[variant].cube) fail('jacoby', `${variant} has no cube: no money play, no Jacoby rule`);
  }
  const names = array(top.seats, 'seats', 2).map((s, i) => {
    const o = object(s, `seats[${i}]`, ['seat', 'name']);
    if (o.seat !== i) fail(`seats[${i}].seat`, `expected ${i}, got ${JSON.stringify(o.seat)}`);
    if (o.name !== null && (typeof o.name !== 'string' || o.name.length > 100)) {
      fail(`seats[${i}].name`, 'expected null or a string of at most 100');
    }
    return o.name as string | null;
  });
  const commitments = array(top.commitments, 'commitments', 2).map((c, i) => {
    const path = `commitments[${i}]`;
    const o = object(c, path, ['seat', 'commitment', 'v', 't']);
    if (o.seat !== i) fail(`${path}.seat`, `expected ${i} (seat order), got ${JSON.stringify(o.seat)}`);
    return { seat: i as Seat, commitment: hex(o.commitment, 32, `${path}.commitment`), v: int(o.v, `${path}.v`), t: int(o.t, `${path}.t`) };
  });
  const recommitments = array(top.recommitments, 'recommitments').map((r, i) => {
    const path = `recommitments[${i}]`;
    const o = object(r, path, ['seat', 'applies_from', 'commitment', 'v', 't']);
    return {
      seat: seatOf(o.seat, `${path}.seat`)!,
      applies_from: int(o.applies_from, `${path}.applies_from`, 1, U32),
      commitment: hex(o.commitment, 32, `${path}.commitment`),
      v: int(o.v, `${path}.v`),
      t: int(o.t, `${path}.t`),
    };
  });
  const rolls = array(top.rolls, 'rolls').map((r, i) => {
    const path = `rolls[${i}]`;
    const o = object(r, path, ['k', 'kind', 'roller', 'reveals', 'd1', 'd2', 'v', 't']);
    if (o.kind !== 'rolloff' && o.kind !== 'turn') fail(`${path}.kind`, `expected 'rolloff' or 'turn', got ${JSON.stringify(o.kind)}`);
    const reveals = array(o.reveals, `${path}.reveals`, 2);
    return {
      k: int(o.k, `${path}.k`, 1, U32),
      kind: o.kind as Roll['kind'],
      roller: seatOf(o.roller, `${path}.roller`, true),
      reveals: [hex(reveals[0], 32, `${path}.reveals[0]`), hex(reveals[1], 32, `${path}.reveals[1]`)] as [Uint8Array, Uint8Array],
      d1: die(o.d1, `${path}.d1`),
      d2: die(o.d2, `${path}.d2`),
      v: int(o.v, `${path}.v`),
      t: int(o.t, `${path}.t`),
    };
  });
  const actions = array(top.actions, 'actions').map((a, i) => {
    const path = `actions[${i}]`;
    if (typeof a !== 'object' || a === null || Array.isArray(a)) fail(path, `expected an object, got ${jsonName(a)}`);
    const o = a as Record<string, unknown>;
    for (const key of ['v', 't', 'seat', 'type']) if (!(key in o)) fail(path, `missing field '${key}'`);
    if (typeof o.type !== 'string' || !/^[a-z][a-z0-9_]{0,31}$/.test(o.type)) {
      fail(`${path}.type`, `expected a lowercase identifier, got ${JSON.stringify(o.type)}`);
    }
    const action: Action = { v: 0, t: 0, seat: null, type: o.type };
    if (o.type === 'move' || o.type === 'roll' || o.type === 'reveal') action.k = int(o.k, `${path}.k`, 1, U32);
    if (o.type === 'reveal') seatOf(o.seat, `${path}.seat`);
    if (o.type === 'move') {
      const moves = array(o.moves, `${path}.moves`);
      if (moves.length > 4) fail(`${path}.moves`, `expected at most 4 moves, got ${moves.length}`);
      action.moves = moves.map((m, j) => {
        const pair = array(m, `${path}.moves[${j}]`, 2);
        return [int(pair[0], `${path}.moves[${j}][0]`, 1, 25), int(pair[1], `${path}.moves[${j}][1]`, 0, 24)] as const;
      });
    }
    action.v = int(o.v, `${path}.v`);
    action.t = int(o.t, `${path}.t`);
    action.seat = seatOf(o.seat, `${path}.seat`, true);
    return action;
  });
  const ro = object(top.result, 'result', ['winner', 'reason', 'multiplier', 'cube', 'points', 'v', 't', 'evidence']);
  const draw = ro.reason === 'mothers'; // a drawn game: no winner, nothing scored
  const winner = seatOf(ro.winner, 'result.winner', draw);
  if (draw && winner !== null) fail('result.winner', `expected null for a drawn game, got ${winner}`);
  if (typeof ro.reason !== 'string' || !REASONS.includes(ro.reason)) {
    fail('result.reason', `expected one of ${REASONS.join(', ')}, got ${JSON.stringify(ro.reason)}`);
  }
  const cube = int(ro.cube, 'result.cube', 1, 64);
  if (cube & (cube - 1)) fail('result.cube', `expected a power of two, got ${cube}`);
  let evidence: Result['evidence'] = null;
  if (ro.evidence !== null) {
    const e = object(ro.evidence, 'result.evidence', ['k', 'seat', 'reveal']);
    evidence = { seat: seatOf(e.seat, 'result.evidence.seat')!, k: int(e.k, 'result.evidence.k', 1, U32), reveal: hex(e.reveal, 32, 'result.evidence.reveal') };
  }
  const result: Result = {
    winner,
    reason: ro.reason,
    cube,
    multiplier: draw ? int(ro.multiplier, 'result.multiplier', 0, 0) : int(ro.multiplier, 'result.multiplier', 1, 3),
    points: int(ro.points, 'result.points', 0, 192),
    v: int(ro.v, 'result.v'),
    t: int(ro.t, 'result.t'),
    evidence,
  };
  return {
    matchId,
    gameNo,
    variant,
    opener,
    jacoby,
    names: [names[0]!, names[1]!],
    commitments: [commitments[0]!, commitments[1]!],
    recommitments,
    rolls,
    actions,
    result,
  };
}

// ---- verification ---------------------------------------------------------------------------

const zero = (b: Uint8Array) => b.every((x) => x === 0);
const seatName = (s: Seat | null) => (s === null ? 'null' : `seat ${s}`);
const turnRoller = (first: Seat, i: number): Seat => ((first + 1 + i) % 2) as Seat;

/** Who rolls the `i`-th turn roll (from 0) after the opening: in the backgammon family the
 * roll-off winner played the deciding roll, so the other seat rolls first; in a Greek game the
 * roll-off winner (or the opener) rolls first. */
const rollerOf = (first: Seat, reroll: boolean, i: number): Seat => (reroll ? (((first + i) % 2) as Seat) : turnRoller(first, i));

/** How the rolls of a game are ordered: who moves first, the roll that decided it (0: an
 * opener, no roll-off), and whether the roll-off's winner rolls again (a Greek game). */
interface Order {
  readonly firstMover: Seat | null;
  readonly decidedAt: number | null;
  readonly reroll: boolean;
}

/** The seat that rolls roll `k` once the opening is decided. */
const rollerAt = (o: Order, k: number): Seat => rollerOf(o.firstMover!, o.reroll, k - o.decidedAt! - 1);

function linkOk(t: Transcript, seat: Seat, k: number, reveal: Uint8Array, previous: Uint8Array): Promise<boolean> {
  return verifyLink({ matchId: t.matchId, gameNo: t.gameNo, seat }, k, reveal, previous);
}

/** Verify a transcript completely (parse it first when given JSON); throws TranscriptError. */
export async function verifyTranscript(data: string | unknown, replay = true): Promise<Verdict> {
  const t = parseTranscript(data);
  // commitment
  for (const c of t.commitments) {
    if (zero(c.commitment)) throw new TranscriptError('commitment', `seat ${c.seat} commitment is all zero bytes`, null, c.seat);
  }
  if (constantTimeEqual(t.commitments[0].commitment, t.commitments[1].commitment)) {
    throw new TranscriptError('commitment', 'both seats committed to the same value');
  }
  const heads = [t.commitments[0].commitment, t.commitments[1].commitment];
  // recommitment
  const counts = [0, 0];
  const byApplies = new Map<number, [number, Recommitment][]>();
  t.recommitments.forEach((r, i) => {
    if (++counts[r.seat]! > MAX_RECOMMITMENTS) {
      throw new TranscriptError('recommitment', `seat ${r.seat} re-committed ${counts[r.seat]} times (at most ${MAX_RECOMMITMENTS} per game)`, null, r.seat);
    }
    if (r.applies_from > t.rolls.length + 1) {
      throw new TranscriptError('recommitment', `recommitments[${i}] applies from roll ${r.applies_from} but the game has only ${t.rolls.length} rolls`, null, r.seat);
    }
    byApplies.set(r.applies_from, [...(byApplies.get(r.applies_from) ?? []), [i, r]]);
  });
  const sources = ['its commitment', 'its commitment'];
  const applyRecommitments = (k: number) => {
    for (const [i, r] of byApplies.get(k) ?? []) {
      if (zero(r.commitment)) throw new TranscriptError('commitment', `seat ${r.seat} re-commitment recommitments[${i}] is all zero bytes`, k, r.seat);
      if (constantTimeEqual(r.commitment, heads[1 - r.seat]!)) {
        throw new TranscriptError('commitment', `seat ${r.seat} re-commitment recommitments[${i}] equals seat ${1 - r.seat}'s current link`, k, r.seat);
      }
      heads[r.seat] = r.commitment;
      sources[r.seat] = `its re-commitment (recommitments[${i}])`;
    }
  };
  // rolls: the backgammon family plays the deciding roll-off roll; a Greek game's roll-off
  // only decides who rolls first; with an opener there is no roll-off at all.
  const reroll = RULES[t.variant].opening === 'reroll';
  let firstMover: Seat | null = t.opener;
  let decidedAt: number | null = t.opener === null ? null : 0;
  let rolloffRolls = 0;
  const movers = new Map<number, Seat>();
  for (const [index, roll] of t.rolls.entries()) {
    const k = index + 1;
    if (roll.k !== k) throw new TranscriptError('sequence', `rolls[${index}] has k ${roll.k}, expected ${k}: roll indexes must be 1, 2, 3, ...`);
    applyRecommitments(k);
    for (const seat of [0, 1] as const) {
      if (!(await linkOk(t, seat, k, roll.reveals[seat], heads[seat]!))) {
        throw new TranscriptError('link', `seat ${seat} reveal does not hash to ${sources[seat]}`, k, seat);
      }
      heads[seat] = roll.reveals[seat];
      sources[seat] = 'its previous link';
    }
    const [d1, d2] = await deriveDice(t.matchId, t.gameNo, k, roll.reveals[0], roll.reveals[1]);
    if (roll.d1 !== d1 || roll.d2 !== d2) throw new TranscriptError('dice', `recorded dice ${roll.d1}-${roll.d2} but derived ${d1}-${d2}`, k);
    if (firstMover === null) {
      if (roll.kind !== 'rolloff') throw new TranscriptError('rolloff', `kind is '${roll.kind}' but the roll-off is not decided yet`, k);
      if (roll.roller !== null) throw new TranscriptError('rolloff', `a roll-off roll has roller null, got seat ${roll.roller}`, k);
      rolloffRolls++;
      firstMover = rollOffWinner(d1, d2);
      if (firstMover !== null) {
        decidedAt = k;
        if (!reroll) movers.set(k, firstMover);
      }
      continue;
    }
    if (roll.kind !== 'turn') {
      const won = decidedAt === 0 ? `seat ${firstMover} opens this game, without one` : `the roll-off was decided at roll ${decidedAt}`;
      throw new TranscriptError('rolloff', `kind is 'rolloff' but ${won}`, k);
    }
    const expected = rollerOf(firstMover, reroll, k - decidedAt! - 1);
    if (roll.roller !== expected) {
      throw new TranscriptError('rolloff', `roller is ${seatName(roll.roller)} but seat ${expected} rolls`, k, roll.roller);
    }
    movers.set(k, expected);
  }
  applyRecommitments(t.rolls.length + 1);
  checkOrder(t);
  const order: Order = { firstMover, decidedAt, reroll };
  checkActions(t, order, movers);
  await checkResult(t, heads);
  const plays = replay ? replayPlays(t, movers) : 0;
  return {
    matchId: toHex(t.matchId),
    gameNo: t.gameNo,
    rolls: t.rolls.length,
    rolloffRolls,
    firstMover,
    recommitments: t.recommitments.length,
    actions: t.actions.length,
    playsReplayed: plays,
    result: { winner: t.result.winner, reason: t.result.reason, points: t.result.points },
  };
}

function checkOrder(t: Transcript): void {
  const events: [number, number, string][] = t.commitments.map((c, i) => [c.v, c.t, `commitments[${i}]`]);
  for (const [name, items] of [
    ['recommitments', t.recommitments],
    ['rolls', t.rolls],
    ['actions', t.actions],
  ] as const) {
    items.forEach((item, i) => {
      if (i && item.v <= items[i - 1]!.v) throw new TranscriptError('order', `${name}[${i}] has v ${item.v}, not after ${name}[${i - 1}]`);
      events.push([item.v, item.t, `${name}[${i}]`]);
    });
  }
  events.push([t.result.v, t.result.t, 'result']);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : 1));
  for (let i = 1; i < events.length; i++) {
    const [v0, t0, n0] = events[i - 1]!;
    const [v1, t1, n1] = events[i]!;
    if (v0 === v1) throw new TranscriptError('order', `${n0} and ${n1} have the same v ${v0}`);
    if (t1 < t0) throw new TranscriptError('order', `time goes backwards: ${n1} (v ${v1}) has t ${t1}, before ${n0}`);
  }
  if (events[events.length - 1]![2] !== 'result') throw new TranscriptError('order', `${events[events.length - 1]![2]} comes after the result`);
  const lastCommit = Math.max(t.commitments[0].v, t.commitments[1].v);
  if (t.rolls.length && t.rolls[0]!.v < lastCommit) throw new TranscriptError('order', 'roll 1 comes before both commitments', 1);
  t.recommitments.forEach((r, i) => {
    const lo = Math.max(lastCommit, r.applies_from > 1 ? t.rolls[r.applies_from - 2]!.v : -1);
    const hi = r.applies_from <= t.rolls.length ? t.rolls[r.applies_from - 1]!.v : null;
    if (r.v < lo || (hi !== null && r.v > hi)) {
      throw new TranscriptError('order', `recommitments[${i}] (v ${r.v}) is not between its rolls`, null, r.seat);
    }
  });
}

function checkActions(t: Transcript, order: Order, movers: Map<number, Seat>): void {
  const firstMover = order.firstMover;
  const moved = new Map<number, number>();
  const revealed = new Map<string, number>();
  t.actions.forEach((a, i) => {
    const path = `actions[${i}]`;
    if (a.type !== 'move' && a.type !== 'roll' && a.type !== 'reveal') return;
    const k = a.k!;
    if (a.type === 'reveal') {
      checkReveal(t, order, a, path, k, revealed);
      revealed.set(`${k}:${a.seat}`, i);
      return;
    }
    if (a.type === 'move') {
      if (k > t.rolls.length) throw new TranscriptError('action', `${path} is a move for roll ${k}, which does not exist`);
      const mover = movers.get(k);
      if (mover === undefined) throw new TranscriptError('action', `${path} is a move for a roll-off tie, which nobody plays`, k);
      if (a.seat !== mover) throw new TranscriptError('action', `${path}: ${seatName(a.seat)} moved but seat ${mover} plays this roll`, k, a.seat);
      if (moved.has(k)) throw new TranscriptError('action', `${path} is a second move for this roll`, k);
      const after = t.rolls[k - 1]!.v;
      const before = k < t.rolls.length ? t.rolls[k]!.v : null;
      if (a.v < after || (before !== null && a.v > before)) throw new TranscriptError('order', `${path} is not between this roll and the next`, k);
      moved.set(k, i);
      return;
    }
    let expected: Seat | null;
    if (k > t.rolls.length + 1) throw new TranscriptError('action', `${path} asks for roll ${k}, beyond the next roll`);
    if (k <= t.rolls.length) {
      const roll = t.rolls[k - 1]!;
      expected = roll.roller;
      if (roll.kind !== 'turn') throw new TranscriptError('action', `${path} asks for a roll-off roll`, k);
      if (a.v > roll.v) throw new TranscriptError('order', `${path} comes after the roll it asks for`, k);
    } else if (firstMover === null) {
      throw new TranscriptError('action', `${path} asks for a turn roll before the roll-off`, k);
    } else {
      expected = rollerAt(order, k);
    }
    if (a.seat !== expected) throw new TranscriptError('action', `${path}: ${seatName(a.seat)} asked for the roll but seat ${expected} rolls`, k, a.seat);
    if (k > 1 && a.v < t.rolls[k - 2]!.v) throw new TranscriptError('order', `${path} comes before the previous roll`, k);
    t.recommitments.forEach((r, j) => {
      if (r.applies_from === k && r.v > a.v) {
        throw new TranscriptError('order', `recommitments[${j}] (v ${r.v}) for roll ${k} was made after the roller's ${path} (v ${a.v})`, k, r.seat);
      }
    });
  });
}

/**
 * A `reveal` action: a seat's reveal for roll `k` that arrived before the roll (in the roll-off,
 * or deposited ahead in a correspondence match: docs/fairness.md, section 15). After both
 * commitments, before its roll; for a turn roll the roller's opponent's, after the previous
 * roll; no re-commitment for roll `k` after it.
 */
function checkReveal(
  t: Transcript,
  order: Order,
  a: Action,
  path: string,
  k: number,
  revealed: Map<string, number>,
): void {
  const seat = a.seat;
  if (k > t.rolls.length + 1) throw new TranscriptError('action', `${path} reveals for roll ${k}, beyond the next roll`);
  if (revealed.has(`${k}:${seat}`)) throw new TranscriptError('action', `${path} is a second reveal of seat ${seat} for roll ${k}`, k, seat);
  const lastCommit = Math.max(t.commitments[0].v, t.commitments[1].v);
  if (a.v < lastCommit) throw new TranscriptError('order', `${path} reveals for roll ${k} before both commitments`, k, seat);
  let turn = false;
  let roller: Seat | null = null;
  if (k <= t.rolls.length) {
    const roll = t.rolls[k - 1]!;
    if (a.v > roll.v) throw new TranscriptError('order', `${path} comes after the roll it completes`, k, seat);
    turn = roll.kind === 'turn';
    roller = roll.roller;
  } else if (order.firstMover !== null) {
    turn = true;
    roller = rollerAt(order, k);
  }
  if (turn) {
    if (seat === roller) throw new TranscriptError('action', `${path}: seat ${seat} rolls roll ${k}: its reveal comes with its roll`, k, seat);
    if (k > 1 && a.v < t.rolls[k - 2]!.v) throw new TranscriptError('order', `${path} comes before the previous roll`, k, seat);
  }
  t.recommitments.forEach((r, j) => {
    if (r.applies_from === k && r.v > a.v) {
      throw new TranscriptError('order', `recommitments[${j}] (v ${r.v}) for roll ${k} was made after seat ${seat}'s reveal ${path} (v ${a.v}) was held`, k, r.seat);
    }
  });
}

async function checkResult(t: Transcript, heads: Uint8Array[]): Promise<void> {
  const r = t.result;
  if (r.points !== r.multiplier * r.cube) throw new TranscriptError('result', `result: points ${r.points} is not multiplier ${r.multiplier} x cube ${r.cube}`);
  if ((r.winner === null) !== (r.reason === 'mothers')) throw new TranscriptError('result', 'result: only a drawn game (mothers) has no winner');
  if ((r.reason === 'mother' || r.reason === 'mothers') && t.variant !== 'plakoto') {
    throw new TranscriptError('result', `result: '${r.reason}' ends only a plakoto game, not ${t.variant}`);
  }
  if ((r.cube !== 1 || r.reason === 'drop') && !RULES[t.variant].cube) {
    throw new TranscriptError('result', `result: ${t.variant} has no cube (cube 1, no drop)`);
  }
  if (r.reason === 'drop' && r.multiplier !== 1) throw new TranscriptError('result', 'result: a dropped double scores multiplier 1');
  if (r.reason !== 'invalid_reveal') {
    if (r.evidence !== null) throw new TranscriptError('evidence', `result: evidence given for a '${r.reason}' result`);
    return;
  }
  const e = r.evidence;
  if (e === null) throw new TranscriptError('evidence', 'result: an invalid_reveal forfeit must keep the bad reveal as evidence');
  const k = t.rolls.length + 1;
  if (e.k !== k) throw new TranscriptError('evidence', `result.evidence is for roll ${e.k} but the pending roll was ${k}`);
  if (r.winner === null || e.seat !== 1 - r.winner) {
    throw new TranscriptError('evidence', `result.evidence names seat ${e.seat}, but the forfeiting seat is ${r.winner === null ? 'null' : 1 - r.winner}`);
  }
  if (await linkOk(t, e.seat, k, e.reveal, heads[e.seat]!)) {
    throw new TranscriptError('evidence', `seat ${e.seat} evidence reveal does hash to its previous link: the forfeit was not justified`, k, e.seat);
  }
}

/** Is `moves` (in order) a legal play of d1-d2 from `position`? Returns the position after. */
function legalPlay(rules: VariantRules, position: Position, d1: number, d2: number, moves: readonly Move[]): Position | null {
  const plays = legalPlaysOf(rules, position, d1, d2);
  if (plays.length === 0) return moves.length === 0 ? position : null;
  let at = position;
  for (const m of moves) {
    if (![1, 2, 3, 4, 5, 6].some((d) => rules.singleMoves(at, d).some(([a, b]) => a === m[0] && b === m[1]))) return null;
    at = rules.applyMove(at, m);
  }
  const key = positionKey(at);
  return moves.length === plays[0]!.moves.length && plays.some((p) => positionKey(p.position) === key) ? at : null;
}

function replayPlays(t: Transcript, movers: Map<number, Seat>): number {
  const rules = RULES[t.variant];
  const moves = new Map(t.actions.filter((a) => a.type === 'move').map((a) => [a.k!, a]));
  const start = rules.start();
  const boards: [Board, Board] = [start.mover, start.opponent];
  const pinned: [number, number] = [0, 0];
  const played = [...movers.entries()].sort((a, b) => a[0] - b[0]);
  let plays = 0;
  let bearOff: { seat: Seat | null; multiplier: number; k: number; finish: string } | null = null;
  for (const [index, [k, seat]] of played.entries()) {
    const roll = t.rolls[k - 1]!;
    const o = (1 - seat) as Seat;
    const position: Position = { mover: boards[seat], opponent: boards[o], moverPinned: pinned[seat], opponentPinned: pinned[o] };
    const action = moves.get(k);
    const last = index === played.length - 1;
    let list: readonly Move[] = [];
    if (!action) {
      const legal = legalPlaysOf(rules, position, roll.d1, roll.d2).length > 0;
      if (legal && !last) throw new TranscriptError('action', `no move recorded for seat ${seat} (${roll.d1}-${roll.d2}), which had legal plays`, k, seat);
      if (legal) break; // the game ended before the play
    } else list = action.moves ?? [];
    const after = legalPlay(rules, position, roll.d1, roll.d2, list);
    if (!after) {
      const text = list.length ? list.map(([a, b]) => `${a === BAR ? 'bar' : a}/${b === OFF ? 'off' : b}`).join(' ') : '(no move)';
      throw new TranscriptError('play', `seat ${seat} play ${text} with ${roll.d1}-${roll.d2} is not legal`, k, seat);
    }
    plays++;
    boards[seat] = after.mover;
    boards[o] = after.opponent;
    pinned[seat] = after.moverPinned ?? 0;
    pinned[o] = after.opponentPinned ?? 0;
    const ending = rules.ending(after);
    if (ending) {
      if (!last) {
        const how = ending.finish === 'bear_off' ? `seat ${seat} bore off all` : `it ended by '${ending.finish}'`;
        throw new TranscriptError('result', `a roll after the game was over (${how} at roll ${k})`, played[index + 1]![0]);
      }
      const winner = ending.winner === null ? null : ending.winner === 'mover' ? seat : o;
      bearOff = { seat: winner, multiplier: ending.points, k, finish: ending.finish };
    }
  }
  const r = t.result;
  if (bearOff) {
    if (r.reason !== bearOff.finish || r.winner !== bearOff.seat) {
      const happened = bearOff.finish === 'bear_off' ? `seat ${bearOff.seat} bore off all checkers` : `the game ended by '${bearOff.finish}'`;
      throw new TranscriptError('result', `result: ${happened} at roll ${bearOff.k}, but the result says ${seatName(r.winner)} won by '${r.reason}'`);
    }
    // Under the Jacoby rule an uncubed gammon or backgammon counts as a single (the match rules'
    // resultPoints, held to the engine by test/fixtures/match-rules.json).
    const scores = bearOff.multiplier && resultPoints(bearOff.multiplier as ResultLevel, 1, 'bear_off', t.jacoby, r.cube !== 1);
    const why = scores !== bearOff.multiplier ? ` (a ${bearOff.multiplier === 3 ? 'backgammon' : 'gammon'} with the cube never turned: a single under the Jacoby rule)` : '';
    if (r.multiplier !== scores) throw new TranscriptError('result', `result: multiplier ${r.multiplier} but the final position scores ${scores}${why}`);
  } else if (r.reason === 'bear_off' || r.reason === 'mother' || r.reason === 'mothers') {
    throw new TranscriptError('result', `result: '${r.reason}' but the replay did not end that way`);
  }
  return plays;
}
