/**
 * The board screen: SVG board, player bars with pips, clocks and presence, the move list with
 * Play, die/route choices, undo/redo, End turn, cube and resignation answers, the result panel,
 * the fairness panel, settings and the keyboard. It renders GameViews from a GameSource and
 * sends only GameActions back, so a local driver and the network driver are interchangeable.
 */

import { BAR, OFF } from '../engine/position';
import { routeLabel, stepLabel, turnMoves } from '../engine/turn';
import type { GameSource, GameView, Seat } from '../view/gameView';
import { actingSeat, canDouble } from '../view/gameView';
import { BoardSvg } from './boardSvg';
import { RESIGN_NAMES, formatClock, matchLabel, pointsLabel, resultHeadline } from './format';
import { gridOf, pointAtGrid } from './geometry';
import * as mc from './moveController';
import { type Scene, buildScene } from './scene';
import { type Settings, loadSettings, saveSettings } from './settings';
import { click } from './sound';

function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

function button(label: string, cls: string, key?: string): HTMLButtonElement {
  const b = h('button', { type: 'button', class: cls });
  b.append(h('span', { class: 'lbl', text: label }));
  if (key) {
    b.append(h('kbd', { text: key }));
    b.setAttribute('aria-keyshortcuts', key === '⇧D' ? 'Shift+D' : key);
  }
  return b;
}

interface PlayerBar {
  root: HTMLElement;
  chip: HTMLElement;
  name: HTMLElement;
  presence: HTMLElement;
  pips: HTMLElement;
  turn: HTMLElement;
  clock: HTMLElement;
  clockText: HTMLElement;
  clockFill: HTMLElement;
}

function playerBar(position: 'top' | 'bottom'): PlayerBar {
  const chip = h('span', { class: 'chip', 'aria-hidden': 'true' });
  const name = h('span', { class: 'pname' });
  const presence = h('span', { class: 'presence' });
  const pips = h('span', { class: 'pips' });
  const turn = h('span', { class: 'turnmark' });
  const clockText = h('span', { class: 'time' });
  const clockFill = h('i');
  const clock = h('span', { class: 'clock', role: 'timer' }, clockText, h('span', { class: 'meter' }, clockFill));
  const who = h('span', { class: 'who' }, chip, h('span', { class: 'namebox' }, name, presence));
  const root = h('div', { class: `player ${position}` }, who, turn, pips, clock);
  return { root, chip, name, presence, pips, turn, clock, clockText, clockFill };
}

export interface BoardAppOptions {
  /** Title shown in the header. */
  readonly title?: string;
}

