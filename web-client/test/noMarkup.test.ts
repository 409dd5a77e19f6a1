/**
 * The static rule behind "player strings are text" (docs/architecture.md): no source file of
 * the client parses a string as markup or code. Every page builds its elements through the DOM
 * (`h()` in src/ui/dom.ts, the board's nodes in src/ui/boardNodes.ts), so a name, a chat line
 * or a transcript's contents can only ever be text or an attribute value.
 *
 * A sink may appear only at a call site listed in ALLOWED, with the reason its argument is
 * constant (cannot hold anything a player typed). The list is empty today: keep it that way
 * unless there is no other way, and say why here.
 */

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

/** Markup and code sinks: each parses a string as HTML, script, or a document. */
const SINKS: readonly [string, RegExp][] = [
  ['innerHTML', /\binnerHTML\b/],
  ['outerHTML', /\bouterHTML\b/],
  ['insertAdjacentHTML', /\binsertAdjacentHTML\b/],
  ['document.write', /\bdocument\s*\.\s*write(ln)?\b/],
  ['createContextualFragment', /\bcreateContextualFragment\b/],
  ['DOMParser', /\bDOMParser\b|\bparseFromString\b/],
  ['setHTML', /\bsetHTML(Unsafe)?\b/],
  ['srcdoc', /\bsrcdoc\b/],
  ['eval', /(?<![\w$])eval\s*\(/], // window.eval( and globalThis.eval( too
  ['Function constructor', /(?<![\w$])Function\s*\(/], // with or without new
  ['timer with code', /\bset(Timeout|Interval)\s*\(\s*['"`]/],
];

/** The allowed call sites: `file` (from web-client/), the sink, and why its argument is
 * constant markup. */
const ALLOWED: readonly { file: string; sink: string; why: string }[] = [];

/** Every sink in `source`: [sink, line number, line]. */
export function sinksIn(source: string): [string, number, string][] {
  const found: [string, number, string][] = [];
  source.split('\n').forEach((line, i) => {
    for (const [name, pattern] of SINKS) if (pattern.test(line)) found.push([name, i + 1, line.trim()]);
  });
  return found;
}

function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, ext);
    return ext.test(name) ? [path] : [];
  });
}

const SOURCES = [...files(join(ROOT, 'src'), /\.ts$/), ...files(join(ROOT, 'pwa'), /\.(ts|js)$/)];

describe('no markup strings', () => {
  it('finds the sinks it looks for (the check itself can fail)', () => {
    const sample = [
      "el.innerHTML = `<b>${name}</b>`;",
      'node.insertAdjacentHTML("beforeend", x);',
      'document.write(s); document.writeln(s);',
      'new DOMParser().parseFromString(s, "text/html");',
      'setTimeout("go()", 1); eval(code); new Function(code);',
      'window.eval(code); globalThis.eval(code); Function("return 1")();',
      'frame.srcdoc = html; range.createContextualFragment(html); el.outerHTML; el.setHTMLUnsafe(s);',
    ].join('\n');
    const names = new Set(sinksIn(sample).map(([name]) => name));
    expect(names).toEqual(new Set(SINKS.map(([name]) => name)));
    expect(sinksIn('el.textContent = name; h("p", { text: line }); evaluate(x); setTimeout(f, 1);')).toEqual([]);
    expect(sinksIn('medieval(x); isFunction(f); myFunction(x); $eval(x);')).toEqual([]);
    const each = (line: string) => sinksIn(line).map(([name]) => name);
    expect(each('window.eval(code);')).toEqual(['eval']);
    expect(each('Function("return 1")();')).toEqual(['Function constructor']);
  });

  it('the client source parses no string as markup or code, outside the allowed call sites', () => {
    expect(SOURCES.length).toBeGreaterThan(50);
    const found = SOURCES.flatMap((path) => {
      const file = relative(ROOT, path);
      return sinksIn(readFileSync(path, 'utf8'))
        .filter(([sink]) => !ALLOWED.some((a) => a.file === file && a.sink === sink))
        .map(([sink, line, text]) => `${file}:${line}: ${sink}: ${text}`);
    });
    expect(found).toEqual([]);
  });

  it('the pages load their script from a file: no inline script, handler or style', () => {
    for (const page of ['index.html', 'demo.html']) {
      const html = readFileSync(join(ROOT, page), 'utf8');
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
      expect(scripts.length, page).toBe(1);
      for (const [, attrs, body] of scripts) {
        expect(attrs, page).toMatch(/\bsrc="[^"]+"/);
        expect(body!.trim(), page).toBe('');
      }
      expect(html, page).not.toMatch(/<[^>]*\son[a-z]+\s*=/i);
      expect(html, page).not.toMatch(/<[^>]*\sstyle\s*=/i);
      expect(html, page).not.toMatch(/<style\b/i);
    }
  });
});
