/**
 * A refusal reads as words, never as its code: the catalogue's message for each code a player
 * can cause (protocol/refusals.py, generated into REFUSAL_CODES), one general sentence for the
 * codes no player causes, and the server's own message for a code this client does not know.
 */

import { describe, expect, it } from 'vitest';
import { GENERAL_CODES, REFUSAL_CODES } from '../src/generated/catalog';
import { LANGUAGES, allCatalogues, setLanguage, t } from '../src/i18n';
import enRefusals from '../src/i18n/refusals.en.json';
import { LobbyError } from '../src/net/lobbyApi';
import { errorWords, generalRefusal, refusalText } from '../src/net/refusals';

const CATALOGUES = await allCatalogues();

describe('refusal words', () => {
  it('words the refusal a double click causes', () => {
    expect(refusalText('not_your_turn', 'seat 1 is to act')).toBe('It is not your turn: wait for your opponent.');
  });

  it('has a message for every code in every catalogue', () => {
    expect(REFUSAL_CODES.length).toBeGreaterThan(30);
    expect(Object.keys(enRefusals).sort()).toEqual(REFUSAL_CODES.map((c) => `refusal.${c}`).sort());
    for (const { code: lang } of LANGUAGES) {
      for (const code of REFUSAL_CODES) expect(CATALOGUES[lang][`refusal.${code}`] ?? (lang === 'en' ? t(`refusal.${code}`) : undefined), `${lang} ${code}`).toBeTruthy();
    }
  });

  it('never shows a code', () => {
    const codes = [...REFUSAL_CODES, ...GENERAL_CODES];
    for (const code of [...codes, 'no_such_code']) {
      const text = refusalText(code, 'field x');
      for (const c of codes) expect(text.includes(c), `${code}: ${text}`).toBe(false);
    }
    expect(refusalText('internal', 'boom')).toBe(generalRefusal());
  });

  it('shows a newer server’s own words for a code this client does not know', () => {
    expect(refusalText('no_such_code', 'The tournament hall is closed.')).toBe('The tournament hall is closed.');
    expect(refusalText('no_such_code', '')).toBe(generalRefusal());
  });

  it('adds the server’s detail where only it knows which field', () => {
    expect(refusalText('bad_field', 'name is longer than 24 characters')).toContain('(name is longer than 24 characters)');
    expect(errorWords(new LobbyError(409, 'seat_taken', 'the match already has two players'))).toBe('This match already has two players: you can still watch it.');
    expect(errorWords(new LobbyError(0, 'offline', 'The server cannot be reached.'))).toBe('The server cannot be reached. Check the connection and try again.');
  });

  it('speaks the page’s language', () => {
    setLanguage('tr');
    try {
      expect(refusalText('not_your_turn')).toBe(CATALOGUES.tr['refusal.not_your_turn']);
      expect(refusalText('not_your_turn')).not.toBe('It is not your turn: wait for your opponent.');
    } finally {
      setLanguage('en');
    }
  });
});
