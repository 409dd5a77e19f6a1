/**
 * The board screen: SVG board, player bars, status and dice check, the action buttons, the
 * move list, offers, the result, the fairness panel, settings and the keyboard. It renders
 * GameViews from a GameSource and sends only GameActions back, so a local driver and the
 * network driver are interchangeable.
 */

import { stepLabel, turnMoves } from '../engine/turn';
import type { GameActions, GameSource, GameView } from '../view/gameView';
import { type Seat, actingSeat, canDouble, other } from '../view/gameView';
import { BoardSvg } from './boardSvg';
import { renderOffer, renderResult } from './dialogs';
import { button, h } from './dom';
import { renderFairness } from './fairnessPanel';
import { applyToDocument, t } from '../i18n';
import { languageSelect } from './languageSelect';
import { diceCheckLine, matchLabel, shownScore, statusLine } from './format';
import { commandFor, moveFocus } from './keyboard';
import * as mc from './moveController';
import { MoveListPanel } from './moveList';
import { PlayerBar } from './playerBar';
import { type Scene, buildScene, playArrows, screenPlace } from './scene';
import { rulesOf } from '../engine/variants';
import { type Settings, loadSettings, pauseOf, saveSettings } from './settings';
import { play } from './sound';
import './playfeel.css';
import { applyBoardOptions, buildSettingsPanel } from './playfeel';

export interface BoardAppOptions {
  /** Title shown in the header. */
  readonly title?: string;
  /** Where the brand in the header leads (the lobby), if anywhere. */
  readonly home?: string;
  /** Where the language picker goes: the header (pages of the site), or the end of the side
   * column (the practice page, whose header has nothing to focus: Tab reaches the board first). */
  readonly languagePicker?: 'header' | 'side';
}

