/**
 * The message catalogues (src/i18n/messages): every language has exactly the English keys, every
 * message parses, and every argument of an English message appears in each translation. Plus the
 * formatter's own behaviour (plurals per locale, select, quoting, numbers per locale).
 */

import { describe, expect, it } from 'vitest';
import { LANGUAGES, allCatalogues, around, pickLanguage, t, withSlots } from '../src/i18n';
import { MessageSyntaxError, argumentNames, formatMessage, parse } from '../src/i18n/format';

const CATALOGUES = await allCatalogues();
const en = CATALOGUES.en;

describe('catalogues', () => {
  it('offer the nine languages', () => {
    expect(LANGUAGES.map((l) => l.code)).toEqual(['en', 'tr', 'el', 'ar', 'ru', 'de', 'es', 'fr', 'it']);
  });
  for (const { code } of LANGUAGES) {
    const cat = CATALOGUES[code];
    it(`${code}: has every English key and no stale one`, () => {
      expect(Object.keys(cat).sort()).toEqual(Object.keys(en).sort());
    });
    it(`${code}: each message parses and keeps the English arguments`, () => {
      for (const [key, source] of Object.entries(cat)) {
        const want = argumentNames(parse(en[key]!));
        const got = argumentNames(parse(source!));
        expect([...got].sort(), `${code} ${key}`).toEqual([...want].sort());
      }
    });
  }
});

describe('formatter', () => {
  it('chooses plural forms by the locale rules', () => {
    const ru = '{n, plural, one {# день} few {# дня} many {# дней} other {# дня}}';
    expect([1, 2, 5, 21].map((n) => formatMessage(ru, 'ru', { n }))).toEqual(['1 день', '2 дня', '5 дней', '21 день']);
    const ar = '{n, plural, zero {# يوم} one {يوم واحد} two {يومان} few {# أيام} many {# يومًا} other {# يوم}}';
    expect(formatMessage(ar, 'ar', { n: 2 })).toBe('يومان');
    expect(formatMessage('{n, plural, =0 {none} one {# day} other {# days}}', 'en', { n: 0 })).toBe('none');
    expect(formatMessage('{n, plural, one {# day} other {# days}}', 'en', { n: 1234 })).toBe('1,234 days');
  });
  it('selects, quotes and formats numbers per locale', () => {
    expect(formatMessage('{r, select, yes {rated} other {casual}}', 'en', { r: 'no' })).toBe('casual');
    expect(formatMessage("l'adversaire '{x}' a ''", 'fr', {})).toBe("l'adversaire {x} a '");
    expect(formatMessage('{n, number}', 'de', { n: 1234.5 })).toBe('1.234,5');
  });
  it('rejects malformed messages', () => {
    for (const bad of ['{n', 'a}', '{n, plural, one {x}}', '{n, wat}', '{n, select, a {x} a {y} other {z}}']) {
      expect(() => parse(bad), bad).toThrow(MessageSyntaxError);
    }
  });
  it('picks the language from the browser list', () => {
    expect(pickLanguage(['tr-TR', 'en'])).toBe('tr');
    expect(pickLanguage(['pt-BR', 'el'])).toBe('el');
    expect(pickLanguage(['ja'])).toBe('en');
  });
  it('formats catalogue messages', () => {
    expect(t('options.daysPerMove', { days: 3 }, 'ru')).toBe('3 дня на ход');
    expect(t('options.match', { length: 5 }, 'en')).toBe('Match to 5');
  });
});

describe('elements in a message', () => {
  it('splits a message around its slots, each value where the translation puts it', () => {
    const a = { name: 'A' };
    const b = { name: 'B' };
    expect(withSlots('common.versus', { a, b })).toEqual([a, ' vs ', b]);
    expect(around('common.versus', 'a', { b: 'Bob' })).toEqual(['', ' vs Bob']);
    expect(around('common.versus', 'b', { a: 'Ann' })).toEqual(['Ann vs ', '']);
  });
});
