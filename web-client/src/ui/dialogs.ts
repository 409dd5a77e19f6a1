/** The panels over the board: a pending double or resignation, and the game's result. */

import type { GameActions, GameView } from '../view/gameView';
import { actingSeat } from '../view/gameView';
import { button, h } from './dom';
import { t } from '../i18n';
import { isYou, resultHeadline, shownScore } from './format';

/** Show the open offer (with Take/Drop or Accept/Reject for the seat that answers). */
export function renderOffer(box: HTMLElement, view: GameView, actions: GameActions): void {
  const offer = view.offer;
  const acting = actingSeat(view);
  if (view.phase !== 'offer' || !offer) {
    box.hidden = true;
    return;
  }
  const you = isYou(view, offer.by);
  const name = view.players[offer.by].name;
  const mine = acting !== null && acting === view.viewer;
  const text =
    offer.kind === 'double'
      ? you
        ? t('offer.youDouble', { value: offer.value })
        : t('offer.doubles', { name, value: offer.value })
      : t(you ? 'offer.youResign' : 'offer.resigns', { name, level: offer.level, points: offer.level * view.cube.value });
  const kids: Node[] = [h('p', { class: 'offer-text', text })];
  if (mine) {
    const [yes, no] =
      offer.kind === 'double'
        ? [button(t('offer.take'), 'btn primary take'), button(t('offer.drop'), 'btn drop')]
        : [button(t('offer.accept'), 'btn primary accept'), button(t('offer.reject'), 'btn reject')];
    yes.addEventListener('click', () => (offer.kind === 'double' ? actions.take() : actions.acceptResign()));
    no.addEventListener('click', () => (offer.kind === 'double' ? actions.drop() : actions.rejectResign()));
    const row = h('div', { class: 'row' }, yes, no);
    if (offer.kind === 'double' && offer.beaver && actions.beaver) {
      const beaver = button(t('offer.beaver'), 'btn beaver');
      beaver.title = t('offer.beaverTitle', { value: offer.value * 2 });
      beaver.addEventListener('click', () => actions.beaver?.());
      row.append(beaver);
    }
    kids.push(row);
  } else {
    kids.push(h('p', { class: 'sub', text: t('offer.waitingFor', { name: view.players[acting ?? 0].name }) }));
  }
  box.replaceChildren(...kids);
  box.hidden = false;
}

/** Show how the game ended, the points and score, links, and Next game / Rematch. */
export function renderResult(box: HTMLElement, view: GameView, actions: GameActions): void {
  const r = view.result;
  if (view.phase !== 'gameover' || !r) {
    box.hidden = true;
    return;
  }
  const key = `${view.match.gameNo}:${r.matchOver}:${r.reason}:${view.canStop ?? ''}`;
  if (!box.hidden && box.dataset.shown === key) return;
  box.dataset.shown = key;
  box.classList.remove('collapsed');
  // Closing folds the panel to its headline and buttons (Next game stays at hand).
  const close = h('button', { type: 'button', class: 'close', 'aria-label': t('result.closeDetails'), 'aria-expanded': 'true', title: t('common.close'), text: '×' });
  close.addEventListener('click', () => {
    const folded = box.classList.toggle('collapsed');
    close.setAttribute('aria-expanded', String(!folded));
    close.textContent = folded ? '+' : '×';
    close.setAttribute('aria-label', folded ? t('result.showDetails') : t('result.closeDetails'));
  });
  // The match score never passes the length; the points say what the game itself was worth.
  const [a, b] = shownScore({ ...view.match, score: r.score });
  const points =
    r.reason === 'stopped'
      ? r.winner === null
        ? t('result.neitherAhead')
        : t('result.sessionOver', { points: r.points })
      : t('result.points', { points: r.points, over: r.matchOver && view.match.kind === 'match' ? 'yes' : 'no' });
  const kids: Node[] = [
    close,
    h('div', { class: `trophy s${r.winner ?? 'none'}`, 'aria-hidden': 'true' }),
    h('h2', { id: 'result-title', text: resultHeadline(view, r) }),
    h('p', { class: 'points', text: points }),
  ];
  if (view.match.kind !== 'single') {
    kids.push(h('p', { class: 'final', text: `${view.players[0].name} ${a} – ${b} ${view.players[1].name}` }));
  }
  if (r.links?.length) {
    kids.push(h('p', { class: 'links' }, ...r.links.map((l) => h('a', { href: l.href, text: l.label }))));
  }
  if (view.viewer !== null) {
    const next = button(r.matchOver ? t('result.rematch') : t('result.nextGame'), 'btn primary next');
    next.addEventListener('click', () => actions.next());
    const row = h('div', { class: 'row' }, next);
    if (view.canStop && actions.stop) {
      const stop = button(t('result.stopSession'), 'btn stop');
      stop.addEventListener('click', () => actions.stop?.());
      row.append(stop);
    }
    kids.push(row);
    if (!r.matchOver && view.nextGameAt) {
      kids.push(h('p', { class: 'sub next-game-note', text: t('result.nextGameNote') }));
    }
  }
  box.replaceChildren(...kids);
  box.hidden = false;
}