export class BoardApp {
  private view: GameView;
  private ui: mc.MoveUi | null = null;
  /** A play drawn on the board instead of the last one (a hint), until cleared. */
  private shownPlay: { readonly seat: Seat; readonly moves: readonly (readonly [number, number])[] } | null = null;
  private uiKey = '';
  private wasPending = false;
  private scene: Scene | null = null;
  private settings: Settings = loadSettings();
  private readonly board: BoardSvg;
  private readonly bars = { top: new PlayerBar('top'), bottom: new PlayerBar('bottom') };
  private readonly moves: MoveListPanel;
  private readonly header = {
    match: h('span', { class: 'matchinfo' }),
    score: h('span', { class: 'score' }),
    crawford: h('span', { class: 'badge crawford', text: t('board.crawford'), title: t('board.crawfordTitle') }),
    watchers: h('span', { class: 'badge watchers' }),
    spectating: h('span', { class: 'badge spectating', text: t('board.spectating') }),
  };
  private readonly notice = h('div', { class: 'toast', role: 'status', 'aria-live': 'polite' });
  private readonly result = h('div', { class: 'result', role: 'dialog', 'aria-labelledby': 'result-title', hidden: '' });
  private readonly offer = h('div', { class: 'offer', role: 'alertdialog', hidden: '' });
  private readonly status = h('div', { class: 'status', role: 'status', 'aria-live': 'polite' });
  private readonly announce = h('div', { class: 'sr-only', 'aria-live': 'assertive' });
  private readonly check = h('div', { class: 'check' });
  private readonly buttons = {
    roll: button(t('board.roll'), 'btn primary roll', 'D'),
    double: button(t('board.double'), 'btn double', '⇧D'),
    undo: button(t('board.undo'), 'btn undo', 'U'),
    redo: button(t('board.redo'), 'btn redo', 'R'),
    end: button(t('board.endTurn'), 'btn primary end', 'E'),
  };
  /** The second step of a double: nothing is offered before this is confirmed. */
  private readonly doubleAsk = h('div', { class: 'double-ask', role: 'group', 'aria-label': t('board.confirmDouble'), hidden: '' });
  private doubleArmed = false;
  /** The second step of a resignation (with a warning when the game cannot be lost that badly). */
  private readonly resignAsk = h('div', { class: 'resign-ask', role: 'group', 'aria-label': t('board.confirmResign'), hidden: '' });
  private resignArmed: 1 | 2 | 3 | null = null;
  /** What the controls send: each action once per state of the game (GameView.version). */
  private readonly actions: GameActions;
  private sentKey = '';
  /** The forced play sent by itself for this turn (its key), so it goes out once. */
  private forcedKey = '';
  /** The turn is complete and goes out by itself at this moment unless undone (auto-send). */
  private sendTimer: ReturnType<typeof setTimeout> | null = null;
  private rollTimer: ReturnType<typeof setTimeout> | null = null;
  private rollKey = '';
  private cueKey = '';
  private lowCued = '';
  private readonly resign = h('details', { class: 'more' });
  /** The resign buttons by level (their visibility follows `resignLevels`). */
  private readonly resignButtons: [1 | 2 | 3, HTMLElement][] = [];
  /** Page-specific controls in the row of the dice controls (the Hint button): within reach. */
  readonly actionsExtra = h('span', { class: 'actions-extra' });
  /** Page-specific output right under those controls (a hint): shown without moving the board. */
  readonly afterActions = h('div', { class: 'after-actions' });
  /** Page-specific panels over the board (invite, join), above the board's own dialogs. */
  readonly overlay = h('div', { class: 'page-overlay' });
  /** Page-specific panels after the controls (the move record): beside the board, below it on a phone. */
  readonly sideMain = h('div', { class: 'side-main' });
  /** Page-specific panels at the end of the side column. */
  readonly sideExtra = h('div', { class: 'side-extra' });
  /** Page-specific links right under the move list (not buried under the folded panels). */
  readonly sideLinks = h('div', { class: 'side-links' });
  /** Page-specific items in the header, before the match details. */
  readonly headerExtra = h('span', { class: 'header-extra' });
  private readonly fairness = h('details', { class: 'fairness' });
  private lastNotice = 0;
  /** Steps taken back with Undo on this page (achievements: a win without Undo). */
  undoCount = 0;
  private noticeTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly root: HTMLElement,
    source: GameSource,
    options: BoardAppOptions = {},
  ) {
    this.view = source.current();
    this.actions = this.once(source);
    this.board = new BoardSvg({
      place: (p) => this.onPlace(p),
      drop: (from, to) => this.onDrop(from, to),
      dragStart: (from) => this.withUi((ui) => mc.select(ui, this.toMover(from))),
    });
    this.moves = new MoveListPanel({
      option: (i) => {
        this.withUi((ui) => (ui.listPick === i ? mc.playListStep(ui, i) : mc.pickListStep(ui, i)));
        this.moves.focusOption(i);
      },
      play: () => this.withUi((ui) => mc.playListStep(ui)),
      choose: (i) => this.withUi((ui) => mc.pickChoice(ui, i)),
      cancel: () => this.withUi(mc.clear),
    });
    this.build(options.title ?? 'fairgammon', options.home, options.languagePicker ?? 'header');
    source.subscribe((v) => this.setView(v));
    document.addEventListener('keydown', (e) => this.onKey(e));
    setInterval(() => this.tick(), 200);
    this.setView(this.view);
  }

  // ---- layout -------------------------------------------------------------------------------

  private build(title: string, home: string | undefined, picker: 'header' | 'side'): void {
    const hd = this.header;
    const logo = h('span', { class: 'logo', 'aria-hidden': 'true' });
    const brand = home ? h('a', { class: 'brand', href: home, title: t('nav.lobby') }, logo, title) : h('span', { class: 'brand' }, logo, title);
    const header = h(
      'header',
      { class: 'topbar' },
      brand,
      h('span', { class: 'matchbox' }, this.headerExtra, hd.match, hd.score, hd.crawford, hd.watchers, hd.spectating, ...(picker === 'header' ? [languageSelect()] : [])),
    );
    applyToDocument();
    // Nothing a decision is about is covered: offers and results sit beside (or, on a phone,
    // under) the board, and notices take the status line's place for a moment.
    const boardWrap = h('div', { class: 'board-wrap' }, this.board.el, this.overlay);
    const boardArea = h(
      'section',
      { class: 'board-area', 'aria-label': t('board.game') },
      this.bars.top.root,
      boardWrap,
      this.bars.bottom.root,
    );
    const b = this.buttons;
    b.roll.addEventListener('click', () => this.actions.roll());
    b.double.addEventListener('click', () => this.armDouble());
    b.undo.addEventListener('click', () => this.undoStep());
    b.redo.addEventListener('click', () => this.withUi(mc.redo));
    b.end.addEventListener('click', () => this.endTurn());
    const actions = h('div', { class: 'actions' }, b.roll, b.undo, b.redo, b.end, b.double, this.actionsExtra);

    this.resign.append(h('summary', { text: t('board.resignMenu') }));
    for (const level of [1, 2, 3] as const) {
      const rb = button(t('board.resign', { level }), `btn ghost resign-${level}`);
      rb.addEventListener('click', () => {
        this.resign.open = false;
        this.armResign(level);
      });
      this.resign.append(rb);
      this.resignButtons.push([level, rb]);
    }
    const side = h(
      'aside',
      { class: 'side', 'aria-label': t('board.controls') },
      h('div', { class: 'callouts' }, this.offer, this.result),
      h('div', { class: 'statusbox' }, this.status, this.notice),
      this.announce,
      this.check,
      actions,
      this.doubleAsk,
      this.resignAsk,
      this.afterActions,
      this.moves.root,
      this.sideLinks,
      this.resign,
      this.sideMain,
      this.fairness,
      this.buildSettings(),
      this.sideExtra,
      ...(picker === 'side' ? [h('p', { class: 'side-language' }, languageSelect())] : []),
    );
    this.root.classList.add('fg-app');
    applyBoardOptions(this.root, this.settings);
    this.root.replaceChildren(header, h('main', { class: 'table' }, boardArea, side));
  }

  private buildSettings(): HTMLElement {
    this.settingsPanel = buildSettingsPanel(this.settings, (next) => {
      this.settings = next;
      saveSettings(next);
      applyBoardOptions(this.root, next);
      for (const listener of this.settingsListeners) listener(next);
      this.render();
    });
    return this.settingsPanel;
  }

  private readonly settingsListeners = new Set<(settings: Settings) => void>();
  private settingsPanel: HTMLElement | null = null;

  /** Change some settings from elsewhere on the page (a quick switch beside the board). */
  updateSettings(patch: Partial<Settings>): void {
    this.settings = { ...this.settings, ...patch };
    saveSettings(this.settings);
    applyBoardOptions(this.root, this.settings);
    const panel = this.settingsPanel;
    if (panel) {
      const fresh = this.buildSettings();
      (fresh as HTMLDetailsElement).open = (panel as HTMLDetailsElement).open;
      panel.replaceWith(fresh);
    }
    for (const listener of this.settingsListeners) listener(this.settings);
    this.render();
  }

  /** The player's settings now, and each change (a page tells the computer the pace). */
  onSettings(listener: (settings: Settings) => void): void {
    this.settingsListeners.add(listener);
    listener(this.settings);
  }

  /**
   * The actions of `source`, each sent once for a state of the game: a second click (a double
   * click, a key held down, the roll by itself meeting a click) before the game has moved on
   * sends nothing; after a refusal (shown as a notice) it may be sent again. A local game
   * answers at once, so only a network game (version > 0) needs it.
   */
  private once(source: GameSource): GameActions {
    const guard =
      <A extends unknown[]>(act: (...args: A) => void) =>
      (...args: A): void => {
        const v = this.view;
        if (v.version > 0) {
          // A refusal is a notice: after one, the player may try again in the same state.
          const key = `${v.version}|${v.match.gameNo}|${v.phase}|${v.turn}|${v.dice?.k ?? ''}|${v.notice?.id ?? ''}`;
          if (key === this.sentKey) return;
          this.sentKey = key;
        }
        act(...args);
      };
    return {
      roll: guard(() => source.roll()),
      double: guard(() => source.double()),
      take: guard(() => source.take()),
      drop: guard(() => source.drop()),
      beaver: source.beaver && guard(() => source.beaver?.()),
      play: guard((moves) => source.play(moves)),
      resign: guard((level) => source.resign(level)),
      acceptResign: guard(() => source.acceptResign()),
      rejectResign: guard(() => source.rejectResign()),
      next: guard(() => source.next()),
      stop: source.stop && guard(() => source.stop?.()),
    };
  }

  // ---- state --------------------------------------------------------------------------------

  private setView(view: GameView): void {
    this.view = view;
    const key =
      view.phase === 'moving' && view.dice && view.turn !== null && view.turn === view.viewer
        ? `${view.match.gameNo}:${view.dice.k}:${view.turn}`
        : '';
    // A play the server refused (pending, then not, same turn): start the turn afresh, so the
    // board shows the acknowledged position again; the driver's notice says why.
    const refused = this.wasPending && !view.pending && key === this.uiKey;
    this.wasPending = view.pending;
    if (key !== this.uiKey || refused) {
      this.uiKey = key;
      this.cancelSend();
      if (key && view.dice && view.turn !== null) {
        const seat = view.turn;
        const pins = view.pinned ?? [0, 0];
        const position = {
          mover: view.boards[seat],
          opponent: view.boards[seat === 0 ? 1 : 0],
          moverPinned: pins[seat],
          opponentPinned: pins[seat === 0 ? 1 : 0],
        };
        this.ui = mc.newMoveUi(position, view.dice.values[0], view.dice.values[1], rulesOf(view.variant));
      } else {
        this.ui = null;
      }
    }
    this.autoRoll(view);
    this.render();
    this.playForced();
    this.cue(view);
  }

  /**
   * A forced play (one legal play of the roll) goes out by itself at once with the quick play
   * feel (the turn is sent by itself) or fast play: there is nothing to choose and nothing to
   * wait for. With End turn by hand it waits for End turn, as the player chose.
   */
  private playForced(): void {
    const ui = this.ui;
    if (!ui || !this.scene?.interactive || this.forcedKey === this.uiKey) return;
    if (!(this.settings.autoConfirm || this.settings.fast) || this.view.pending || this.view.paused) return;
    this.forcedKey = this.uiKey;
    if (ui.turn.maxUsed === 0 || ui.turn.steps.length > 0) return;
    const play = mc.forcedPlay(ui);
    if (play === null) return;
    this.cancelSend();
    this.actions.play(play);
  }

  /** Apply a change to the turn in progress, when this screen may move now. */
  private withUi(change: (ui: mc.MoveUi) => mc.MoveUi): void {
    const ui = this.scene?.interactive ? this.ui : null;
    if (ui) this.update(change(ui));
  }

  private update(ui: mc.MoveUi): void {
    const before = this.ui?.turn.steps.length ?? 0;
    const moved = this.ui !== null && ui.turn.steps.length !== before;
    this.ui = ui;
    if (moved) {
      const steps = ui.turn.steps;
      const last = steps[steps.length - 1];
      const cue = steps.length < before || !last ? 'move' : last.hit ? 'hit' : last.to === 0 ? 'off' : 'move';
      play(cue, this.settings.sound, this.settings.volume);
      // Screen readers hear each step (the board itself changes silently).
      this.announce.textContent =
        steps.length > before && last
          ? t('board.moved', { step: stepLabel(last), die: String(last.die) })
          : t('board.undone', { n: steps.length, steps: steps.map(stepLabel).join(', ') });
    }
    if (moved) this.cancelSend();
    if (moved && this.settings.autoConfirm && mc.complete(ui) && ui.turn.maxUsed > 0) {
      // A moment to take the last step back before the turn goes out by itself.
      this.sendTimer = setTimeout(() => {
        this.sendTimer = null;
        this.endTurn();
      }, pauseOf(this.settings));
    }
    this.render();
    if (ui.choice) this.moves.focusChoice();
  }

  // ---- input --------------------------------------------------------------------------------

  /** A place on the screen in the mover's numbering (they differ when the board keeps a side). */
  private toMover(place: number): number {
    const s = this.scene;
    return s && place >= 1 && place <= 24 ? screenPlace(s.mover, s.bottom, place, s.facing) : place;
  }

  private onPlace(screen: number): void {
    if (screen >= 1 && screen <= 24) this.board.focused = screen;
    const place = this.toMover(screen);
    this.withUi((ui) => (this.settings.quickMove ? mc.quickTap(ui, place) : mc.tap(ui, place)));
  }

  private onDrop(screenFrom: number, screenTo: number): void {
    const from = this.toMover(screenFrom);
    const to = this.toMover(screenTo);
    this.withUi((ui) => {
      const selected = ui.selected === from ? ui : mc.select(ui, from);
      return selected.targets.has(to) ? mc.moveTo(selected, to) : mc.clear(selected);
    });
  }

  private endTurn(): void {
    this.cancelSend();
    const ui = this.scene?.interactive ? this.ui : null;
    if (ui && mc.complete(ui)) this.actions.play(turnMoves(ui.turn));
  }

  private undoStep(): void {
    const before = this.ui?.turn.steps.length ?? 0;
    this.withUi(mc.undo);
    if ((this.ui?.turn.steps.length ?? 0) < before) this.undoCount++;
  }

  private cancelSend(): void {
    if (this.sendTimer) clearTimeout(this.sendTimer);
    this.sendTimer = null;
  }

  /** My cube decision now (the board may offer Double or Roll). */
  private deciding(view: GameView = this.view): boolean {
    return view.phase === 'decide' && actingSeat(view) === view.viewer && view.viewer !== null && !view.paused;
  }

  /** Double is two steps: this one asks, the confirmation offers it. */
  private armDouble(): void {
    if (!this.deciding() || !canDouble(this.view)) return;
    this.doubleArmed = true;
    if (this.rollTimer) clearTimeout(this.rollTimer);
    this.rollTimer = null;
    this.render();
    this.doubleAsk.querySelector<HTMLElement>('button.confirm-double')?.focus();
  }

  private disarmDouble(): void {
    this.doubleArmed = false;
    this.render();
  }

  /**
   * Roll by itself after a moment when the player lets the cube be (setting), unless they
   * choose Double meanwhile. Once per decision.
   */
  private autoRoll(view: GameView): void {
    const key = this.deciding(view) ? `${view.match.gameNo}:${view.version}:${view.turn}:${view.cube.value}:${view.cube.owner}` : '';
    if (key === this.rollKey) return;
    this.rollKey = key;
    if (this.rollTimer) clearTimeout(this.rollTimer);
    this.rollTimer = null;
    this.doubleArmed = false;
    if (!key || !this.settings.autoRoll) return;
    this.rollTimer = setTimeout(() => {
      this.rollTimer = null;
      if (this.deciding() && !this.doubleArmed && this.rollKey === key) this.actions.roll();
    }, pauseOf(this.settings));
  }

  /** Sounds of what just happened: dice, your turn. */
  private cue(view: GameView): void {
    const d = view.dice;
    const mineNow = actingSeat(view) !== null && actingSeat(view) === view.viewer;
    const key = `${view.match.gameNo}:${d?.k ?? ''}:${mineNow}`;
    if (key === this.cueKey) return;
    const before = this.cueKey;
    this.cueKey = key;
    if (!before) return;
    if (d && !before.startsWith(`${view.match.gameNo}:${d.k}:`)) play('dice', this.settings.sound, this.settings.volume);
    else if (mineNow) play('turn', this.settings.sound, this.settings.volume);
  }

  private onKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target as HTMLElement | null;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) return;
    const onBoard = this.board.hasFocus() || target === document.body || target === null;
    if (e.key.startsWith('Arrow') && target?.closest('.movelist')) {
      this.moves.step(target, e.key === 'ArrowDown' || e.key === 'ArrowRight');
      e.preventDefault();
      return;
    }
    const focus = onBoard ? moveFocus(this.board.focused, e.key) : null;
    if (focus !== null) {
      this.board.focus(focus);
      e.preventDefault();
      return;
    }
    if ((e.key === 'Enter' || e.key === ' ') && this.board.hasFocus()) {
      this.onPlace(this.board.focused);
      e.preventDefault();
      return;
    }
    const command = commandFor(e.key, e.shiftKey);
    if (!command) return;
    e.preventDefault();
    switch (command) {
      case 'bar':
        this.withUi(mc.selectBar);
        if (!this.board.hasFocus()) this.board.focus(this.board.focused);
        break;
      case 'off':
        this.withUi(mc.bearOff);
        break;
      case 'undo':
        this.undoStep();
        break;
      case 'redo':
        this.withUi(mc.redo);
        break;
      case 'roll':
        if (this.deciding()) this.actions.roll();
        break;
      case 'double':
        if (this.doubleArmed) this.sendDouble();
        else this.armDouble();
        break;
      case 'end':
        this.endTurn();
        break;
      case 'clear':
        if (this.doubleArmed) this.disarmDouble();
        if (this.resignArmed !== null) this.disarmResign();
        this.withUi(mc.clear);
        break;
    }
  }

  // ---- rendering ----------------------------------------------------------------------------

  /** Which seats bot accounts hold (outside engines, docs/accounts.md "Bot accounts"): their
   * bars show a BOT tag. */
  markBots(seats: readonly [boolean, boolean]): void {
    this.botSeats = seats;
    this.render();
  }

  private botSeats: readonly [boolean, boolean] = [false, false];

  /** Draw `play` (a hint: `[from, to]` in `seat`'s points) as arrows on the board until the
   * player starts moving checkers, or until cleared with null. */
  showPlay(play: { readonly seat: Seat; readonly moves: readonly (readonly [number, number])[] } | null): void {
    this.shownPlay = play;
    this.render();
  }

  private render(): void {
    const view = this.view;
    let scene = buildScene(view, this.ui, this.settings.flipSpectator ? 1 : 0);
    if (this.shownPlay && !(this.ui && this.ui.turn.steps.length > 0)) {
      scene = { ...scene, arrows: playArrows(this.shownPlay.seat, scene.bottom, this.shownPlay.moves, scene.facing), hinted: true };
    }
    this.scene = scene;
    this.board.setNames([view.players[0].name, view.players[1].name]);
    this.board.render(scene);
    this.root.dataset.phase = view.phase;
    this.renderHeader();
    for (const [where, seat] of [['top', scene.top], ['bottom', scene.bottom]] as const) {
      const acting = scene.acting === seat || (view.phase === 'rolling' && view.turn === seat);
      this.bars[where].render(view, seat, scene.pips[seat]!, acting, this.botSeats[seat]);
    }
    this.renderControls(scene);
    this.moves.render(scene, scene.interactive ? this.ui : null);
    renderOffer(this.offer, view, this.actions);
    renderResult(this.result, view, this.actions);
    renderFairness(this.fairness, view);
    this.renderNotice();
    this.tick();
  }

  private renderHeader(): void {
    const { match, spectators, players } = this.view;
    this.header.match.textContent = matchLabel(match);
    const [a, b] = shownScore(match);
    this.header.score.textContent = match.kind === 'single' ? '' : `${players[0].name} ${a} – ${b} ${players[1].name}`;
    this.header.crawford.hidden = !match.crawford;
    this.header.watchers.hidden = spectators === 0;
    this.header.watchers.textContent = t('board.watching', { n: spectators });
    this.header.watchers.setAttribute('aria-label', t('board.watchingLabel', { n: spectators }));
    this.header.spectating.hidden = this.view.viewer !== null;
    // The legal steps of this roll, only while this screen plays it (never an empty panel).
    this.moves.root.hidden = this.view.viewer === null || !this.scene?.interactive;
  }

  private tick(): void {
    const scene = this.scene;
    if (!scene) return;
    const now = Date.now();
    const me = this.view.viewer;
    const deadline = me !== null ? this.view.clocks[me].deadline : null;
    if (deadline !== null && deadline - now < 10_000 && deadline - now > 0 && this.lowCued !== String(deadline)) {
      this.lowCued = String(deadline);
      play('low', this.settings.sound, this.settings.volume);
    }
    this.bars.top.tick(this.view, scene.top, now);
    this.bars.bottom.tick(this.view, scene.bottom, now);
  }

  private renderControls(scene: Scene): void {
    const view = this.view;
    const b = this.buttons;
    const acting = actingSeat(view);
    const mine = acting !== null && acting === view.viewer;
    const armed = this.doubleArmed && view.phase === 'decide' && mine && canDouble(view);
    b.roll.hidden = !(view.phase === 'decide' && mine) || armed;
    b.double.hidden = !(view.phase === 'decide' && mine && canDouble(view)) || armed;
    this.renderDoubleAsk(armed);
    b.undo.hidden = !scene.interactive;
    b.redo.hidden = !scene.interactive;
    // With auto-send, End turn shows only in the moment before the turn goes out ("Send now").
    b.end.hidden = !scene.interactive || (this.settings.autoConfirm && this.sendTimer === null);
    b.undo.disabled = !scene.canUndo;
    b.redo.disabled = !scene.canRedo;
    b.end.disabled = !scene.turnComplete;
    this.resign.hidden = !(mine && (view.phase === 'decide' || view.phase === 'moving')) || this.resignArmed !== null;
    this.renderResignAsk(mine && (view.phase === 'decide' || view.phase === 'moving'));
    for (const [level, rb] of this.resignButtons) rb.hidden = view.resignLevels !== undefined && !view.resignLevels.includes(level);
    const ui = scene.interactive ? this.ui : null;
    this.status.textContent =
      (!view.pending && view.status) || statusLine(view, scene.interactive, ui?.turn.maxUsed ?? 0, ui?.turn.steps.length ?? 0);
    if (this.sendTimer !== null && scene.interactive) this.status.textContent = t('status.sendingUndo');
    else if (this.rollTimer !== null && this.deciding()) this.status.textContent = t('status.rollingDouble');
    const d = view.dice;
    this.check.className = `check ${d ? d.check : 'none'}`;
    this.check.textContent = diceCheckLine(d);
    this.check.setAttribute('role', d?.check === 'alarm' ? 'alert' : 'status');
  }

  private renderDoubleAsk(armed: boolean): void {
    this.doubleAsk.hidden = !armed;
    if (!armed) return;
    if (this.doubleAsk.dataset.value === String(this.view.cube.value * 2)) return;
    this.doubleAsk.dataset.value = String(this.view.cube.value * 2);
    const value = this.view.cube.value * 2;
    const yes = button(t('board.doubleTo', { value }), 'btn primary confirm-double', '⇧D');
    const no = button(t('common.cancel'), 'btn ghost cancel-double', 'Esc');
    yes.addEventListener('click', () => this.sendDouble());
    no.addEventListener('click', () => this.disarmDouble());
    this.doubleAsk.replaceChildren(h('p', { class: 'ask', text: t('board.doubleAsk', { value }) }), h('div', { class: 'row' }, yes, no));
  }

  /** Offer the double asked for: once (the button goes as it is clicked). */
  private sendDouble(): void {
    if (!this.doubleArmed) return;
    this.doubleArmed = false;
    this.doubleAsk.hidden = true;
    this.actions.double();
  }

  /** Resigning is two steps: this one asks, and warns when the game cannot end that badly. */
  private armResign(level: 1 | 2 | 3): void {
    const v = this.view;
    if (v.viewer === null || actingSeat(v) !== v.viewer) return;
    this.resignArmed = level;
    this.resignAsk.dataset.shown = '';
    this.render();
    this.resignAsk.querySelector<HTMLElement>('button.confirm-resign')?.focus();
  }

  private disarmResign(): void {
    this.resignArmed = null;
    this.render();
  }

  private renderResignAsk(may: boolean): void {
    const level = this.resignArmed;
    const v = this.view;
    if (level === null || !may || v.viewer === null) {
      this.resignArmed = null;
      this.resignAsk.hidden = true;
      return;
    }
    this.resignAsk.hidden = false;
    const key = `${level}:${v.version}:${v.match.gameNo}:${v.turn}`;
    if (this.resignAsk.dataset.shown === key) return;
    this.resignAsk.dataset.shown = key;
    const me = v.viewer;
    const mine = v.boards[me];
    const theirs = v.boards[other(me)];
    const points = level * v.cube.value;
    const them = v.players[other(me)].name;
    const kids: Node[] = [h('p', { class: 'ask', text: t('board.resignAsk', { level, name: them, points }) })];
    // A resignation worth more than the game can cost: say so before it is sent.
    const rules = rulesOf(v.variant);
    if (rules.cannotLose(mine, theirs, 1)) {
      kids.push(h('p', { class: 'warn', role: 'alert', text: t('board.cannotLose') }));
    } else if (level > 1 && rules.cannotLose(mine, theirs, level)) {
      kids.push(h('p', { class: 'warn', role: 'alert', text: t('board.cannotLoseLevel', { level }) }));
    } else if (level > rules.worstPossible(mine, theirs)) {
      kids.push(h('p', { class: 'warn', role: 'alert', text: t('board.cannotEndThatBadly') }));
    }
    const yes = button(t('board.resign', { level }), 'btn primary confirm-resign');
    const no = button(t('common.cancel'), 'btn ghost cancel-resign', 'Esc');
    yes.addEventListener('click', () => {
      this.resignArmed = null;
      this.resignAsk.hidden = true;
      this.actions.resign(level);
      this.render();
    });
    no.addEventListener('click', () => this.disarmResign());
    this.resignAsk.replaceChildren(...kids, h('div', { class: 'row' }, yes, no));
  }

  private renderNotice(): void {
    const n = this.view.notice;
    if (!n || n.id === this.lastNotice) return;
    this.lastNotice = n.id;
    this.notice.textContent = n.text;
    this.notice.classList.add('show');
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
    this.noticeTimer = setTimeout(() => this.notice.classList.remove('show'), 3200);
  }
}
