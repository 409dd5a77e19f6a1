/**
 * The session's notices as the player on this device should read them: about yourself in the
 * second person ("You rolled 2–2 and cannot move"), and a seat that moved to another device
 * not called a "lost secret". The session words its notices about names; this rewrites the
 * few that can be about the viewer, only when both names differ (else it cannot tell).
 */

import type { Seat } from '../view/gameView';

/** [third person after the name, second person] for notices that start with a player's name. */
const VERBS: readonly (readonly [string, string])[] = [
  [' rolled ', 'You rolled '],
  [' wins the opening roll', 'You win the opening roll'],
  [' takes:', 'You take:'],
  [' beavers:', 'You beaver:'],
  [' rejects the resignation', 'You reject the resignation'],
];

const RECOMMIT = / committed a new dice chain \(lost secret\) from roll (\d+)$/;

export function personal(text: string, names: readonly (string | null)[], viewer: Seat | null): string {
  const [a, b] = names;
  const recommit = RECOMMIT.exec(text);
  if (recommit) {
    return `${text.slice(0, recommit.index)} continues on another device or browser: a new dice commitment from roll ${recommit[1]}, checked like the first`;
  }
  if (viewer === null || !a || !b || a === b) return text;
  const own = viewer === 0 ? a : b;
  for (const [after, you] of VERBS) {
    if (text.startsWith(own + after)) return you + text.slice(own.length + after.length);
  }
  return text;
}
