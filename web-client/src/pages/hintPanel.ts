/**
 * The hint panel of a match against the computer: a Hint button that asks the server for the
 * best plays of the current roll (top three, with equity and winning chance) or the cube advice,
 * whenever it is this player's move or cube decision. The server gives hints only in matches
 * against the computer (docs/protocol.md, "Playing the computer").
 */

import { type Hint, formatMoves, getHint } from '../net/botApi';
import { errorWords } from '../net/refusals';
import type { MatchSession } from '../net/session';
import type { SeatRecord } from '../net/storage';
import { button, h } from '../ui/dom';

const ADVICE: Record<string, string> = {
  double: 'Double',
  no_double: 'No double: roll',
  take: 'Take',
  drop: 'Drop (pass)',
  beaver: 'Beaver: take and redouble',
};

const signed = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(3);
const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

export function hintPanel(session: MatchSession, matchId: string, record: SeatRecord): HTMLElement {
  const ask = button('Hint', 'btn hint');
  const out = h('div', { class: 'hint-out', 'aria-live': 'polite' });
  const box = h('div', { class: 'hint-panel' }, ask, out);
  let shownFor = '';

  const decision = () => {
    const t = session.tracker;
    const owed = t.over ? null : t.owes(record.seat);
    return owed === 'move' || owed === 'decide' || owed === 'take' ? owed : null;
  };
  const render = () => {
    const t = session.tracker;
    ask.disabled = decision() === null;
    // A hint belongs to one decision: clear it once the game has moved on.
    if (shownFor && shownFor !== `${t.version}`) {
      out.replaceChildren();
      shownFor = '';
    }
  };
  ask.addEventListener('click', async () => {
    ask.disabled = true;
    const at = `${session.tracker.version}`;
    out.replaceChildren(h('p', { class: 'sub', text: 'Thinking…' }));
    try {
      const hint = await getHint(matchId, record.token);
      if (`${session.tracker.version}` !== at) return render();
      out.replaceChildren(...show(hint));
      shownFor = at;
      out.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
    } catch (err) {
      out.replaceChildren(h('p', { class: 'form-error', text: errorWords(err) }));
    }
    ask.disabled = decision() === null;
  });
  session.subscribe(render);
  render();
  return box;
}

function show(hint: Hint): HTMLElement[] {
  if (hint.phase === 'move') {
    if (!hint.plays.length) return [h('p', { class: 'sub', text: 'No legal play: the turn passes.' })];
    const list = h('ol', { class: 'hint-plays' });
    hint.plays.forEach((p, i) =>
      list.append(
        h(
          'li',
          { class: i === 0 ? 'best' : '' },
          h('span', { class: 'hint-moves', text: formatMoves(p.moves) }),
          h('span', { class: 'hint-eq', text: signed(p.equity) }),
          h('span', { class: 'hint-win', text: `win ${percent(p.win)}` }),
        ),
      ),
    );
    return [h('p', { class: 'hint-title', text: 'Best plays' }), list];
  }
  if (!hint.cube) return [h('p', { class: 'sub', text: 'You cannot double now: just roll.' })];
  const c = hint.cube;
  return [
    h('p', { class: 'hint-title' }, 'Cube: ', h('strong', { class: 'hint-action', text: ADVICE[c.action] ?? c.action })),
    h(
      'p',
      { class: 'hint-cube sub' },
      `No double ${signed(c.no_double)} · Double/take ${signed(c.double_take)} · Double/pass ${signed(c.double_pass)} · win ${percent(c.win)}`,
    ),
  ];
}
