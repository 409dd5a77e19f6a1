/**
 * The browser's words: one message catalogue per language (messages/<code>.json, English the
 * source), ICU message syntax (./format.ts), the language chosen from the browser or the player's
 * pick (remembered in localStorage), and `<html lang dir>` naming it. docs/architecture.md,
 * "Languages", says how to add a key or a language.
 */

import enPages from './messages/en.json';
// The refusals' English words, generated from protocol/refusals.py (tools/make_catalog.py).
import enRefusals from './refusals.en.json';
import { formatParts, parse, type Args, type Part } from './format';

const en = { ...enPages, ...enRefusals };

export type MessageKey = keyof typeof en;
export type Catalogue = Readonly<Record<MessageKey, string>>;

/** The languages offered: code, its own name, and its direction. */
export const LANGUAGES = [
  { code: 'en', name: 'English', dir: 'ltr' },
  { code: 'tr', name: 'Türkçe', dir: 'ltr' },
  { code: 'el', name: 'Ελληνικά', dir: 'ltr' },
  { code: 'ar', name: 'العربية', dir: 'rtl' },
  { code: 'ru', name: 'Русский', dir: 'ltr' },
  { code: 'de', name: 'Deutsch', dir: 'ltr' },
  { code: 'es', name: 'Español', dir: 'ltr' },
  { code: 'fr', name: 'Français', dir: 'ltr' },
  { code: 'it', name: 'Italiano', dir: 'ltr' },
] as const;
export type Lang = (typeof LANGUAGES)[number]['code'];

/** Every catalogue by its language (tests check them against the English one). */
type Messages = Partial<Record<string, string>>;

/**
 * The other catalogues, each its own file of the build, fetched when its language is shown:
 * a page carries English (the source and the fallback) and the one language it speaks, not all
 * nine (`loadLanguage`, awaited by the entry points before a page draws).
 */
const LOADERS = import.meta.glob<Messages>(['./messages/*.json', '!./messages/en.json'], { import: 'default' });
const loaded: Partial<Record<Lang, Messages>> = { en };

/** Fetch the catalogue of `lang` (the current language by default) unless it is here. */
export async function loadLanguage(lang: Lang = current): Promise<void> {
  if (loaded[lang]) return;
  const load = LOADERS[`./messages/${lang}.json`];
  if (load) loaded[lang] = await load();
}

/** Every catalogue by its language, all loaded (the tests check them against the English one). */
export async function allCatalogues(): Promise<Readonly<Record<Lang, Messages>>> {
  await Promise.all(LANGUAGES.map((l) => loadLanguage(l.code)));
  return loaded as Record<Lang, Messages>;
}

const STORE_KEY = 'fg:lang';

/** The first of `wanted` (BCP 47 tags, most wanted first) that we speak, else English. */
export function pickLanguage(wanted: readonly string[]): Lang {
  for (const tag of wanted) {
    const base = tag.toLowerCase().split(/[-_]/)[0];
    const found = LANGUAGES.find((l) => l.code === base);
    if (found) return found.code;
  }
  return 'en';
}

function stored(): string | null {
  try {
    return localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/** The language to show: the player's remembered pick, else the browser's languages. */
export function initialLanguage(): Lang {
  const pick = stored();
  if (pick && LANGUAGES.some((l) => l.code === pick)) return pick as Lang;
  const nav = typeof navigator === 'undefined' ? [] : navigator.languages?.length ? navigator.languages : [navigator.language];
  return pickLanguage(nav);
}

let current: Lang = typeof window === 'undefined' ? 'en' : initialLanguage();
const cache = new Map<string, Part[]>();

/** The language being shown. */
export function language(): Lang {
  return current;
}

/** Its direction. */
export function direction(lang: Lang = current): 'ltr' | 'rtl' {
  return LANGUAGES.find((l) => l.code === lang)!.dir;
}

/** Show `lang` from now on (and name it on `<html>`); `remember` keeps it for next visits. */
export function setLanguage(lang: Lang, remember = false): void {
  current = lang;
  if (remember) {
    try {
      localStorage.setItem(STORE_KEY, lang);
    } catch {
      /* private mode: the pick lasts this page */
    }
  }
  applyToDocument();
}

/** Name the language and direction on `<html>`. */
export function applyToDocument(): void {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = current;
  document.documentElement.dir = direction();
}

/** The message `key` in the current language (English when a catalogue lacks it), formatted. */
export function t(key: MessageKey, args?: Args, lang: Lang = current): string {
  const source = loaded[lang]?.[key] ?? en[key];
  let parts = cache.get(source);
  if (!parts) cache.set(source, (parts = parse(source)));
  return formatParts(parts, lang, args);
}

/**
 * `text` kept left to right inside a right-to-left sentence: dice (`6–1`) and backgammon
 * notation (`24/18 13/9`) read the same in every language, and in Arabic the bidirectional
 * algorithm would otherwise show `6–1` as `1–6`. Wrapped in a left-to-right isolate only when
 * the page is right to left (the marks are invisible), so other languages get `text` as is.
 */
export function ltr(text: string): string {
  return direction() === 'rtl' ? `\u2066${text}\u2069` : text;
}

/**
 * A message with elements in it (a link in a sentence, two names in one): its text split around
 * the arguments named in `slots`, each slot's value put in its place, so the page builds the
 * sentence with its elements where the translation puts them (`Away? {link} and…`).
 */
export function withSlots<T>(key: MessageKey, slots: Record<string, T>, args: Args = {}): (string | T)[] {
  const names = Object.keys(slots);
  const marks: Record<string, string> = {};
  names.forEach((name, i) => (marks[name] = String.fromCharCode(1 + i)));
  const out: (string | T)[] = [];
  let run = '';
  for (const ch of t(key, { ...args, ...marks })) {
    const name = names.find((n) => marks[n] === ch);
    if (name === undefined) {
      run += ch;
      continue;
    }
    if (run) out.push(run);
    run = '';
    out.push(slots[name] as T);
  }
  if (run) out.push(run);
  return out;
}

/** A message with one element in it: the text before and after the argument `slot`. */
export function around(key: MessageKey, slot: string, args: Args = {}): [string, string] {
  const at = {};
  const parts = withSlots<object>(key, { [slot]: at }, args);
  const i = parts.indexOf(at);
  const text = (xs: (string | object)[]) => xs.join('');
  return i < 0 ? [text(parts), ''] : [text(parts.slice(0, i)), text(parts.slice(i + 1))];
}

/** A number per locale. */
export function formatNumber(n: number, options?: Intl.NumberFormatOptions): string {
  return new Intl.NumberFormat(current, options).format(n);
}

/** A date (and time) per locale. */
export function formatDate(d: Date | number | string, options: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }): string {
  return new Intl.DateTimeFormat(current, options).format(new Date(d));
}

/** "3 days ago", "in 2 hours" per locale. */
export function formatRelative(value: number, unit: Intl.RelativeTimeFormatUnit): string {
  return new Intl.RelativeTimeFormat(current, { numeric: 'auto' }).format(value, unit);
}
