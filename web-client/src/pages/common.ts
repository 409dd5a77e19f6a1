/** Bits the lobby, match and verify pages share: the header, links, copying, the WS URL. */

import type { SecretStorage } from '../fairdice';
import { saveName } from '../net/storage';
import { button, h } from '../ui/dom';
import { CORRESPONDENCE_DAYS } from '../generated/catalog';
import { applyToDocument, t } from '../i18n';
import { languageSelect } from '../ui/languageSelect';

/** The server's WebSocket endpoint (same host as the page). */
export function wsUrl(loc: Location = location): string {
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}/ws`;
}

/** The page header: the brand (to the lobby), optional items, and the language selector. */
export function pageHeader(...right: Node[]): HTMLElement {
  applyToDocument();
  return h(
    'header',
    { class: 'topbar' },
    h('a', { class: 'brand', href: '/' }, h('span', { class: 'logo', 'aria-hidden': 'true' }), 'fairgammon'),
    h('span', { class: 'matchbox' }, ...right, languageSelect()),
  );
}


/** Copy `text`; falls back to selecting an input when the clipboard API is unavailable. */
export async function copyText(text: string, input?: HTMLInputElement): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    if (!input) return false;
    input.focus();
    input.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
}

/** A read-only link field with a Copy button (and its label). */
export function linkField(label: string, url: string, cls: string): HTMLElement {
  const input = h('input', { type: 'text', readonly: '', value: url, class: 'linkbox', 'aria-label': label, spellcheck: 'false' });
  input.addEventListener('focus', () => input.select());
  const copy = button(t('common.copy'), `btn copy ${cls}-copy`);
  copy.addEventListener('click', async () => {
    const ok = await copyText(url, input);
    const lbl = copy.querySelector('.lbl')!;
    lbl.textContent = ok ? t('common.copied') : t('common.selectAndCopy');
    setTimeout(() => (lbl.textContent = t('common.copy')), 1800);
  });
  return h('div', { class: `field link ${cls}` }, h('span', { class: 'flabel', text: label }), h('div', { class: 'linkrow' }, input, copy));
}

/** Words for the match options, e.g. "Match to 5 · 30 s per move + 2 min reserve", or with
 * `days` (correspondence) "Match to 5 · 2 days per move". */
export function describeOptions(mode: string, length: number | null, clock: number, reserve = 0, days = 0): string {
  const what = mode === 'match' ? t('options.match', { length: length ?? 0 }) : mode === 'money' ? t('options.money') : t('options.single');
  if (days > 0) return t('options.days', { what, days });
  return reserve > 0 ? t('options.clockReserve', { what, seconds: clock, reserve: reserveWords(reserve) }) : t('options.clock', { what, seconds: clock });
}

/** The pace of a new match: "Real time" (0) or 1-7 days per move (correspondence: the days of
 * protocol/limits.py, generated into the catalog). */
export function paceSelect(): HTMLSelectElement {
  const pace = h('select', { name: 'pace' });
  pace.append(h('option', { value: '0', text: t('options.realTime') }));
  for (const d of CORRESPONDENCE_DAYS) pace.append(h('option', { value: String(d), text: t('options.daysPerMove', { days: d }) }));
  return pace;
}

/** Correspondence is for matches and single games (docs/correspondence.md): a money session
 * keeps the pace to real time. */
export function limitPace(pace: HTMLSelectElement, mode: string): void {
  for (const o of pace.options) o.disabled = mode === 'money' && o.value !== '0';
  if (mode === 'money') pace.value = '0';
}

/** "2 min", "90 s": a time reserve in seconds, in words. */
export function reserveWords(seconds: number): string {
  return seconds % 60 === 0 ? t('time.minutes', { n: seconds / 60 }) : t('time.seconds', { n: seconds });
}

/** The time reserves the lobby offers (seconds per player for the match). */
export const RESERVE_CHOICES: readonly number[] = [0, 60, 120, 300, 600];

/** A small empty-state or error message. */
export function note(text: string, cls = 'note'): HTMLElement {
  return h('p', { class: cls, text });
}

/** A page's opening section: its title and a paragraph. */
export function heroSection(title: string, text: string, cls = 'hero'): HTMLElement {
  return h('section', { class: cls }, h('h1', { text: title }), h('p', { text }));
}

/** Tidy the name typed in `input`, keep it for next time, and return the name to play under. */
export function rememberName(storage: SecretStorage, input: HTMLInputElement): string {
  const n = input.value.trim().replace(/\s+/g, ' ');
  saveName(storage, n);
  return n || t('common.guest');
}
