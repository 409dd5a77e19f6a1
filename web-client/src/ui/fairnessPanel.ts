/** The fairness panel: both commitments and the recent rolls with their reveals and checks. */

import type { GameView } from '../view/gameView';
import { ltr, t } from '../i18n';
import { h } from './dom';
import { recommitLine } from './format';

export function renderFairness(box: HTMLDetailsElement, view: GameView): void {
  const f = view.fairness;
  const open = box.open;
  const kids: Node[] = [h('summary', { text: t('fair.summary') })];
  if (!f) {
    kids.push(h('p', { text: t('fair.noProof') }));
  } else {
    const short = (hex: string | null) => (hex ? `${hex.slice(0, 16)}…` : '—');
    kids.push(
      h(
        'p',
        { class: 'commit' },
        `${t('fair.commitments')} ${view.players[0].name} `,
        h('code', { text: short(f.commitments[0]) }),
        ` · ${view.players[1].name} `,
        h('code', { text: short(f.commitments[1]) }),
      ),
    );
    const recommitted = recommitLine([view.players[0].name, view.players[1].name], f.recommits);
    if (recommitted) kids.push(h('p', { class: 'commit', text: recommitted }));
    const ol = h('ol', { class: 'rolls' });
    for (const r of f.rolls.slice(-12).reverse()) {
      const check = t('fair.rollCheck', { check: r.check });
      ol.append(
        h(
          'li',
          { class: r.check },
          h('span', { class: 'k', text: `#${r.k}` }),
          h('span', { class: 'dv', text: ltr(`${r.dice[0]}–${r.dice[1]}`) }),
          h('span', { class: 'ck', text: check }),
          h('code', { text: `${r.reveals[0].slice(0, 8)}… ${r.reveals[1].slice(0, 8)}…` }),
        ),
      );
    }
    kids.push(ol);
  }
  box.replaceChildren(...kids);
  box.open = open;
}