export class BoardApp {
  private view: GameView;
  private ui: mc.MoveUi | null = null;
  private uiKey = '';
  private scene: Scene | null = null;
  private settings: Settings = loadSettings();
  private readonly board: BoardSvg;
  private readonly bars: { top: PlayerBar; bottom: PlayerBar };
  private readonly els: Record<string, HTMLElement> = {};
  private lastNotice = 0;
  private wasPending = false;
  private noticeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly root: HTMLElement,
    private readonly source: GameSource,
    options: BoardAppOptions = {},
  ) {
    this.view = source.current();
    this.board = new BoardSvg({
      place: (p) => this.onPlace(p),
      drop: (from, to) => this.onDrop(from, to),
      dragStart: (from) => this.update(mc.select(this.ui!, from)),
    });
    this.bars = { top: playerBar('top'), bottom: playerBar('bottom') };
    this.build(options.title ?? 'fairgammon');
    source.subscribe((v) => this.setView(v));
    document.addEventListener('keydown', (e) => this.onKey(e));
    setInterval(() => this.tick(), 200);
    this.setView(this.view);
  }

  // ---- layout -------------------------------------------------------------------------------

  private build(title: string): void {
    const e = this.els;
    e.match = h('span', { class: 'matchinfo' });
    e.score = h('span', { class: 'score' });
    e.crawford = h('span', { class: 'badge crawford', text: 'Crawford', title: 'Crawford game: no doubling' });
    e.watchers = h('span', { class: 'badge watchers' });
    const header = h(
      'header',
      { class: 'topbar' },
      h('span', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }), title),
      h('span', { class: 'matchbox' }, e.match, e.score, e.crawford, e.watchers),
    );

    e.notice = h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
    e.result = h('div', { class: 'result', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'result-title', hidden: '' });
    e.offer = h('div', { class: 'offer', role: 'alertdialog', hidden: '' });
    const boardWrap = h('div', { class: 'board-wrap' }, this.board.el, e.notice, e.offer, e.result);
    const boardArea = h('section', { class: 'board-area', 'aria-label': 'Game' }, this.bars.top.root, boardWrap, this.bars.bottom.root);

    e.status = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
    e.announce = h('div', { class: 'sr-only', 'aria-live': 'assertive' });
    e.check = h('div', { class: 'check' });
    const b = {
      roll: button('Roll', 'btn primary roll', 'D'),
      double: button('Double', 'btn double', '⇧D'),
      undo: button('Undo', 'btn undo', 'U'),
      redo: button('Redo', 'btn redo', 'R'),
      end: button('End turn', 'btn primary end', 'E'),
    };
    b.roll.addEventListener('click', () => this.source.roll());
    b.double.addEventListener('click', () => this.source.double());
    b.undo.addEventListener('click', () => this.doUndo());
    b.redo.addEventListener('click', () => this.doRedo());
    b.end.addEventListener('click', () => this.endTurn());
    Object.assign(e, b);
    const actions = h('div', { class: 'actions' }, b.roll, b.double, b.undo, b.redo, b.end);

    e.choice = h('div', { class: 'choice', role: 'group', hidden: '' });
    e.list = h('ul', { class: 'movelist', 'aria-label': 'Legal moves: pick one, then Play' });
    e.play = button('Play', 'btn primary play');
    e.play.addEventListener('click', () => this.playPicked());
    const moves = h(
      'section',
      { class: 'moves', 'aria-label': 'Move list' },
      h('h2', { text: 'Moves' }),
      e.choice,
      e.list,
      h('div', { class: 'playrow' }, e.play),
    );

    e.resign = h('details', { class: 'more' });
    e.resign.append(h('summary', { text: 'Resign…' }));
    for (const level of [1, 2, 3] as const) {
      const rb = button(`Resign ${RESIGN_NAMES[level]}`, 'btn ghost');
      rb.addEventListener('click', () => {
        (e.resign as HTMLDetailsElement).open = false;
        this.source.resign(level);
      });
      e.resign.append(rb);
    }

    e.fairness = h('details', { class: 'fairness' });
    e.settings = this.buildSettings();
    const side = h('aside', { class: 'side', 'aria-label': 'Controls' }, e.status, e.announce, e.check, actions, moves, e.resign, e.fairness, e.settings);
    const table = h('main', { class: 'table' }, boardArea, side);
    this.root.classList.add('fg-app');
    this.root.replaceChildren(header, table);
  }

  private buildSettings(): HTMLElement {
    const d = h('details', { class: 'settings' }, h('summary', { text: 'Settings & keys' }));
    const toggle = (key: keyof Settings, label: string) => {
      const input = h('input', { type: 'checkbox', name: key }) as HTMLInputElement;
      input.checked = this.settings[key];
      input.addEventListener('change', () => {
        this.settings = { ...this.settings, [key]: input.checked };
        saveSettings(this.settings);
        this.render();
      });
      return h('label', { class: 'toggle' }, input, h('span', { text: label }));
    };
    d.append(
      toggle('autoConfirm', 'End the turn automatically when all dice are used'),
      toggle('sound', 'Sound effects'),
      h(
        'p',
        { class: 'keys' },
        'Keys: arrows move over the points, Enter or Space selects and moves, B bar, O bear off, U undo, R redo, D roll, Shift+D double, E end turn, Escape clears.',
      ),
    );
    return d;
  }

  // ---- state --------------------------------------------------------------------------------

  private setView(view: GameView): void {
    this.view = view;
    const key = view.phase === 'moving' && view.dice && view.turn !== null && view.turn === view.viewer
      ? `${view.match.gameNo}:${view.dice.k}:${view.turn}`
      : '';
    // A play the server refused (pending, then not, same turn): start the turn afresh, so the
    // board shows the acknowledged position again; the driver's notice says why.
    const refused = this.wasPending && !view.pending && key === this.uiKey;
    this.wasPending = view.pending;
    if (key !== this.uiKey || refused) {
      this.uiKey = key;
      if (key && view.dice && view.turn !== null) {
        const seat = view.turn;
        const position = { mover: view.boards[seat], opponent: view.boards[seat === 0 ? 1 : 0] };
        this.ui = mc.newMoveUi(position, view.dice.values[0], view.dice.values[1]);
      } else {
        this.ui = null;
      }
    }
    this.render();
  }

  private update(ui: mc.MoveUi): void {
    const before = this.ui?.turn.steps.length ?? 0;
    const moved = this.ui !== null && ui.turn.steps.length !== before;
    this.ui = ui;
    if (moved) {
      click(this.settings.sound);
      const steps = ui.turn.steps;
      const last = steps[steps.length - 1];
      // Screen readers hear each step (the board itself changes silently).
      this.els.announce!.textContent =
        steps.length > before && last
          ? `Moved ${stepLabel(last)} with the ${last.die}`
          : `Undone. Moves made: ${steps.length ? steps.map(stepLabel).join(', ') : 'none'}`;
    }
    this.render();
    if (moved && this.settings.autoConfirm && mc.complete(ui) && ui.turn.maxUsed > 0) this.endTurn();
    if (ui.choice) (this.els.choice!.querySelector('button') as HTMLButtonElement | null)?.focus();
  }

  private interactive(): mc.MoveUi | null {
    return this.scene?.interactive ? this.ui : null;
  }

  // ---- input --------------------------------------------------------------------------------

  private onPlace(place: number): void {
    const ui = this.interactive();
    if (!ui) return;
    this.board.focused = place >= 1 && place <= 24 ? place : this.board.focused;
    this.update(mc.tap(ui, place));
  }

  private onDrop(from: number, to: number): void {
    let ui = this.interactive();
    if (!ui) return;
    if (ui.selected !== from) ui = mc.select(ui, from);
    this.update(ui.targets.has(to) ? mc.moveTo(ui, to) : mc.clear(ui));
  }

  private doUndo(): void {
    const ui = this.interactive();
    if (ui) this.update(mc.undo(ui));
  }

  private doRedo(): void {
    const ui = this.interactive();
    if (ui) this.update(mc.redo(ui));
  }

  private endTurn(): void {
    const ui = this.interactive();
    if (!ui || !mc.complete(ui)) return;
    this.source.play(turnMoves(ui.turn));
  }

  private playPicked(): void {
    const ui = this.interactive();
    if (ui && ui.listPick !== null) this.update(mc.playListStep(ui));
  }

  private onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    const onBoard = this.board.hasFocus() || t === document.body || t === null;
    const inList = !!t?.closest('.movelist');
    const ui = this.interactive();
    const key = e.key;
    const handled = () => e.preventDefault();
    if (key.startsWith('Arrow') && inList) {
      const opts = [...this.els.list!.querySelectorAll('button')];
      const i = opts.indexOf(t as HTMLButtonElement);
      const next = key === 'ArrowDown' || key === 'ArrowRight' ? i + 1 : i - 1;
      opts[Math.max(0, Math.min(opts.length - 1, next))]?.focus();
      return handled();
    }
    if ((key.startsWith('Arrow') || key === 'Home' || key === 'End') && onBoard) {
      let place = this.board.focused;
      if (place < 1 || place > 24) place = 1;
      const { row, col } = gridOf(place);
      let target = place;
      if (key === 'ArrowLeft') target = pointAtGrid(row, col - 1);
      else if (key === 'ArrowRight') target = pointAtGrid(row, col + 1);
      else if (key === 'ArrowUp') target = pointAtGrid(0, col);
      else if (key === 'ArrowDown') target = pointAtGrid(1, col);
      else if (key === 'Home') target = pointAtGrid(row, 0);
      else if (key === 'End') target = pointAtGrid(row, 11);
      this.board.focus(target);
      return handled();
    }
    if ((key === 'Enter' || key === ' ') && onBoard && this.board.hasFocus()) {
      this.onPlace(this.board.focused);
      return handled();
    }
    switch (key.toLowerCase()) {
      case 'b':
        if (ui) {
          this.update(mc.selectBar(ui));
          if (!this.board.hasFocus()) this.board.focus(this.board.focused);
        }
        return handled();
      case 'o':
        if (ui) this.update(mc.bearOff(ui));
        return handled();
      case 'u':
        this.doUndo();
        return handled();
      case 'r':
        this.doRedo();
        return handled();
      case 'd':
        if (e.shiftKey) this.source.double();
        else if (this.view.phase === 'decide') this.source.roll();
        return handled();
      case 'e':
        this.endTurn();
        return handled();
      case 'escape':
        if (ui) this.update(mc.clear(ui));
        return handled();
      default:
    }
  }

  // ---- rendering ----------------------------------------------------------------------------

  private render(): void {
    const view = this.view;
    const scene = buildScene(view, this.ui);
    this.scene = scene;
    this.board.setNames([view.players[0].name, view.players[1].name]);
    this.board.render(scene);
    this.root.dataset.phase = view.phase;
    this.root.dataset.acting = String(scene.acting ?? '');
    this.renderHeader();
    this.renderPlayers();
    this.renderControls();
    this.renderMoves();
    this.renderOffer();
    this.renderResult();
    this.renderFairness();
    this.renderNotice();
    this.tick();
  }

  private renderHeader(): void {
    const { match, spectators } = this.view;
    this.els.match!.textContent = matchLabel(match);
    const [a, b] = match.score;
    this.els.score!.textContent = match.kind === 'single' ? '' : `${this.view.players[0].name} ${a} – ${b} ${this.view.players[1].name}`;
    this.els.crawford!.hidden = !match.crawford;
    this.els.watchers!.hidden = spectators === 0;
    this.els.watchers!.textContent = `${spectators} watching`;
  }

  private renderPlayers(): void {
    const scene = this.scene!;
    const view = this.view;
    for (const [where, seat] of [['top', scene.top], ['bottom', scene.bottom]] as const) {
      const bar = this.bars[where];
      const player = view.players[seat];
      bar.root.dataset.seat = String(seat);
      bar.chip.className = `chip s${seat}`;
      bar.name.textContent = player.name;
      bar.presence.className = `presence ${player.presence}`;
      bar.presence.textContent = player.presence === 'online' ? 'online' : player.presence;
      bar.pips.textContent = `${scene.pips[seat]} pips`;
      bar.pips.setAttribute('aria-label', `${player.name} pip count ${scene.pips[seat]}`);
      const acting = scene.acting === seat || (view.phase === 'rolling' && view.turn === seat);
      bar.root.classList.toggle('acting', acting);
      bar.turn.textContent = acting ? (view.phase === 'offer' ? 'to answer' : 'to play') : '';
    }
  }

  private tick(): void {
    const now = Date.now();
    const scene = this.scene;
    if (!scene) return;
    for (const [where, seat] of [['top', scene.top], ['bottom', scene.bottom]] as const) {
      const bar = this.bars[where];
      const clock = this.view.clocks[seat];
      const running = clock.deadline !== null;
      const left = running ? clock.deadline! - now : clock.budgetMs;
      bar.clock.hidden = clock.budgetMs === 0;
      bar.clock.classList.toggle('running', running);
      bar.clock.classList.toggle('low', running && left < 10_000);
      bar.clockText.textContent = formatClock(left);
      bar.clock.setAttribute('aria-label', `${this.view.players[seat].name} clock ${formatClock(left)}${running ? ', running' : ''}`);
      bar.clockFill.style.width = `${clock.budgetMs ? Math.max(0, Math.min(1, left / clock.budgetMs)) * 100 : 0}%`;
      const p = this.view.players[seat];
      if (p.forfeitAt !== null && p.presence !== 'online') {
        bar.presence.textContent = `${p.presence} · forfeits in ${formatClock(p.forfeitAt - now)}`;
      }
    }
  }

  private renderControls(): void {
    const view = this.view;
    const scene = this.scene!;
    const e = this.els;
    const acting = actingSeat(view);
    const mine = acting !== null && acting === view.viewer;
    const show = (el: HTMLElement, on: boolean) => {
      el.hidden = !on;
    };
    show(e.roll!, view.phase === 'decide' && mine);
    show(e.double!, view.phase === 'decide' && mine && canDouble(view));
    show(e.undo!, scene.interactive);
    show(e.redo!, scene.interactive);
    show(e.end!, scene.interactive && !this.settings.autoConfirm);
    (e.undo as HTMLButtonElement).disabled = !scene.canUndo;
    (e.redo as HTMLButtonElement).disabled = !scene.canRedo;
    (e.end as HTMLButtonElement).disabled = !scene.turnComplete;
    e.resign!.hidden = !(mine && (view.phase === 'decide' || view.phase === 'moving'));

    const name = (s: Seat | null) => (s === null ? '' : view.players[s].name);
    let status = '';
    if (view.phase === 'waiting') status = 'Waiting for the opponent…';
    else if (view.phase === 'rolloff') status = 'Opening roll…';
    else if (view.phase === 'rolling') status = `${name(view.turn)} is rolling…`;
    else if (view.phase === 'decide') status = `${name(view.turn)}: double or roll`;
    else if (view.phase === 'moving' && view.dice) {
      const [a, b] = view.dice.values;
      const left = this.ui && scene.interactive ? this.ui.turn.maxUsed - this.ui.turn.steps.length : 0;
      status = `${name(view.turn)} to play ${a}–${b}`;
      if (scene.interactive && this.ui!.turn.maxUsed === 0) status += ': no legal move';
      else if (scene.interactive && left === 0) status += ': end the turn';
      else if (scene.interactive && this.ui!.turn.maxUsed < (a === b ? 4 : 2)) status += ` (only ${this.ui!.turn.maxUsed} can be played)`;
    } else if (view.phase === 'offer') status = `${name(acting)} to answer`;
    else if (view.phase === 'gameover' && view.result) status = resultHeadline(view, view.result);
    if (view.pending) status = 'Sending your move…';
    e.status!.textContent = status;

    const d = view.dice;
    e.check!.className = `check ${d ? d.check : 'none'}`;
    e.check!.textContent = !d
      ? ''
      : {
          pending: `Roll ${d.k}: checking the dice against both commitments…`,
          verified: `Roll ${d.k}: dice verified against both commitments ✓`,
          alarm: `Roll ${d.k}: ALARM — these dice do not match the commitments!`,
          unverified: `Roll ${d.k}: practice dice (no fairness proof)`,
        }[d.check];
    e.check!.setAttribute('role', d?.check === 'alarm' ? 'alert' : 'status');
  }

  private renderMoves(): void {
    const scene = this.scene!;
    const ui = this.ui;
    const e = this.els;
    const list = e.list!;
    const hadFocus = list.contains(document.activeElement) ? (document.activeElement as HTMLElement).dataset.index : undefined;
    list.replaceChildren();
    for (const opt of scene.options) {
      const die = h('span', { class: `d d${opt.die}`, 'aria-hidden': 'true', text: String(opt.die) });
      const from = opt.step.from === BAR ? 'Bar' : String(opt.step.from);
      const to = opt.step.to === OFF ? 'Off' : String(opt.step.to);
      const btn = h(
        'button',
        {
          type: 'button',
          class: 'opt',
          'data-index': String(opt.index),
          'aria-label': `${from} to ${to}${opt.step.hit ? ', hits' : ''}, using die ${opt.die}`,
        },
        h('span', { class: 'mv', text: opt.label }),
        ' ',
        h('span', { class: 'using', text: 'die' }),
        ' ',
        die,
      );
      const picked = scene.listPick === opt.index;
      btn.setAttribute('aria-pressed', String(picked));
      const li = h('li', {}, btn);
      if (ui?.selected === opt.step.from) li.classList.add('from-selected');
      btn.addEventListener('click', () => {
        const cur = this.interactive();
        if (!cur) return;
        this.update(cur.listPick === opt.index ? mc.playListStep(cur, opt.index) : mc.pickListStep(cur, opt.index));
        (this.els.list!.querySelector(`button[data-index="${opt.index}"]`) as HTMLButtonElement | null)?.focus();
        if (!this.els.list!.contains(document.activeElement)) (this.els.list!.querySelector('button') as HTMLButtonElement | null)?.focus();
      });
      list.append(li);
    }
    if (hadFocus !== undefined) (list.querySelector(`button[data-index="${hadFocus}"]`) as HTMLButtonElement | null)?.focus();
    const empty = scene.options.length === 0;
    list.dataset.empty = empty ? (scene.interactive ? (scene.turnComplete ? 'done' : 'none') : 'wait') : '';
    (e.play as HTMLButtonElement).disabled = scene.listPick === null;
    e.play!.hidden = !scene.interactive;

    const choice = e.choice!;
    if (ui?.choice && scene.interactive) {
      const to = ui.choice.to === OFF ? 'off' : `point ${ui.choice.to}`;
      choice.replaceChildren(h('p', { text: `Choose how to move to ${to}:` }));
      ui.choice.routes.forEach((route, i) => {
        const dice = route.steps.map((s) => s.die).join(' then ');
        const b = button(`${routeLabel(route)}`, 'btn choose');
        b.append(' ', h('span', { class: 'using', text: `die ${dice}` }));
        b.addEventListener('click', () => this.update(mc.pickChoice(this.interactive()!, i)));
        choice.append(b);
      });
      const cancel = button('Cancel', 'btn ghost');
      cancel.addEventListener('click', () => this.update(mc.clear(this.interactive()!)));
      choice.append(cancel);
      choice.hidden = false;
    } else {
      choice.hidden = true;
      choice.replaceChildren();
    }
  }

  private renderOffer(): void {
    const view = this.view;
    const box = this.els.offer!;
    const offer = view.offer;
    const acting = actingSeat(view);
    if (view.phase !== 'offer' || !offer) {
      box.hidden = true;
      return;
    }
    const by = view.players[offer.by].name;
    const mine = acting !== null && acting === view.viewer;
    const text =
      offer.kind === 'double'
        ? `${by} doubles to ${offer.value}.`
        : `${by} offers to resign ${RESIGN_NAMES[offer.level]} (${pointsLabel(offer.level * view.cube.value)}).`;
    const kids: Node[] = [h('p', { class: 'offer-text', text })];
    if (mine) {
      const [yes, no] =
        offer.kind === 'double'
          ? [button('Take', 'btn primary take'), button('Drop', 'btn drop')]
          : [button('Accept', 'btn primary accept'), button('Reject', 'btn reject')];
      yes.addEventListener('click', () => (offer.kind === 'double' ? this.source.take() : this.source.acceptResign()));
      no.addEventListener('click', () => (offer.kind === 'double' ? this.source.drop() : this.source.rejectResign()));
      kids.push(h('div', { class: 'row' }, yes, no));
    } else {
      kids.push(h('p', { class: 'sub', text: `Waiting for ${view.players[acting ?? 0].name}…` }));
    }
    box.replaceChildren(...kids);
    box.hidden = false;
  }

  private renderResult(): void {
    const view = this.view;
    const box = this.els.result!;
    const r = view.result;
    if (view.phase !== 'gameover' || !r) {
      box.hidden = true;
      return;
    }
    if (!box.hidden && box.dataset.shown === `${view.match.gameNo}`) return;
    box.dataset.shown = `${view.match.gameNo}`;
    const [a, b] = r.score;
    const kids: Node[] = [
      h('div', { class: `trophy s${r.winner}`, 'aria-hidden': 'true' }),
      h('h2', { id: 'result-title', text: resultHeadline(view, r) }),
      h('p', { class: 'points', text: `${pointsLabel(r.points)}${r.matchOver && view.match.kind === 'match' ? ' · match over' : ''}` }),
    ];
    if (view.match.kind !== 'single') {
      kids.push(h('p', { class: 'final', text: `${view.players[0].name} ${a} – ${b} ${view.players[1].name}` }));
    }
    if (r.links?.length) {
      kids.push(h('p', { class: 'links' }, ...r.links.map((l) => h('a', { href: l.href, text: l.label }))));
    }
    const next = button(r.matchOver ? 'Rematch' : 'Next game', 'btn primary next');
    next.addEventListener('click', () => this.source.next());
    kids.push(next);
    box.replaceChildren(...kids);
    box.hidden = false;
  }

  private renderFairness(): void {
    const f = this.view.fairness;
    const box = this.els.fairness as HTMLDetailsElement;
    const open = box.open;
    const kids: Node[] = [h('summary', { text: 'Fairness: commitments and reveals' })];
    if (!f) {
      kids.push(h('p', { text: 'These dice carry no fairness proof (practice dice).' }));
    } else {
      const short = (hex: string | null) => (hex ? `${hex.slice(0, 16)}…` : '—');
      kids.push(
        h('p', { class: 'commit' }, `Commitments: ${this.view.players[0].name} `, h('code', { text: short(f.commitments[0]) }), ` · ${this.view.players[1].name} `, h('code', { text: short(f.commitments[1]) })),
      );
      const ol = h('ol', { class: 'rolls' });
      for (const r of f.rolls.slice(-12).reverse()) {
        ol.append(
          h(
            'li',
            { class: r.check },
            h('span', { class: 'k', text: `#${r.k}` }),
            h('span', { class: 'dv', text: `${r.dice[0]}–${r.dice[1]}` }),
            h('span', { class: 'ck', text: r.check === 'verified' ? '✓ verified' : r.check === 'alarm' ? '⚠ mismatch' : r.check }),
            h('code', { text: `${r.reveals[0].slice(0, 8)}… ${r.reveals[1].slice(0, 8)}…` }),
          ),
        );
      }
      kids.push(ol);
    }
    box.replaceChildren(...kids);
    box.open = open;
  }

  private renderNotice(): void {
    const n = this.view.notice;
    const el = this.els.notice!;
    if (!n || n.id === this.lastNotice) return;
    this.lastNotice = n.id;
    el.textContent = n.text;
    el.classList.add('show');
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => el.classList.remove('show'), 3200);
  }
}
