/**
 * One seat's own chain (kept by its client) and a verifier that follows both seats' reveals.
 */

import { type ChainContext, CHAIN_LENGTH, type Seat, buildChain, deriveDice, verifyLink } from './scheme';

/**
 * A client's own hash chain: the value to publish, then one reveal per roll.
 *
 * A chain made at the start of a game serves rolls 1, 2, … and is published as its commitment
 * s[0]. A chain made for a re-commitment (docs/fairness.md, section 7) serves rolls from `from`
 * = k0 on and is published as s'[k0 − 1]; its reveal for roll k is still s'[k] (the index is
 * always the roll index), so its length must be at least k0.
 */
export class OwnChain {
  private constructor(
    readonly ctx: ChainContext,
    private readonly links: Uint8Array[],
    /** The first roll index this chain serves (1, or k0 after a re-commitment). */
    readonly from: number,
  ) {}

  /** Build the chain from its secret top s[N] (kept in storage so a reload can rebuild it). */
  static async create(ctx: ChainContext, top: Uint8Array, n: number = CHAIN_LENGTH, from = 1): Promise<OwnChain> {
    if (!Number.isInteger(from) || from < 1 || from > n) throw new RangeError(`a chain of ${n} links cannot serve roll ${from}`);
    return new OwnChain(ctx, await buildChain(ctx, top, n), from);
  }

  get length(): number {
    return this.links.length - 1;
  }

  /** What the seat publishes: s[0] (commitment), or s'[k0 − 1] (re-commitment from roll k0). */
  get commitment(): Uint8Array {
    return this.links[this.from - 1]!;
  }

  /** s[i], 0 ≤ i ≤ N. */
  link(i: number): Uint8Array {
    if (!Number.isInteger(i) || i < 0 || i > this.length) throw new RangeError(`no link ${i}`);
    return this.links[i]!;
  }

  /** s[k], the reveal for roll k (k ≥ from). */
  reveal(k: number): Uint8Array {
    if (!Number.isInteger(k) || k < this.from || k > this.length) throw new RangeError(`no reveal ${k}`);
    return this.links[k]!;
  }
}

export type RollCheck =
  | { ok: true; dice: [number, number] }
  | { ok: false; reason: 'bad_link_seat0' | 'bad_link_seat1' | 'dice_mismatch' | 'out_of_order' };

/**
 * State of a roll's check as a client shows it: 'pending' until both reveals were verified
 * against the commitments, 'verified' after, 'alarm' on any mismatch, 'unverified' for dice that
 * carry no proof (local test dice).
 */
export type DiceCheck = 'pending' | 'verified' | 'alarm' | 'unverified';

/**
 * Checks every published roll of one game against both commitments, as players and
 * spectators do: each reveal must hash to the previous link of its seat and the announced dice
 * must be the ones derived from the two reveals.
 */
export class RollVerifier {
  private last: [Uint8Array, Uint8Array];
  private nextK = 1;

  constructor(
    readonly matchId: Uint8Array,
    readonly gameNo: number,
    commitments: readonly [Uint8Array, Uint8Array],
  ) {
    this.last = [commitments[0], commitments[1]];
  }

  /** The roll index the verifier expects next. */
  get expected(): number {
    return this.nextK;
  }

  /** A seat re-committed a fresh chain (lost secret): its next reveal links to `commitment`. */
  recommit(seat: Seat, commitment: Uint8Array): void {
    this.last[seat] = commitment;
  }

  /**
   * Verify roll k with both reveals and the announced dice. On success the reveals become the
   * links the next roll must hash to; on failure nothing changes.
   */
  async check(
    k: number,
    reveals: readonly [Uint8Array, Uint8Array],
    announced: readonly [number, number],
  ): Promise<RollCheck> {
    if (k !== this.nextK) return { ok: false, reason: 'out_of_order' };
    for (const seat of [0, 1] as const) {
      const ctx = { matchId: this.matchId, gameNo: this.gameNo, seat };
      if (!(await verifyLink(ctx, k, reveals[seat], this.last[seat]))) {
        return { ok: false, reason: seat === 0 ? 'bad_link_seat0' : 'bad_link_seat1' };
      }
    }
    const dice = await deriveDice(this.matchId, this.gameNo, k, reveals[0], reveals[1]);
    if (dice[0] !== announced[0] || dice[1] !== announced[1]) return { ok: false, reason: 'dice_mismatch' };
    this.last = [reveals[0], reveals[1]];
    this.nextK = k + 1;
    return { ok: true, dice };
  }
}
