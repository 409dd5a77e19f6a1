/**
 * Live verification of one game's rolls as they are published, for players and spectators
 * alike: each reveal must hash back to the last link known for its seat (its commitment, its
 * re-commitment or its previous reveal), and the announced dice must be the ones derived from
 * the two reveals (docs/fairness.md, section 4 step 6).
 *
 * A client that joined part way (a snapshot: no earlier reveals) still verifies the first roll
 * it sees against the commitments, by hashing its reveal down the chain to s[0] (k hashes).
 * Checks run one after another (each roll's links depend on the previous one).
 */

import { chainLink, constantTimeEqual, type DiceCheck, deriveDice, type Seat } from '../fairdice';

/** The furthest a reveal may be from the last known link (a game never gets near). */
const MAX_GAP = 4096;

interface Known {
  /** Index of the known link: 0 for a commitment, k - 1 for a re-commitment applying from k. */
  readonly k: number;
  readonly link: Uint8Array;
}

export interface RollToCheck {
  readonly k: number;
  readonly reveals: readonly [Uint8Array, Uint8Array];
  readonly dice: readonly [number, number];
}

export interface Verdict {
  readonly check: DiceCheck;
  /** Why: e.g. "seat 1 reveal does not hash to its previous link". */
  readonly why: string;
}

export class LiveVerifier {
  private known: [Known | null, Known | null] = [null, null];
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly matchId: Uint8Array,
    readonly gameNo: number,
  ) {}

  /** Both commitments s[0] (published together). */
  commit(c0: Uint8Array, c1: Uint8Array): void {
    this.known = [
      { k: 0, link: c0 },
      { k: 0, link: c1 },
    ];
  }

  /**
   * `seat` re-committed: its reveal for roll `fromK` hashes to `commitment`. Queued after the
   * checks of the rolls before it (a burst of events can deliver the re-commitment while the
   * check of roll `fromK − 1` is still running).
   */
  recommit(seat: Seat, commitment: Uint8Array, fromK: number): void {
    void this.then(() => (this.known[seat] = { k: fromK - 1, link: commitment }));
  }

  /** `seat`'s link at index `k` is `link` (a snapshot's heads): its next reveal hashes to it. */
  anchor(seat: Seat, k: number, link: Uint8Array): void {
    void this.then(() => (this.known[seat] = { k, link }));
  }

  /** Nothing is known to check `seat`'s next reveal against (a re-commitment before we joined). */
  forget(seat: Seat): void {
    void this.then(() => (this.known[seat] = null));
  }

  /** Run `step` after everything queued so far; a failure does not stop the queue. */
  private then<T>(step: () => T | Promise<T>): Promise<T> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Resolves once every check queued so far has finished. */
  idle(): Promise<unknown> {
    return this.queue;
  }

  /** Check a published roll (queued after the earlier ones). */
  check(roll: RollToCheck): Promise<Verdict> {
    return this.then(() => this.run(roll));
  }

  private async run(roll: RollToCheck): Promise<Verdict> {
    let unknown = false;
    const after: [Known | null, Known | null] = [null, null];
    for (const seat of [0, 1] as const) {
      const reveal = roll.reveals[seat];
      const known = this.known[seat];
      after[seat] = { k: roll.k, link: reveal };
      if (known === null) {
        unknown = true;
        continue;
      }
      const gap = roll.k - known.k;
      if (gap < 1 || gap > MAX_GAP) return { check: 'alarm', why: `roll ${roll.k} is out of order for seat ${seat}` };
      let link = reveal;
      for (let i = roll.k; i > known.k; i--) {
        link = await chainLink({ matchId: this.matchId, gameNo: this.gameNo, seat }, i, link);
      }
      if (!constantTimeEqual(link, known.link)) {
        const to = known.k === 0 ? 'its commitment' : 'its previous link';
        return { check: 'alarm', why: `roll ${roll.k}: seat ${seat} reveal does not hash to ${to}` };
      }
    }
    const dice = await deriveDice(this.matchId, this.gameNo, roll.k, roll.reveals[0], roll.reveals[1]);
    if (dice[0] !== roll.dice[0] || dice[1] !== roll.dice[1]) {
      return { check: 'alarm', why: `roll ${roll.k}: announced ${roll.dice.join('-')} but the reveals give ${dice.join('-')}` };
    }
    this.known = after;
    if (unknown) return { check: 'unverified', why: `roll ${roll.k}: a seat's earlier link is unknown here` };
    return { check: 'verified', why: `roll ${roll.k}: both links and the dice check out` };
  }
}
