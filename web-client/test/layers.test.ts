/**
 * The client's layers (web-client/README.md, "Layers"): a module imports from its own folder and
 * from the layers below it, never from one above nor from a sibling of its rank. Type-only
 * imports count: a type that both sides need belongs in the lower one.
 *
 * From the bottom: the rules and the data generated from the Python server, the fair-dice
 * scheme, the network client, the board's view and its drivers, the UI, the pages, the entry
 * points.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

/** The layers, lowest first: folders of src/ (or files directly in it). */
export const LAYERS: readonly (readonly string[])[] = [
  ['engine', 'generated', 'i18n'],
  ['fairdice'],
  ['net'],
  ['view'],
  ['ui'],
  ['pages'],
  ['main.ts', 'demo'],
];

const rank = (unit: string): number => LAYERS.findIndex((layer) => layer.includes(unit));

/** The specifiers a source imports: static imports and re-exports (type-only too), side-effect
 * imports and dynamic `import()`. */
export function specifiers(source: string): string[] {
  const found: string[] = [];
  const statics = /^\s*(?:import|export)\b(?:[^'";]*?\bfrom\s*)?\s*['"]([^'"]+)['"]/gm;
  const dynamic = /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const pattern of [statics, dynamic]) for (const m of source.matchAll(pattern)) found.push(m[1]!);
  return found;
}

/** The layer unit of a path under src/: its first folder, or its file name. */
const unitOf = (path: string): string => relative(SRC, path).split(sep)[0]!;

/** The imports of `sources` (path under src/ → text) that run against the layers. */
export function violations(sources: ReadonlyMap<string, string>): string[] {
  const out: string[] = [];
  for (const [path, source] of sources) {
    const from = unitOf(path);
    if (rank(from) < 0) {
      out.push(`${relative(SRC, path)}: src/${from} has no layer (add it to LAYERS)`);
      continue;
    }
    for (const spec of specifiers(source)) {
      if (!spec.startsWith('.')) continue; // a package (node_modules, node:)
      const target = resolve(dirname(path), spec);
      const to = relative(SRC, target).startsWith('..') ? null : unitOf(target);
      if (to === from) continue;
      if (to === null || rank(to) < 0 || rank(to) >= rank(from)) {
        out.push(`${relative(SRC, path)} imports '${spec}' (${from} → ${to ?? 'outside src'})`);
      }
    }
  }
  return out;
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return /\.ts$/.test(name) ? [path] : [];
  });
}

describe('layers of the client', () => {
  it('finds an import that runs back (the check itself can fail)', () => {
    const at = (p: string) => join(SRC, p);
    const sample = new Map([
      [at('net/a.ts'), "import type { GameView } from '../view/gameView';"],
      [at('net/b.ts'), "export { x } from '../ui/scene';"],
      [at('net/c.ts'), "import {\n  y,\n  z,\n} from '../pages/common';"],
      [at('view/d.ts'), "const m = await import('../pages/lobby');"],
      [at('engine/e.ts'), "import '../generated/catalog';"],
      [at('fairdice/f.ts'), "import { a } from '../../pwa/plugin';"],
      [at('extra/g.ts'), "import { a } from '../engine/position';"],
    ]);
    expect(violations(sample)).toEqual([
      "net/a.ts imports '../view/gameView' (net → view)",
      "net/b.ts imports '../ui/scene' (net → ui)",
      "net/c.ts imports '../pages/common' (net → pages)",
      "view/d.ts imports '../pages/lobby' (view → pages)",
      "engine/e.ts imports '../generated/catalog' (engine → generated)",
      "fairdice/f.ts imports '../../pwa/plugin' (fairdice → outside src)",
      'extra/g.ts: src/extra has no layer (add it to LAYERS)',
    ]);
    const fine = new Map([
      [at('view/h.ts'), "import type { Tracker } from '../net/tracker';\nimport { other } from './gameView';\nimport { decode } from '@msgpack/msgpack';"],
      [at('main.ts'), "import './ui/style.css';\nimport { startLobby } from './pages/lobby';"],
    ]);
    expect(violations(fine)).toEqual([]);
  });

  it('every import of src/ runs down the layers', () => {
    const paths = files(SRC);
    expect(paths.length).toBeGreaterThan(60);
    const sources = new Map(paths.map((p) => [p, readFileSync(p, 'utf8')] as const));
    expect(violations(sources)).toEqual([]);
  });
});
