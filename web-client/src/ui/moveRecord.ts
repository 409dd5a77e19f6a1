/**
 * The move record panel: every game's turns in the classic two columns (seat 0 left, seat 1
 * right), the roll then the play (`63: 24/18 13/10`), cube actions, resignations, passes and
 * each game's end. Live it follows the newest turn (scrolling only its own box, never the page);
 * on the replay board a click on a turn jumps there and the shown turn is highlighted. Mistakes
 * found by the analysis are marked `?` (error) and `??` (blunder).
 */

import { t } from '../i18n';
import { type RecordEntry, recordRows } from '../net/record';
import { entryWords } from './recordWords';
import type { Mark } from '../view/analysis';
import { h } from './dom';

export type { Mark };

export interface RecordGame {
  readonly number: number;
  /** Shown above the game's rows when the record has several games (e.g. 'Game 2 · 1–0'). */
  readonly label: string;
  readonly entries: readonly RecordEntry[];
  /** Marks by entry index. */
  readonly marks?: ReadonlyMap<number, Mark>;
}

export interface RecordInput {
  readonly names: readonly [string, string];
  readonly games: readonly RecordGame[];
  /** The turn to highlight (replay), else null. */
  readonly selected?: { readonly game: number; readonly index: number } | null;
  /** A note under the heading (e.g. 'Loading earlier turns…'). */
  readonly note?: string;
}

export class MoveRecordPanel {
  readonly el = h('section', { class: 'record', 'aria-label': t('record.title') });
  private readonly note = h('p', { class: 'record-note' });
  private readonly box = h('div', { class: 'record-scroll', tabindex: '0' });
  private shown = '';

  /** `pick(game, index)`: a turn was clicked (the replay board jumps there). */
  constructor(private readonly pick?: (game: number, index: number) => void) {
    this.el.append(h('h2', { class: 'record-title', text: t('record.title') }), this.note, this.box);
    this.box.addEventListener('click', (e) => {
      const cell = (e.target as HTMLElement).closest<HTMLElement>('[data-i]');
      if (cell && this.pick) this.pick(Number(cell.dataset.g), Number(cell.dataset.i));
    });
  }

  render(input: RecordInput): void {
    const key = JSON.stringify([input.names, input.games.map((g) => [g.number, g.label, g.entries.length, [...(g.marks ?? [])]]), input.selected, input.note]);
    if (key === this.shown) return;
    this.shown = key;
    this.note.textContent = input.note ?? '';
    this.note.hidden = !input.note;
    const table = h('table', { class: 'record-table' });
    const head = h('tr', {}, h('th', { class: 'n', text: '#' }), h('th', { text: input.names[0] }), h('th', { text: input.names[1] }));
    table.append(h('thead', {}, head));
    const body = h('tbody');
    let selectedCell: HTMLElement | null = null;
    for (const game of input.games) {
      if (input.games.length > 1) {
        body.append(h('tr', { class: 'record-game' }, h('th', { colspan: '3', scope: 'rowgroup', text: game.label })));
      }
      if (game.entries.length === 0) {
        body.append(h('tr', { class: 'record-empty' }, h('td', { colspan: '3', text: t('record.noMoves') })));
      }
      for (const row of recordRows(game.entries)) {
        const tr = h('tr', { class: row.n === null ? 'record-end' : '' }, h('td', { class: 'n', text: row.n === null ? '' : `${row.n}` }));
        for (const i of row.cells) {
          if (i === null) {
            tr.append(h('td', { class: 'cell empty' }));
            continue;
          }
          const entry = game.entries[i]!;
          const mark = game.marks?.get(i);
          const td = h('td', { class: `cell ${entry.action}${mark ? ` mark-${mark}` : ''}`, 'data-g': `${game.number}`, 'data-i': `${i}` });
          td.append(entryWords(entry));
          if (mark) td.append(h('span', { class: 'mark', title: mark === 'blunder' ? t('analysis.blunder') : t('analysis.error'), text: mark === 'blunder' ? '??' : '?' }));
          if (this.pick) {
            td.setAttribute('role', 'button');
            td.setAttribute('tabindex', '-1');
          }
          const sel = input.selected;
          if (sel && sel.game === game.number && sel.index === i) {
            td.classList.add('current');
            td.setAttribute('aria-current', 'step');
            selectedCell = td;
          }
          tr.append(td);
        }
        body.append(tr);
      }
    }
    table.append(body);
    this.box.replaceChildren(table);
    // Keep the turn in view by scrolling this box only (scrollIntoView would move the page).
    if (selectedCell) {
      const cell = (selectedCell as HTMLElement).getBoundingClientRect();
      const box = this.box.getBoundingClientRect();
      if (cell.top < box.top || cell.bottom > box.bottom) this.box.scrollTop += cell.top - box.top - box.height / 2;
    } else {
      this.box.scrollTop = this.box.scrollHeight;
    }
  }
}
