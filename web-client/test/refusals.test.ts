/**
 * A refusal reads as words, never as its code: the generated table (protocol/refusals.py) for
 * what a player can cause, one general sentence for the rest.
 */

import { describe, expect, it } from 'vitest';
import { REFUSAL_WORDS } from '../src/generated/catalog';
import { LobbyError } from '../src/net/lobbyApi';
import { GENERAL_REFUSAL, errorWords, refusalText } from '../src/net/refusals';

describe('refusal words', () => {
  it('words the refusal a double click causes', () => {
    expect(refusalText('not_your_turn', 'seat 1 is to act')).toBe('It is not your turn: wait for your opponent.');
  });

  it('never shows a code', () => {
    const codes = Object.keys(REFUSAL_WORDS);
    expect(codes.length).toBeGreaterThan(30);
    for (const code of [...codes, 'bad_frame', 'internal', 'no_such_code']) {
      const text = refusalText(code, 'field x');
      for (const c of codes) expect(text.includes(c), `${code}: ${text}`).toBe(false);
    }
    expect(refusalText('internal', 'boom')).toBe(GENERAL_REFUSAL);
  });

  it('adds the server’s detail where only it knows which field', () => {
    expect(refusalText('bad_field', 'name is longer than 24 characters')).toContain('(name is longer than 24 characters)');
    expect(errorWords(new LobbyError(409, 'seat_taken', 'the match already has two players'))).toBe(REFUSAL_WORDS.seat_taken);
    expect(errorWords(new LobbyError(0, 'offline', 'The server cannot be reached.'))).toBe('The server cannot be reached.');
  });
});
