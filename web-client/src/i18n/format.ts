/**
 * A small ICU MessageFormat formatter: the subset the catalogues use (docs/architecture.md,
 * "Languages"). Arguments `{name}`, `{n, number}`, `{d, date}`, `{d, time}`; `{n, plural,
 * =0 {…} one {…} other {…}}` (plural rules from Intl.PluralRules, `#` the number formatted per
 * locale); `{x, select, a {…} other {…}}`. Apostrophes quote as in ICU: `''` is one apostrophe,
 * `'{…}'` literal braces, any other apostrophe is itself (l'adversaire, can't).
 */

export type Part =
  | { kind: 'text'; text: string }
  | { kind: 'arg'; name: string; type: '' | 'number' | 'date' | 'time' }
  | { kind: 'pound' }
  | { kind: 'plural'; name: string; offset: number; cases: Record<string, Part[]> }
  | { kind: 'select'; name: string; cases: Record<string, Part[]> };

export class MessageSyntaxError extends Error {}

/** Parse `source` into parts; throws MessageSyntaxError on a malformed message. */
export function parse(source: string): Part[] {
  let i = 0;
  const fail = (why: string): never => {
    throw new MessageSyntaxError(`${why} at ${i} in ${JSON.stringify(source)}`);
  };
  const ws = (): void => {
    while (i < source.length && /\s/.test(source[i]!)) i++;
  };
  const word = (): string => {
    ws();
    const m = /^[^\s{},#]+/.exec(source.slice(i));
    if (!m) fail('expected a name');
    i += m![0].length;
    ws();
    return m![0];
  };
  const body = (inPlural: boolean, nested: boolean): Part[] => {
    const parts: Part[] = [];
    let text = '';
    const flush = (): void => {
      if (text) parts.push({ kind: 'text', text });
      text = '';
    };
    while (i < source.length) {
      const c = source[i]!;
      if (c === "'") {
        const next = source[i + 1];
        if (next === "'") {
          text += "'";
          i += 2;
        } else if (next === '{' || next === '}' || (inPlural && next === '#')) {
          const end = source.indexOf("'", i + 1);
          if (end < 0) fail('unclosed quote');
          text += source.slice(i + 1, end).replace(/''/g, "'");
          i = end + 1;
        } else {
          text += c;
          i++;
        }
      } else if (c === '}') {
        if (!nested) fail('unmatched }');
        break;
      } else if (c === '#' && inPlural) {
        flush();
        parts.push({ kind: 'pound' });
        i++;
      } else if (c === '{') {
        flush();
        i++;
        parts.push(argument());
      } else {
        text += c;
        i++;
      }
    }
    flush();
    return parts;
  };
  const cases = (inPlural: boolean): Record<string, Part[]> => {
    const out: Record<string, Part[]> = {};
    ws();
    while (source[i] !== '}') {
      if (i >= source.length) fail('unclosed cases');
      const key = word();
      if (source[i] !== '{') fail('expected {');
      i++;
      if (key in out) fail(`duplicate case ${key}`);
      out[key] = body(inPlural, true);
      if (source[i] !== '}') fail('expected }');
      i++;
      ws();
    }
    if (!('other' in out)) fail('missing other case');
    return out;
  };
  const argument = (): Part => {
    const name = word();
    if (source[i] === '}') {
      i++;
      return { kind: 'arg', name, type: '' };
    }
    if (source[i] !== ',') fail('expected , or }');
    i++;
    const type = word();
    if (type === 'number' || type === 'date' || type === 'time') {
      if (source[i] !== '}') fail('expected }');
      i++;
      return { kind: 'arg', name, type };
    }
    if (source[i] !== ',') fail('expected ,');
    i++;
    let part: Part;
    if (type === 'plural') {
      ws();
      let offset = 0;
      const m = /^offset:(\d+)/.exec(source.slice(i));
      if (m) {
        offset = Number(m[1]);
        i += m[0].length;
      }
      part = { kind: 'plural', name, offset, cases: cases(true) };
    } else if (type === 'select') {
      part = { kind: 'select', name, cases: cases(false) };
    } else {
      return fail(`unknown type ${type}`);
    }
    i++; // the closing }
    return part;
  };
  const parts = body(false, false);
  if (i < source.length) fail('trailing text');
  return parts;
}

/** The names of the arguments a message uses (plural and select ones included). */
export function argumentNames(parts: readonly Part[], into = new Set<string>()): Set<string> {
  for (const p of parts) {
    if (p.kind === 'arg' || p.kind === 'plural' || p.kind === 'select') into.add(p.name);
    if (p.kind === 'plural' || p.kind === 'select') for (const c of Object.values(p.cases)) argumentNames(c, into);
  }
  return into;
}

export type Value = string | number | Date;
export type Args = Readonly<Record<string, Value>>;

/** Format parsed `parts` for `locale` with `args`. A missing argument shows as `{name}`. */
export function formatParts(parts: readonly Part[], locale: string, args: Args = {}, pound?: number): string {
  let out = '';
  for (const p of parts) {
    switch (p.kind) {
      case 'text':
        out += p.text;
        break;
      case 'pound':
        out += pound === undefined ? '#' : new Intl.NumberFormat(locale).format(pound);
        break;
      case 'arg': {
        const v = args[p.name];
        if (v === undefined) out += `{${p.name}}`;
        else if (p.type === 'number' || (p.type === '' && typeof v === 'number')) out += new Intl.NumberFormat(locale).format(Number(v));
        else if (p.type === 'date') out += new Intl.DateTimeFormat(locale, { dateStyle: 'medium' }).format(new Date(v));
        else if (p.type === 'time') out += new Intl.DateTimeFormat(locale, { timeStyle: 'short' }).format(new Date(v));
        else out += String(v);
        break;
      }
      case 'plural': {
        const n = Number(args[p.name] ?? 0);
        const exact = p.cases[`=${n}`];
        const chosen = exact ?? p.cases[new Intl.PluralRules(locale).select(n - p.offset)] ?? p.cases.other!;
        out += formatParts(chosen, locale, args, n - p.offset);
        break;
      }
      case 'select': {
        const v = String(args[p.name] ?? '');
        out += formatParts(p.cases[v] ?? p.cases.other!, locale, args, pound);
        break;
      }
    }
  }
  return out;
}

/** Parse and format in one go. */
export function formatMessage(source: string, locale: string, args: Args = {}): string {
  return formatParts(parse(source), locale, args);
}
