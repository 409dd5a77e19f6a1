/**
 * Fair dice, scheme v1 of docs/fairness (commit-reveal with per-player hash chains).
 *
 * H = SHA-256 and ‖ = concatenation of fixed-length fields:
 *   chain link  s[i-1] = H("fairgammon/v1/chain" ‖ match_id ‖ u32be(game_no) ‖ seat ‖ u32be(i) ‖ s[i])
 *   roll seed   seed_k = H("fairgammon/v1/roll" ‖ match_id ‖ u32be(game_no) ‖ u32be(k) ‖ s0[k] ‖ s1[k])
 *   dice block  H("fairgammon/v1/dice" ‖ seed_k ‖ u32be(ctr)), ctr = 0, 1, …: bytes < 252 are
 *               kept in order, die = byte % 6 + 1, until two dice are taken (exact, no bias).
 * The commitment is s[0]; roll k reveals s[k], which hashes to the previously known s[k-1].
 */

import type { Seat } from '../engine/seat';
import { ascii, concat, constantTimeEqual, sha256, u32be } from './bytes';

export const SCHEME = 'fairgammon/v1';
export const CHAIN_LENGTH = 1024;
export const SECRET_BYTES = 32;
export const MATCH_ID_BYTES = 16;
/** Re-commitments allowed per seat and game (docs/fairness.md, section 7). */
export const MAX_RECOMMITMENTS = 3;

const CHAIN_TAG = ascii('fairgammon/v1/chain');
const ROLL_TAG = ascii('fairgammon/v1/roll');
const DICE_TAG = ascii('fairgammon/v1/dice');
const LIMIT = 252; // the largest multiple of 6 not above 256

export type { Seat };

/** What binds a chain to one seat of one game of one match. */
export interface ChainContext {
  readonly matchId: Uint8Array;
  readonly gameNo: number;
  readonly seat: Seat;
}

function checkContext(ctx: ChainContext): void {
  if (ctx.matchId.length !== MATCH_ID_BYTES) throw new Error('match id must be 16 bytes');
  if (ctx.seat !== 0 && ctx.seat !== 1) throw new Error('seat must be 0 or 1');
}

function checkSecret(value: Uint8Array, what = 'secret'): void {
  if (value.length !== SECRET_BYTES) throw new Error(`${what} must be ${SECRET_BYTES} bytes`);
}

/** A fresh 32-byte chain top s[N] from the browser's CSPRNG. */
export function newSecret(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(SECRET_BYTES));
}

/** s[i-1] from s[i]. */
export async function chainLink(ctx: ChainContext, i: number, secret: Uint8Array): Promise<Uint8Array> {
  checkContext(ctx);
  checkSecret(secret);
  return sha256(
    concat(CHAIN_TAG, ctx.matchId, u32be(ctx.gameNo), new Uint8Array([ctx.seat]), u32be(i), secret),
  );
}

/** The whole chain s[0..n] from its top s[n]; s[0] is the commitment. */
export async function buildChain(
  ctx: ChainContext,
  top: Uint8Array,
  n: number = CHAIN_LENGTH,
): Promise<Uint8Array[]> {
  const chain = new Array<Uint8Array>(n + 1);
  chain[n] = top;
  for (let i = n; i >= 1; i--) chain[i - 1] = await chainLink(ctx, i, chain[i]!);
  return chain;
}

/** True when `reveal` (claimed s[k]) hashes to the known s[k-1]. */
export async function verifyLink(
  ctx: ChainContext,
  k: number,
  reveal: Uint8Array,
  previous: Uint8Array,
): Promise<boolean> {
  if (reveal.length !== SECRET_BYTES || previous.length !== SECRET_BYTES || k < 1) return false;
  return constantTimeEqual(await chainLink(ctx, k, reveal), previous);
}

/** seed_k from both seats' reveals for roll k (seat order, not arrival order). */
export async function rollSeed(
  matchId: Uint8Array,
  gameNo: number,
  k: number,
  seat0: Uint8Array,
  seat1: Uint8Array,
): Promise<Uint8Array> {
  checkContext({ matchId, gameNo, seat: 0 });
  checkSecret(seat0, 'seat 0 reveal');
  checkSecret(seat1, 'seat 1 reveal');
  return sha256(concat(ROLL_TAG, matchId, u32be(gameNo), u32be(k), seat0, seat1));
}

/** Dice block `ctr` of a roll seed: H("fairgammon/v1/dice" ‖ seed ‖ u32be(ctr)). */
export async function diceBlock(seed: Uint8Array, ctr: number): Promise<Uint8Array> {
  return sha256(concat(DICE_TAG, seed, u32be(ctr)));
}

/**
 * The rejection sampler alone: read the blocks' bytes in order, skip bytes >= 252, die =
 * byte % 6 + 1, stop after two dice. Returns null when the blocks run out first.
 */
export function sampleDice(blocks: Iterable<Uint8Array>): [number, number] | null {
  const dice: number[] = [];
  for (const block of blocks) {
    for (const byte of block) {
      if (byte < LIMIT) {
        dice.push((byte % 6) + 1);
        if (dice.length === 2) return [dice[0]!, dice[1]!];
      }
    }
  }
  return null;
}

/** Two unbiased dice from a roll seed, by rejection sampling over the dice blocks. */
export async function diceFromSeed(seed: Uint8Array): Promise<[number, number]> {
  const blocks: Uint8Array[] = [];
  for (let ctr = 0; ; ctr++) {
    blocks.push(await diceBlock(seed, ctr));
    const dice = sampleDice(blocks);
    if (dice) return dice;
  }
}

/** The dice of roll k. */
export async function deriveDice(
  matchId: Uint8Array,
  gameNo: number,
  k: number,
  seat0: Uint8Array,
  seat1: Uint8Array,
): Promise<[number, number]> {
  return diceFromSeed(await rollSeed(matchId, gameNo, k, seat0, seat1));
}

/** The opening roll-off: d1 is seat 0's die, d2 seat 1's; null on a tie (roll again). */
export function rollOffWinner(d1: number, d2: number): Seat | null {
  if (d1 === d2) return null;
  return d1 > d2 ? 0 : 1;
}
