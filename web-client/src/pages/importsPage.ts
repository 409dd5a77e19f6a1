/**
 * Imports at `/imports`: upload a match played elsewhere (`.mat` or `.sgf`, `POST /api/imports`),
 * see each game's analysis as it lands (error rate, PR, luck of both players, the same report as
 * a game played here), share an import. `#<import>` opens one import (yours, or one shared with
 * you). Needs a signed-in player.
 */

import { t } from '../i18n';
import { whoAmI } from '../net/accountApi';
import { button, h } from '../ui/dom';
import { linkField, pageHeader } from './common';
import { importOrigin } from './replayPage';

interface PlayerFigures {
  readonly seat: number;
  readonly error_rate?: number | null;
  readonly pr?: number | null;
  readonly luck?: number | null;
  readonly errors?: number;
  readonly blunders?: number;
}

interface ImportGame {
  readonly game: number;
  readonly status: 'pending' | 'done' | 'failed';
  readonly players: readonly PlayerFigures[] | null;
  readonly analysis: string;
}

interface ImportDoc {
  readonly import: string;
  readonly format: string;
  readonly name: string;
  readonly names: readonly [string, string];
  readonly shared: boolean;
  readonly mine: boolean;
  readonly games: readonly ImportGame[];
  readonly page: string;
}

async function call<T>(method: string, path: string, body?: BodyInit): Promise<T> {
  const response = await fetch(path, { method, body, credentials: 'same-origin', cache: 'no-store', headers: body instanceof ArrayBuffer ? { 'Content-Type': 'text/plain' } : { 'Content-Type': 'application/json' } });
  const doc = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) {
    const where = doc.file_error as { line?: number | null } | undefined;
    const message = String(doc.message ?? `HTTP ${response.status}`);
    throw new Error(`${message}${doc.error ? ` (${String(doc.error)})` : ''}${where?.line && !message.includes('line') ? ` at line ${where.line}` : ''}`);
  }
  return doc as T;
}

const num = (x: number | null | undefined, digits = 1) => (x === null || x === undefined ? '–' : x.toFixed(digits));

export async function startImportsPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'imports-page');
  const main = h('main', { class: 'imports-main' });
  root.replaceChildren(pageHeader(h('span', { class: 'badge', text: t('imports.badge') })), main);
  const me = await whoAmI();
  const opened = location.hash.replace(/^#/, '');
  const list = h('div', { class: 'imp-list' });
  const status = h('p', { class: 'imp-status', 'aria-live': 'polite' });
  if (me) {
    const input = h('input', { type: 'file', accept: '.mat,.sgf,.txt', class: 'imp-file', 'aria-label': t('imports.file') });
    input.addEventListener('change', async () => {
      const file = input.files?.[0];
      if (!file) return;
      status.className = 'imp-status';
      status.textContent = t('imports.importing', { name: file.name });
      try {
        const made = await call<{ import: string; games: number }>('POST', `/api/imports?name=${encodeURIComponent(file.name)}`, await file.arrayBuffer());
        status.textContent = t('imports.imported', { name: file.name, games: made.games });
        history.replaceState(null, '', `/imports#${made.import}`);
        await refresh();
      } catch (err) {
        status.className = 'imp-status error';
        status.textContent = err instanceof Error ? err.message : String(err);
      }
      input.value = '';
    });
    main.append(
      h('section', { class: 'card imp-upload' }, h('h1', { text: t('nav.imports') }), h('p', { text: t('imports.about') }), input, status),
    );
  } else {
    main.append(h('section', { class: 'card imp-upload' }, h('h1', { text: t('nav.imports') }), h('p', { text: t('imports.signIn') }), h('a', { class: 'btn primary', href: '/', text: t('match.toLobby') })));
  }
  main.append(list);

  let timer: ReturnType<typeof setTimeout> | null = null;
  async function refresh(): Promise<void> {
    if (timer) clearTimeout(timer);
    const docs: ImportDoc[] = [];
    try {
      if (me) docs.push(...(await call<{ imports: ImportDoc[] }>('GET', '/api/imports')).imports);
      const want = location.hash.replace(/^#/, '') || opened;
      if (/^[0-9a-f]{24}$/.test(want) && !docs.some((d) => d.import === want)) docs.unshift(await call<ImportDoc>('GET', `/api/imports/${want}`));
    } catch (err) {
      list.replaceChildren(h('p', { class: 'imp-status error', text: err instanceof Error ? err.message : String(err) }));
      return;
    }
    list.replaceChildren(...docs.map(card));
    if (docs.some((d) => d.games.some((g) => g.status === 'pending'))) timer = setTimeout(() => void refresh(), 700);
  }

  function card(doc: ImportDoc): HTMLElement {
    const table = h('table', { class: 'imp-games' });
    table.append(h('tr', {}, h('th', { text: t('seek.game') }), h('th', { text: doc.names[0] }), h('th', { text: doc.names[1] })));
    for (const g of doc.games) {
      const cell = (seat: number) => {
        if (g.status !== 'done' || !g.players) return h('td', { text: g.status === 'failed' ? t('imports.failed') : t('imports.analysing') });
        const p = g.players.find((x) => x.seat === seat);
        return h('td', { text: p ? t('imports.cell', { pr: num(p.pr), errors: p.errors ?? 0, blunders: p.blunders ?? 0, luck: num(p.luck, 2) }) : '–' });
      };
      table.append(h('tr', { class: `imp-game ${g.status}` }, h('th', {}, h('a', { class: 'imp-replay', href: importOrigin(doc.import).page(g.game), title: t('links.replay'), text: `${g.game}` })), cell(0), cell(1)));
    }
    const kids: Node[] = [h('h2', { text: `${doc.names[0]} – ${doc.names[1]}` }), h('p', { class: 'imp-meta', text: t('imports.meta', { name: doc.name || 'none', format: doc.format, games: doc.games.length, shared: doc.shared ? 'yes' : 'no' }) }), h('div', { class: 'imp-scroll' }, table)];
    if (doc.mine) {
      const toggle = button(doc.shared ? t('imports.makePrivate') : t('imports.share'), 'btn ghost imp-share');
      toggle.addEventListener('click', async () => {
        await call('POST', `/api/imports/${doc.import}/share`, JSON.stringify({ shared: !doc.shared })).catch(() => undefined);
        await refresh();
      });
      kids.push(toggle);
    }
    if (doc.shared) kids.push(linkField(t('imports.link'), `${location.origin}${doc.page}`, 'importlink'));
    return h('section', { class: `card imp-card${doc.import === location.hash.slice(1) ? ' opened' : ''}`, 'data-import': doc.import }, ...kids);
  }

  addEventListener('hashchange', () => void refresh());
  await refresh();
}
