/**
 * The session's notices as the player on this device should read them: a sentence about a
 * player is worded twice where it is made, once for everyone ("Ann takes: …") and once for Ann
 * herself ("You take: …"); the view picks by seat, so equal or unknown names do not matter.
 */

import type { Seat } from '../engine/seat';
import { type MessageKey, t } from '../i18n';
import type { Args } from '../i18n/format';

/** A notice's words: `text` for everyone, `about.you` for the player of `about.seat`. */
export interface Words {
  readonly text: string;
  readonly about?: { readonly seat: Seat; readonly you: string };
}

/**
 * A sentence about a seat's player: the message `key` says it both ways through its `who`
 * argument (`{who, select, you {You take} other {{name} takes}}: …`), so each language words
 * the second person its own way.
 */
export function aboutSeat(seat: Seat, name: string, key: MessageKey, args: Args = {}): Words {
  return { text: t(key, { ...args, name, who: 'other' }), about: { seat, you: t(key, { ...args, name, who: 'you' }) } };
}

/** The words for the viewer (a seat, or null for a spectator). */
export function personal(words: Words, viewer: Seat | null): string {
  return viewer !== null && words.about?.seat === viewer ? words.about.you : words.text;
}
