/**
 * GNU Backgammon Position IDs, byte-identical with gnubg (and with engine/position_id.py).
 *
 * 80 bits in 14 base64 characters: for each side, for each of its points 1..24 and then its
 * bar, as many 1-bits as checkers followed by a 0-bit; bits fill each byte from the least
 * significant end. gnubg writes the side NOT on roll first.
 */

import { BAR, CHECKERS, SLOTS, type Board, type Position, PositionError, checkPosition } from './position';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const ID_LENGTH = 14;
const KEY_BYTES = 10;

export class PositionIdError extends Error {}

/** The 10-byte gnubg position key (opponent first, then mover). */
export function keyBytes(mover: Board, opponent: Board): Uint8Array {
  const key = new Uint8Array(KEY_BYTES);
  let bit = 0;
  for (const board of [opponent, mover]) {
    for (let p = 1; p <= BAR; p++) {
      for (let n = board[p]!; n > 0; n--) {
        key[bit >> 3]! |= 1 << (bit & 7);
        bit++;
      }
      bit++; // the 0-bit that ends this point
    }
  }
  return key;
}

function base64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const b0 = bytes[i]!;
    const b1 = bytes[i + 1] ?? 0;
    const b2 = bytes[i + 2] ?? 0;
    out += ALPHABET[b0 >> 2]! + ALPHABET[((b0 & 3) << 4) | (b1 >> 4)]!;
    out += ALPHABET[((b1 & 15) << 2) | (b2 >> 6)]! + ALPHABET[b2 & 63]!;
  }
  return out;
}

/** The gnubg Position ID of `position` (the mover is the player on roll). */
export function encodePositionId(position: Position): string {
  return base64(keyBytes(position.mover, position.opponent)).slice(0, ID_LENGTH);
}

/** The position a Position ID describes, seen by the player on roll; throws PositionIdError. */
export function decodePositionId(id: string): Position {
  if (typeof id !== 'string') throw new PositionIdError('a Position ID is a string');
  if (id.length !== ID_LENGTH) {
    throw new PositionIdError(`a Position ID has ${ID_LENGTH} characters, got ${id.length}`);
  }
  // 14 characters = 84 bits; the key uses the first 80.
  const bits: number[] = [];
  for (const ch of id) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) throw new PositionIdError(`not base64: ${JSON.stringify(id)}`);
    for (let k = 5; k >= 0; k--) bits.push((v >> k) & 1);
  }
  // base64 is big-endian within each byte; re-read as bytes, then take bits LSB first.
  const bytes = new Uint8Array(KEY_BYTES);
  for (let i = 0; i < KEY_BYTES * 8; i++) if (bits[i]) bytes[i >> 3]! |= 0x80 >> (i & 7);
  const bit = (i: number) => (bytes[i >> 3]! >> (i & 7)) & 1;
  const boards: number[][] = [];
  let shift = 0;
  for (const who of ['opponent', 'mover']) {
    const counts = new Array<number>(SLOTS).fill(0);
    for (let p = 1; p <= BAR; p++) {
      let n = 0;
      while (shift < 80 && bit(shift)) {
        n++;
        shift++;
      }
      if (shift >= 80) throw new PositionIdError(`truncated Position ID: ${JSON.stringify(id)}`);
      shift++;
      counts[p] = n;
    }
    const onBoard = counts.reduce((a, b) => a + b, 0);
    if (onBoard > CHECKERS) {
      throw new PositionIdError(`${who} has ${onBoard} checkers on the board (at most 15)`);
    }
    counts[0] = CHECKERS - onBoard;
    boards.push(counts);
  }
  for (let i = shift; i < 80; i++) {
    if (bit(i)) throw new PositionIdError(`stray bits after the last point: ${JSON.stringify(id)}`);
  }
  const position: Position = { mover: boards[1]!, opponent: boards[0]! };
  try {
    checkPosition(position);
  } catch (err) {
    if (err instanceof PositionError) throw new PositionIdError(err.message);
    throw err;
  }
  if (encodePositionId(position) !== id) {
    throw new PositionIdError(`non-canonical Position ID: ${JSON.stringify(id)}`);
  }
  return position;
}
