/**
 * Where a local game's dice come from: both seats' fair-dice chains on this device (the same
 * scheme and verification the network game uses), or a fixed script for tests and practice.
 */

import {
  MATCH_ID_BYTES,
  OwnChain,
  RollVerifier,
  deriveDice,
  newSecret,
  toHex,
} from '../fairdice';
import type { DiceCheck, FairnessRoll } from './gameView';

export interface LocalRoll {
  readonly values: [number, number];
  readonly check: DiceCheck;
  readonly record: FairnessRoll | null;
}

export interface DiceSource {
  /** Prepare game `gameNo`; returns the hex commitments (null when the dice carry no proof). */
  startGame(gameNo: number): Promise<[string, string] | null>;
  /** Roll k of the current game. */
  roll(k: number): Promise<LocalRoll>;
}

/**
 * Fair dice with both chains held locally (hot seat). `tamperRoll` makes the announcement of
 * that roll index wrong on purpose, to show the alarm a client raises on a mismatch.
 */
export class LocalFairDice implements DiceSource {
  private matchId: Uint8Array = crypto.getRandomValues(new Uint8Array(MATCH_ID_BYTES));
  private gameNo = 0;
  private chains: [OwnChain, OwnChain] | null = null;
  private verifier: RollVerifier | null = null;
  /** Both seats' secrets of the current game and the last roll made (to save the game). */
  private secrets: [Uint8Array, Uint8Array] | null = null;
  private lastK = 0;

  constructor(
    private readonly chainLength = 256,
    private readonly tamperRoll: number | null = null,
  ) {}

  async startGame(gameNo: number, secrets: [Uint8Array, Uint8Array] = [newSecret(), newSecret()]): Promise<[string, string]> {
    this.gameNo = gameNo;
    this.secrets = secrets;
    this.lastK = 0;
    const chains = await Promise.all(
      ([0, 1] as const).map((seat) =>
        OwnChain.create({ matchId: this.matchId, gameNo, seat }, secrets[seat], this.chainLength),
      ),
    );
    this.chains = [chains[0]!, chains[1]!];
    this.verifier = new RollVerifier(this.matchId, gameNo, [chains[0]!.commitment, chains[1]!.commitment]);
    return [toHex(chains[0]!.commitment), toHex(chains[1]!.commitment)];
  }

  /** What a saved game needs to roll on with the same chains (null before the first game). */
  save(): SavedDice | null {
    if (!this.secrets) return null;
    return { matchId: toHex(this.matchId), gameNo: this.gameNo, secrets: [toHex(this.secrets[0]), toHex(this.secrets[1])], k: this.lastK };
  }

  /** The same chains again, the verifier brought up to roll `k` by checking each roll so far. */
  static async restore(saved: SavedDice, chainLength: number): Promise<LocalFairDice> {
    const dice = new LocalFairDice(chainLength);
    dice.matchId = fromHex(saved.matchId);
    await dice.startGame(saved.gameNo, [fromHex(saved.secrets[0]), fromHex(saved.secrets[1])]);
    for (let k = 1; k <= saved.k; k++) {
      const roll = await dice.roll(k);
      if (roll.check !== 'verified') throw new Error(`saved dice do not verify at roll ${k}`);
    }
    return dice;
  }

  async roll(k: number): Promise<LocalRoll> {
    if (!this.chains || !this.verifier) throw new Error('startGame first');
    const reveals: [Uint8Array, Uint8Array] = [this.chains[0].reveal(k), this.chains[1].reveal(k)];
    let values = await deriveDice(this.matchId, this.gameNo, k, reveals[0], reveals[1]);
    if (k === this.tamperRoll) values = [(values[0] % 6) + 1, values[1]];
    const result = await this.verifier.check(k, reveals, values);
    const check: DiceCheck = result.ok ? 'verified' : 'alarm';
    this.lastK = k;
    return {
      values,
      check,
      record: { k, reveals: [toHex(reveals[0]), toHex(reveals[1])], dice: values, check },
    };
  }
}

/** What a saved local game keeps of its dice: the match id, the game, both secrets, the last roll. */
export interface SavedDice {
  readonly matchId: string;
  readonly gameNo: number;
  readonly secrets: readonly [string, string];
  readonly k: number;
}

const fromHex = (hex: string): Uint8Array => Uint8Array.from(hex.match(/../g) ?? [], (b) => parseInt(b, 16));

/** Dice from a script ("31,66,52": roll-off dice first), for tests and set-up positions. */
export class ScriptedDice implements DiceSource {
  private at = 0;

  constructor(private readonly script: readonly [number, number][]) {}

  static parse(text: string): [number, number][] {
    return text
      .split(/[,\s]+/)
      .filter(Boolean)
      .map((pair) => {
        const m = /^([1-6])-?([1-6])$/.exec(pair);
        if (!m) throw new Error(`bad dice ${pair}`);
        return [Number(m[1]), Number(m[2])] as [number, number];
      });
  }

  async startGame(): Promise<null> {
    return null;
  }

  /** The next scripted pair; past the end of the script, unbiased random dice. */
  async roll(): Promise<LocalRoll> {
    const next = this.script[this.at];
    this.at++;
    const values: [number, number] = next ? [next[0], next[1]] : [randomDie(), randomDie()];
    return { values, check: 'unverified', record: null };
  }
}

/** One unbiased die from the CSPRNG (rejection sampling: 256 is not a multiple of 6). */
export function randomDie(): number {
  const byte = new Uint8Array(1);
  do crypto.getRandomValues(byte);
  while (byte[0]! >= 252);
  return (byte[0]! % 6) + 1;
}
