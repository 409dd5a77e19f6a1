/**
 * The two seats of a match, 0 and 1 (as the Python engine numbers them): the one type every
 * layer of the client shares, from the fair-dice chains and the wire up to the board.
 */

export type Seat = 0 | 1;

/** The other seat. */
export const other = (seat: Seat): Seat => (seat === 0 ? 1 : 0);
