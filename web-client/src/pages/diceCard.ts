/**
 * The dice statistics of a match's finished games, on the verify page next to the fairness
 * proof: faces, doubles, pips and entering from the bar against what fair dice give, with
 * words on what such numbers can and cannot show.
 */

import { fetchGameRecord, recordPath } from '../net/recordApi';
import { h } from '../ui/dom';
import { CHI_SQUARE_95, type DiceStats, PIPS_PER_ROLL, diceStats } from '../view/diceStats';

export async function diceCard(match: string, games: readonly number[]): Promise<HTMLElement> {
  const card = h('section', { class: 'card dice-stats', 'aria-label': 'Dice statistics' }, h('h2', { text: 'Dice statistics' }));
  try {
    const docs = await Promise.all(games.map((g) => fetchGameRecord(recordPath(match, g))));
    const names = docs[0]?.names ?? ['Seat 1', 'Seat 2'];
    card.append(...render(diceStats(docs), [names[0], names[1]], docs.length));
  } catch (err) {
    card.append(h('p', { class: 'form-error', text: `Could not load the games: ${err instanceof Error ? err.message : String(err)}` }));
  }
  return card;
}

function render(s: DiceStats, names: readonly [string, string], games: number): Node[] {
  if (s.rolls === 0) return [h('p', { class: 'note', text: 'No rolls after the opening yet.' })];
  const expected = (2 * s.rolls) / 6;
  const faces = h(
    'table',
    { class: 'dice-faces' },
    h('thead', {}, h('tr', {}, h('th', { text: 'Face' }), ...[1, 2, 3, 4, 5, 6].map((f) => h('th', { text: `${f}` })))),
    h(
      'tbody',
      {},
      h('tr', {}, h('th', { scope: 'row', text: 'Came' }), ...s.faces.map((n) => h('td', { text: `${n}` }))),
      h('tr', {}, h('th', { scope: 'row', text: 'Expected' }), ...s.faces.map(() => h('td', { text: expected.toFixed(1) }))),
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
      row('Rolls', (i) => `${s.seats[i].rolls}`),
      row('Doubles (expected)', (i) => `${s.seats[i].doubles} (${(s.seats[i].rolls / 6).toFixed(1)})`),
      row('Pips rolled (expected)', (i) => `${s.seats[i].pips} (${(s.seats[i].rolls * PIPS_PER_ROLL).toFixed(0)})`),
      row('Entered from the bar (expected)', (i) => {
        const d = s.seats[i];
        return d.barRolls ? `${d.entered} of ${d.barRolls} (${d.expectedEntered.toFixed(1)})` : '—';
      }),
    ),
  );
  const verdict =
    s.chiSquare <= CHI_SQUARE_95
      ? `Faces: χ² = ${s.chiSquare.toFixed(2)}, within what fair dice give 95% of the time (≤ ${CHI_SQUARE_95}).`
      : `Faces: χ² = ${s.chiSquare.toFixed(2)}, above ${CHI_SQUARE_95}: fair dice do this about once in twenty matches.`;
  return [
    h('p', { class: 'sub', text: `${s.rolls} rolls after the openings, in ${games} game${games === 1 ? '' : 's'}.` }),
    faces,
    h('p', { class: 'dice-verdict', text: verdict }),
    seats,
    h('p', {
      class: 'note',
      text: 'These counts describe the dice; they do not test them. A few dozen rolls are far too few for a difference from the expectation to mean anything. That nobody chose these dice is what the checks above prove: every roll comes from both players’ committed hash chains.',
    }),
  ];
}
