/**
 * The hint of a match against the computer: a Hint button beside the dice controls (within
 * reach whenever this player owes a move or a cube decision), and the hint right under those
 * controls, shown where it is without scrolling the page (the board stays in view). The server
 * gives the best plays of the current roll (top three, with equity and winning chance) or the
 * cube advice; it gives hints only in matches against the computer (docs/protocol.md,
 * "Playing the computer"). Whether a double is allowed is the engine's rule, the Double
 * button's: for a dead cube the advice says why not to double. Plays are written in the move
 * record's notation, and the best one is drawn on the board (arrows) until the game moves on;
 * a click on another hinted play draws that one. Facing a double the figures are the deciding
 * player's own (take and pass).
 */

import { ltr, t } from '../i18n';
import { type CubeHint, type Hint, type HintPlay, getHint } from '../net/botApi';
import { errorWords } from '../net/refusals';
import type { MatchSession } from '../net/session';
import type { SeatRecord } from '../net/storage';
import { button, h } from '../ui/dom';



const signed = (x: number) => (x >= 0 ? '+' : '−') + Math.abs(x).toFixed(3);
const percent = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The Hint button (for the row of the dice controls) and where its answer shows. */
export function hintPanel(
  session: MatchSession,
  matchId: string,
  record: SeatRecord,
  showPlay: (play: { seat: 0 | 1; moves: HintPlay['moves'] } | null) => void = () => undefined,
): { button: HTMLButtonElement; out: HTMLElement } {
  const ask = button(t('hint.button'), 'btn ghost hint');
  ask.title = t('hint.buttonTitle');
  const out = h('div', { class: 'hint-out', 'aria-live': 'polite' });
  let shownFor = '';

  const decision = () => {
    const tr = session.tracker;
    const owed = tr.over ? null : tr.owes(record.seat);
    return owed === 'move' || owed === 'decide' || owed === 'take' ? owed : null;
  };
  const render = () => {
    const version = session.tracker.version;
    ask.hidden = decision() === null;
    // A hint belongs to one decision: clear it once the game has moved on.
    if (shownFor && shownFor !== `${version}`) {
      out.replaceChildren();
      shownFor = '';
      showPlay(null);
    }
    out.hidden = out.childElementCount === 0;
  };
  ask.addEventListener('click', async () => {
    ask.disabled = true;
    const at = `${session.tracker.version}`;
    out.replaceChildren(h('p', { class: 'sub', text: t('hint.thinking') }));
    out.hidden = false;
    try {
      const hint = await getHint(matchId, record.token);
      if (`${session.tracker.version}` !== at) return render();
      out.replaceChildren(...show(hint, (p) => showPlay({ seat: record.seat, moves: p.moves })));
      shownFor = at;
      const best = hint.phase === 'move' ? hint.plays[0] : undefined;
      if (best) showPlay({ seat: record.seat, moves: best.moves });
    } catch (err) {
      out.replaceChildren(h('p', { class: 'form-error', text: errorWords(err) }));
      shownFor = at;
    } finally {
      ask.disabled = false;
      render();
    }
  });
  session.subscribe(render);
  render();
  return { button: ask, out };
}

function show(hint: Hint, onPick: (play: HintPlay) => void): HTMLElement[] {
  if (hint.phase === 'move') {
    if (!hint.plays.length) return [h('p', { class: 'sub', text: t('hint.noPlay') })];
    const list = h('ol', { class: 'hint-plays' });
    const items: HTMLElement[] = [];
    hint.plays.forEach((p, i) => {
      const item = h(
        'li',
        { class: i === 0 ? 'best shown' : '', title: t('hint.showPlay'), tabindex: '0' },
        h('span', { class: 'hint-moves', text: ltr(p.play) }),
        h('span', { class: 'hint-eq', text: signed(p.equity) }),
        h('span', { class: 'hint-win', text: t('hint.win', { p: percent(p.win) }) }),
      );
      const pick = () => {
        for (const other of items) other.classList.toggle('shown', other === item);
        onPick(p);
      };
      item.addEventListener('click', pick);
      item.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && pick());
      items.push(item);
      list.append(item);
    });
    return [h('p', { class: 'hint-title', text: t('hint.bestPlays') }), list];
  }
  if (!hint.cube) return [h('p', { class: 'sub', text: t('hint.cannotDouble') })];
  return cubeAdvice(hint.cube);
}

function cubeAdvice(c: CubeHint): HTMLElement[] {
  const title = h('p', { class: 'hint-title' }, t('hint.cube'), ' ', h('strong', { class: 'hint-action', text: t('hint.advice', { action: c.action }) }));
  if (c.dead) {
    return [
      title,
      h('p', {
        class: 'hint-cube hint-dead sub',
        text: t('hint.dead', { p: percent(c.win) }),
      }),
    ];
  }
  // The figures of the player who must decide: facing a double, theirs after take and pass.
  const figures = (
    c.take !== null && c.pass !== null
      ? [t('hint.take', { e: signed(c.take) }), t('hint.pass', { e: signed(c.pass) }), t('hint.win', { p: percent(c.win) })]
      : [
          c.no_double === null ? null : t('hint.noDouble', { e: signed(c.no_double) }),
          c.double_take === null ? null : t('hint.doubleTake', { e: signed(c.double_take) }),
          c.double_pass === null ? null : t('hint.doublePass', { e: signed(c.double_pass) }),
          t('hint.win', { p: percent(c.win) }),
        ]
  ).filter((x): x is string => x !== null);
  return [title, h('p', { class: 'hint-cube sub', text: figures.join(' · ') })];
}
