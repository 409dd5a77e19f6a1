/**
 * The words a player reads when the server refuses something: never a code. Each refusal a
 * player can cause has its code in one table, protocol/refusals.py (`PLAYER_WORDS`, whose
 * English words are the English catalogue's `refusal.<code>` messages), generated into
 * `REFUSAL_CODES`; each language words every code in its catalogue (src/i18n). The codes no
 * player causes (a broken client, a server fault, an operator's setting: `GENERAL_CODES`) read
 * as one general sentence; a code this client does not know at all comes from a newer server,
 * and the page shows that server's own message. docs/protocol.md, "What a player reads".
 */

import { GENERAL_CODES, REFUSAL_CODES, type RefusalCode } from '../generated/catalog';
import { t } from '../i18n';
import { LobbyError } from './lobbyApi';

/** What a page shows for a refusal no player causes. */
export function generalRefusal(): string {
  return t('refusal.general');
}

const PLAYER: ReadonlySet<string> = new Set(REFUSAL_CODES);
const GENERAL: ReadonlySet<string> = new Set(GENERAL_CODES);

/** The codes whose server message adds what the words cannot know (which field, which limit). */
const DETAILED: ReadonlySet<string> = new Set(['bad_field', 'rate_limited']);

/** The sentence for a refusal with this code (and the server's message, for a form's field). */
export function refusalText(code: string, message = ''): string {
  if (PLAYER.has(code)) {
    const words = t(`refusal.${code as RefusalCode}`);
    return DETAILED.has(code) && message ? t('refusal.detailed', { words, detail: message }) : words;
  }
  if (GENERAL.has(code) || !message) return generalRefusal();
  return message;
}

/** The words for an error of an HTTP call (or anything thrown). */
export function errorWords(err: unknown): string {
  if (err instanceof LobbyError) return err.status === 0 ? t('refusal.offline') : refusalText(err.code, err.message);
  return generalRefusal();
}
