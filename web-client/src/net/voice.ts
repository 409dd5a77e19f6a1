/**
 * The session's notices as the player on this device should read them: a sentence about a
 * player is worded twice where it is made, once for everyone ("Ann takes: …") and once for Ann
 * herself ("You take: …"); the view picks by seat, so equal or unknown names do not matter.
 */

import type { Seat } from '../engine/seat';

/** A notice's words: `text` for everyone, `about.you` for the player of `about.seat`. */
export interface Words {
  readonly text: string;
  readonly about?: { readonly seat: Seat; readonly you: string };
}

/** A sentence about a seat's player: `verb` is [third person, second person]. */
export function aboutSeat(seat: Seat, name: string, verb: readonly [string, string], rest: string): Words {
  return { text: `${name} ${verb[0]}${rest}`, about: { seat, you: `You ${verb[1]}${rest}` } };
}

/** The words for the viewer (a seat, or null for a spectator). */
export function personal(words: Words, viewer: Seat | null): string {
  return viewer !== null && words.about?.seat === viewer ? words.about.you : words.text;
}
