/**
 * The dice statistics of a match's finished games, on the verify page next to the fairness
 * proof: faces, doubles, pips and entering from the bar against what fair dice give, with
 * words on what such numbers can and cannot show.
 */

import { t } from '../i18n';
import { fetchGameRecord, recordPath } from '../net/recordApi';
import { h } from '../ui/dom';
import { CHI_SQUARE_95, type DiceStats, PIPS_PER_ROLL, diceStats } from '../view/diceStats';

export async function diceCard(match: string, games: readonly number[]): Promise<HTMLElement> {
  const card = h('section', { class: 'card dice-stats', 'aria-label': t('dice.title') }, h('h2', { text: t('dice.title') }));
  try {
    const docs = await Promise.all(games.map((g) => fetchGameRecord(recordPath(match, g))));
    const names = docs[0]?.names ?? [t('common.seatNo', { n: '1' }), t('common.seatNo', { n: '2' })];
    card.append(...render(diceStats(docs), [names[0], names[1]], docs.length));
  } catch (err) {
    card.append(h('p', { class: 'form-error', text: t('dice.loadFailed', { why: err instanceof Error ? err.message : String(err) }) }));
  }
  return card;
}

function render(s: DiceStats, names: readonly [string, string], games: number): Node[] {
  if (s.rolls === 0) return [h('p', { class: 'note', text: t('dice.none') })];
  const expected = (2 * s.rolls) / 6;
  const faces = h(
    'table',
    { class: 'dice-faces' },
    h('thead', {}, h('tr', {}, h('th', { text: t('dice.face') }), ...[1, 2, 3, 4, 5, 6].map((f) => h('th', { text: `${f}` })))),
    h(
      'tbody',
      {},
      h('tr', {}, h('th', { scope: 'row', text: t('dice.came') }), ...s.faces.map((n) => h('td', { text: `${n}` }))),
      h('tr', {}, h('th', { scope: 'row', text: t('dice.expected') }), ...s.faces.map(() => h('td', { text: expected.toFixed(1) }))),
    ),
  );
  const row = (label: string, f: (i: 0 | 1) => string) => h('tr', {}, h('th', { scope: 'row', text: label }), h('td', { text: f(0) }), h('td', { text: f(1) }));
  const seats = h(
    'table',
    { class: 'dice-seats' },
    h('thead', {}, h('tr', {}, h('th', {}), h('th', { text: names[0] }), h('th', { text: names[1] }))),
    h(
      'tbody',
      {},
      row(t('dice.rolls'), (i) => `${s.seats[i].rolls}`),
      row(t('dice.doubles'), (i) => `${s.seats[i].doubles} (${(s.seats[i].rolls / 6).toFixed(1)})`),
      row(t('dice.pips'), (i) => `${s.seats[i].pips} (${(s.seats[i].rolls * PIPS_PER_ROLL).toFixed(0)})`),
      row(t('dice.entered'), (i) => {
        const d = s.seats[i];
        return d.barRolls ? t('dice.enteredOf', { entered: d.entered, of: d.barRolls, expected: d.expectedEntered.toFixed(1) }) : '—';
      }),
    ),
  );
  const verdict =
    s.chiSquare <= CHI_SQUARE_95
      ? t('dice.within', { chi: s.chiSquare.toFixed(2), limit: String(CHI_SQUARE_95) })
      : t('dice.above', { chi: s.chiSquare.toFixed(2), limit: String(CHI_SQUARE_95) });
  return [
    h('p', { class: 'sub', text: t('dice.count', { rolls: s.rolls, games }) }),
    faces,
    h('p', { class: 'dice-verdict', text: verdict }),
    seats,
    h('p', {
      class: 'note',
      text: t('dice.note'),
    }),
  ];
}
