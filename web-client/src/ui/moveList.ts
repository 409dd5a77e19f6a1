/**
 * The move list: every legal next step as a button stating its die ("Bar" for entry, "Off"
 * for bearing off), a Play button, and the die/route choice when a tap was ambiguous.
 */

import { BAR, OFF } from '../engine/position';
import { routeLabel } from '../engine/turn';
import { ltr, t } from '../i18n';
import { button, h } from './dom';
import type { MoveUi } from './moveController';
import type { Scene } from './scene';

export interface MoveListInput {
  /** A list option was clicked (or Enter): pick it, or play it when it was already picked. */
  option(index: number): void;
  play(): void;
  choose(route: number): void;
  cancel(): void;
}

export class MoveListPanel {
  readonly root: HTMLElement;
  readonly list = h('ul', { class: 'movelist', 'aria-label': t('moves.listLabel') });
  readonly choice = h('div', { class: 'choice', role: 'group', hidden: '' });
  private readonly playButton = button(t('moves.play'), 'btn primary play');

  constructor(private readonly input: MoveListInput) {
    this.playButton.addEventListener('click', () => input.play());
    this.root = h(
      'section',
      { class: 'moves', 'aria-label': t('moves.panelLabel') },
      h('h2', { text: t('moves.title') }),
      this.choice,
      this.list,
      h('div', { class: 'playrow' }, this.playButton),
    );
  }

  /** Arrow keys inside the list move between its options. */
  step(from: HTMLElement, forward: boolean): void {
    const opts = [...this.list.querySelectorAll('button')];
    const i = opts.indexOf(from as HTMLButtonElement);
    opts[Math.max(0, Math.min(opts.length - 1, forward ? i + 1 : i - 1))]?.focus();
  }

  focusOption(index: number): void {
    const own = this.list.querySelector<HTMLButtonElement>(`button[data-index="${index}"]`);
    (own ?? this.list.querySelector<HTMLButtonElement>('button'))?.focus();
  }

  focusChoice(): void {
    this.choice.querySelector('button')?.focus();
  }

  render(scene: Scene, ui: MoveUi | null): void {
    const list = this.list;
    const active = document.activeElement as HTMLElement | null;
    const hadFocus = active && list.contains(active) ? active.dataset.index : undefined;
    list.replaceChildren();
    for (const opt of scene.options) {
      const from = opt.step.from === BAR ? 'bar' : String(opt.step.from);
      const to = opt.step.to === OFF ? 'off' : String(opt.step.to);
      const btn = h(
        'button',
        {
          type: 'button',
          class: 'opt',
          'data-index': String(opt.index),
          'aria-pressed': String(scene.listPick === opt.index),
          'aria-label': t('moves.optionLabel', { from, to, hit: opt.step.hit ? 'yes' : 'no', die: String(opt.die) }),
        },
        h('span', { class: 'mv', text: ltr(opt.label) }),
        ' ',
        h('span', { class: 'using', text: t('moves.die') }),
        ' ',
        h('span', { class: `d d${opt.die}`, 'aria-hidden': 'true', text: String(opt.die) }),
      );
      btn.addEventListener('click', () => this.input.option(opt.index));
      const li = h('li', {}, btn);
      if (ui?.selected === opt.step.from) li.classList.add('from-selected');
      list.append(li);
    }
    if (hadFocus !== undefined) list.querySelector<HTMLButtonElement>(`button[data-index="${hadFocus}"]`)?.focus();
    let empty = '';
    if (scene.options.length === 0) {
      if (!scene.interactive) empty = 'wait';
      else empty = ui && ui.turn.maxUsed === 0 ? 'none' : 'done';
    }
    list.dataset.empty = empty;
    this.playButton.disabled = scene.listPick === null;
    this.playButton.hidden = !scene.interactive;
    this.renderChoice(scene, ui);
  }

  private renderChoice(scene: Scene, ui: MoveUi | null): void {
    const choice = this.choice;
    if (!ui?.choice || !scene.interactive) {
      choice.hidden = true;
      choice.replaceChildren();
      return;
    }
    const to = ui.choice.to === OFF ? 'off' : String(ui.choice.to);
    choice.replaceChildren(h('p', { text: t('moves.chooseRoute', { to }) }));
    ui.choice.routes.forEach((route, i) => {
      const dice = route.steps.map((s) => s.die);
      const b = button(ltr(routeLabel(route)), 'btn choose');
      const [d1, d2, d3, d4] = dice.map(String);
      b.append(' ', h('span', { class: 'using', text: t('moves.dice', { n: dice.length, d1: d1 ?? '', d2: d2 ?? '', d3: d3 ?? '', d4: d4 ?? '' }) }));
      b.addEventListener('click', () => this.input.choose(i));
      choice.append(b);
    });
    const cancel = button(t('common.cancel'), 'btn ghost');
    cancel.addEventListener('click', () => this.input.cancel());
    choice.append(cancel);
    choice.hidden = false;
  }
}
