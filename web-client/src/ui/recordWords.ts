/**
 * A move record entry in the page's language. The record (src/net/record.ts) keeps the
 * notation of plays, which every language reads alike (`63: 24/18 13/10`), and words the other
 * actions in English as the server's game records do ('doubles to 2', 'wins 2 points
 * (gammon)'); this says those actions from the catalogue, taking the numbers out of the
 * entry's English words.
 */

import { ltr, t } from '../i18n';
import { type RecordEntry, entryText } from '../net/record';

/** The first whole number of `text`, or 0. */
const numberIn = (text: string): number => Number(/\d+/.exec(text)?.[0] ?? 0);

/** What a record cell shows for `e`. */
export function entryWords(e: RecordEntry): string {
  const dice = e.dice ? ltr(`${e.dice[0]}${e.dice[1]}`) : '';
  switch (e.action) {
    case 'move':
      return ltr(entryText(e));
    case 'pass':
      return t('record.pass', { dice: dice || 'none' });
    case 'double':
      return t('record.double', { value: numberIn(e.text) });
    case 'beaver':
      return t('record.beaver', { value: numberIn(e.text) });
    case 'take':
      return t('record.take');
    case 'drop':
      return t('record.drop');
    case 'resign':
      return t('record.resign', { level: /backgammon/.test(e.text) ? 3 : /gammon/.test(e.text) ? 2 : 1 });
    case 'accept':
      return t('record.accept');
    case 'reject':
      return t('record.reject');
    case 'forfeit':
      return t('record.forfeit', { reason: (/\((.*)\)/.exec(e.text)?.[1] ?? '').replace(' ', '_') });
    case 'win': {
      const kind = /\((gammon|backgammon)\)/.exec(e.text)?.[1] ?? 'single';
      return t('record.win', { points: numberIn(e.text), kind });
    }
  }
}
