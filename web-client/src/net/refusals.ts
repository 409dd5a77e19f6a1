/**
 * The words a player reads when the server refuses something: never a code. Each refusal a
 * player can cause has its sentence in one table, protocol/refusals.py (`PLAYER_WORDS`),
 * generated into `REFUSAL_WORDS`; any other code (a broken client, a server fault, an
 * operator's setting) reads as one general sentence. docs/protocol.md, "What a player reads".
 */

import { REFUSAL_WORDS } from '../generated/catalog';
import { LobbyError } from './lobbyApi';

/** What a page shows for a refusal no player causes. */
export const GENERAL_REFUSAL = 'The server refused this: reload the page and try again.';

/** The codes whose server message adds what the words cannot know (which field, which limit). */
const DETAILED: ReadonlySet<string> = new Set(['bad_field', 'rate_limited']);

/** The sentence for a refusal with this code (and the server's message, for a form's field). */
export function refusalText(code: string, message = ''): string {
  const words = REFUSAL_WORDS[code];
  if (words === undefined) return GENERAL_REFUSAL;
  return DETAILED.has(code) && message ? `${words} (${message})` : words;
}

/** The words for an error of an HTTP call (or anything thrown). */
export function errorWords(err: unknown): string {
  if (err instanceof LobbyError) return err.status === 0 ? err.message : refusalText(err.code, err.message);
  return GENERAL_REFUSAL;
}
