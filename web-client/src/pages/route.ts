/**
 * Which page a path is: the server's page paths (src/generated/catalog.ts, from
 * server/web/pages.py) matched the way Starlette matches them: `{name}` is one path segment,
 * `{name:int}` is digits. Trailing slashes are ignored. Pure.
 */

import { PAGE_PATHS, type PagePath } from '../generated/catalog';

export interface Route {
  readonly page: PagePath;
  /** The path's parameters in order, as they stand in the address (not decoded). */
  readonly params: readonly string[];
}

const PARAMETER = /\{\w+(?::(\w+))?\}/g;

/** A page path as an anchored regular expression. */
export function pattern(page: string): RegExp {
  let source = '';
  let at = 0;
  for (const m of page.matchAll(PARAMETER)) {
    source += escape(page.slice(at, m.index)) + (m[1] === 'int' ? '(\\d+)' : '([^/]+)');
    at = m.index + m[0].length;
  }
  return new RegExp(`^${source}${escape(page.slice(at))}$`);
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const PATTERNS: readonly (readonly [PagePath, RegExp])[] = PAGE_PATHS.map((page) => [page, pattern(page)] as const);

/** The page of `pathname`, or null when it is none of them. */
export function route(pathname: string): Route | null {
  const path = pathname.replace(/\/+$/, '') || '/';
  for (const [page, re] of PATTERNS) {
    const m = re.exec(path);
    if (m) return { page, params: m.slice(1) };
  }
  return null;
}
