/**
 * The levels and page paths generated from the Python lists (src/generated/catalog.ts, by
 * tools/make_catalog.py; tests/web/test_web_catalog.py fails when it is stale) are the ones the
 * client offers and routes. A level or a path added on one side only fails here or does not
 * compile: LEVEL_WORDS and main.ts's START are Records over the generated types.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BOT_LEVELS, PAGE_PATHS } from '../src/generated/catalog';
import { LEVEL_WORDS, levelName, levels } from '../src/net/botApi';
import { pattern, route } from '../src/pages/route';

const SAMPLE: Record<string, string> = { match_id: 'Ab3_x-9', name: 'ann%20b', game: '12', tournament: 'c0ffee', import_id: '0123456789abcdef01234567' };

/** The path with each parameter filled in, and the parameters in order. */
function sample(page: string): [string, string[]] {
  const params: string[] = [];
  const path = page.replace(/\{(\w+)(?::\w+)?\}/g, (_, name: string) => {
    params.push(SAMPLE[name]!);
    return SAMPLE[name]!;
  });
  return [path, params];
}

describe('the computer’s levels', () => {
  it('are the server’s, in its order, each with its words', () => {
    expect(levels().map(([level]) => level)).toEqual([...BOT_LEVELS]);
    expect(Object.keys(LEVEL_WORDS).sort()).toEqual([...BOT_LEVELS].sort());
    for (const [level, name, about] of levels()) {
      expect(name.length, level).toBeGreaterThan(0);
      expect(about.length, level).toBeGreaterThan(0);
      expect(levelName(level)).toBe(name);
    }
  });
});

describe('page routes', () => {
  it('every server page path routes to itself with its parameters', () => {
    expect(PAGE_PATHS.length).toBeGreaterThanOrEqual(8);
    for (const page of PAGE_PATHS) {
      const [path, params] = sample(page);
      expect(route(path), path).toEqual({ page, params });
      if (path !== '/') expect(route(`${path}//`), path).toEqual({ page, params });
    }
  });

  it('main.ts starts a page for every server page path, and for no other', () => {
    const main = readFileSync(join(import.meta.dirname, '..', 'src', 'main.ts'), 'utf8');
    const start = /\nconst START\b[^\n]*\n([\s\S]*?)\n\};/.exec(main);
    expect(start, 'main.ts has no START table').not.toBeNull();
    const keys = [...start![1]!.matchAll(/^\s*'([^']*)':/gm)].map((m) => m[1]);
    expect([...keys].sort()).toEqual([...PAGE_PATHS].sort());
  });

  it('matches as Starlette does: a parameter is one segment, an int parameter digits', () => {
    expect(route('/m/abc')).toEqual({ page: '/m/{match_id}', params: ['abc'] });
    expect(route('/m/abc/replay/3')).toEqual({ page: '/m/{match_id}/replay/{game:int}', params: ['abc', '3'] });
    expect(route('/m/abc/replay/x')).toBeNull();
    expect(route('/m/abc/def')).toBeNull();
    expect(route('/u/a/b')).toBeNull();
    expect(route('/m/')).toBeNull();
    expect(route('/local/x')).toBeNull();
    expect(route('/verifyx')).toBeNull();
    expect(route('')).toEqual({ page: '/', params: [] });
    expect(pattern('/a.b/{n:int}').test('/a.b/7')).toBe(true);
    expect(pattern('/a.b/{n:int}').test('/axb/7')).toBe(false);
  });
});
