/**
 * `/local`: two players on this device. A setup (single game, match to N, money; names; a clock
 * only if wanted), the board with Pause (P hides it) and a way back to the lobby, and the game
 * saved in this browser after every decision, so a reload or a closed tab comes back to it
 * (with Resume). Fair dice from both seats' chains held here, checked like a network game.
 */

import { CHAIN_LENGTH } from '../fairdice';
import { BoardApp } from '../ui/app';
import { button, h } from '../ui/dom';
import { LocalFairDice, type SavedDice } from '../view/dice';
import type { MatchKind } from '../view/gameView';
import { LocalGame, type LocalSave } from '../view/localGame';
import { achievementsPanel, followGame } from './achievements';
import { pageHeader } from './common';
import { formatDate, t } from '../i18n';
import { tidyNames } from './localNames';
import { VARIANT_NAMES, type VariantName, hasCube, isVariantName } from '../engine/variants';
import { variantName } from '../ui/variantNames';
import './local.css';

const KEY = 'fairgammon.local.v1';

export interface LocalSetup {
  readonly kind: MatchKind;
  readonly length: number;
  readonly names: readonly [string, string];
  /** Seconds per decision; 0 = no clock (the default: nobody loses on time at home). */
  readonly clock: number;
  /** Keep the board from the first player's side (players facing each other, or one watching). */
  readonly fixedSide?: boolean;
  /** What is played (absent in saves made before variants: backgammon). */
  readonly variant?: VariantName;
}

/** Everything a reload needs: the setup, the game and its dice. */
interface Stored {
  readonly setup: LocalSetup;
  readonly game: LocalSave;
  readonly dice: SavedDice;
  readonly savedAt: number;
}

/** A game on this device waits to be resumed (the lobby's link says so). */
export function hasSavedGame(): boolean {
  return load() !== null;
}

function load(): Stored | null {
  try {
    const raw = localStorage.getItem(KEY);
    if (!raw) return null;
    const stored = JSON.parse(raw) as Stored;
    return stored.game?.v === 1 ? stored : null;
  } catch {
    return null;
  }
}

function store(stored: Stored | null): boolean {
  try {
    if (stored) localStorage.setItem(KEY, JSON.stringify(stored));
    else localStorage.removeItem(KEY);
    return true;
  } catch {
    return false;
  }
}

export function startLocalPage(root: HTMLElement): void {
  root.classList.add('fg-app', 'local-page');
  document.title = `${t('local.title')} · fairgammon`;
  const saved = load();
  if (saved) resumeScreen(root, saved);
  else setupScreen(root);
}

function describe(setup: LocalSetup): string {
  const label = t('local.describe', { a: setup.names[0], b: setup.names[1], kind: setup.kind, length: setup.length, clock: setup.clock });
  const variant = setup.variant ?? 'backgammon';
  return variant === 'backgammon' ? label : t('board.withVariant', { variant: variantName(variant), label });
}

function resumeScreen(root: HTMLElement, saved: Stored): void {
  const resume = button(t('local.resume'), 'btn primary resume');
  const fresh = button(t('local.newGame'), 'btn ghost new-game');
  const [a, b] = saved.game.score;
  const score = saved.setup.kind === 'single' ? '' : ` · ${saved.setup.names[0]} ${a} – ${b} ${saved.setup.names[1]}`;
  resume.addEventListener('click', () => void play(root, saved.setup, saved));
  fresh.addEventListener('click', () => {
    store(null);
    setupScreen(root);
  });
  root.replaceChildren(
    pageHeader(h('a', { href: '/rules', text: t('nav.howToPlay') })),
    h(
      'main',
      { class: 'center-card' },
      h(
        'section',
        { class: 'card local-resume' },
        h('h1', { text: t('local.yourGame') }),
        h('p', { class: 'sub', text: describe(saved.setup) + score }),
        h('p', { text: t('local.saved', { when: formatDate(saved.savedAt, { dateStyle: 'medium', timeStyle: 'short' }) }) }),
        h('div', { class: 'row' }, resume, fresh),
      ),
    ),
  );
  resume.focus();
}

function setupScreen(root: HTMLElement): void {
  const field = (label: string, input: HTMLElement) => h('label', { class: 'field' }, h('span', { class: 'flabel', text: label }), input);
  const name0 = h('input', { type: 'text', name: 'name0', maxlength: '24', placeholder: t('local.ivory') });
  const name1 = h('input', { type: 'text', name: 'name1', maxlength: '24', placeholder: t('local.copper') });
  const modes = [
    ['single', t('lobby.modeSingle'), t('lobby.modeSingleHint')],
    ['match', t('lobby.modeMatch'), t('lobby.modeMatchHint')],
    ['money', t('lobby.modeMoney'), t('lobby.modeMoneyHint')],
  ] as const;
  const modeGroup = h('div', { class: 'segmented', role: 'radiogroup', 'aria-label': t('local.kind') });
  for (const [value, label, hint] of modes) {
    const input = h('input', { type: 'radio', name: 'mode', value, id: `local-mode-${value}` });
    input.checked = value === 'match';
    modeGroup.append(h('label', { for: `local-mode-${value}`, class: 'seg' }, input, h('span', { class: 'seg-title', text: label }), h('span', { class: 'seg-hint', text: hint })));
  }
  const variant = h('select', { name: 'variant' });
  for (const name of VARIANT_NAMES) variant.append(h('option', { value: name, text: variantName(name) }));
  const variantHint = h('p', { class: 'sub variant-hint' });
  const length = h('input', { type: 'number', name: 'length', min: '1', max: '25', step: '1', value: '5', inputmode: 'numeric' });
  const lengthField = field(t('lobby.pointsToWin'), length);
  const clock = h('select', { name: 'clock' });
  for (const s of [0, 30, 60]) clock.append(h('option', { value: String(s), text: t('local.clockOption', { s }) }));
  const fixed = h('input', { type: 'checkbox', name: 'fixedSide' });
  const start = button(t('local.start'), 'btn primary start');
  start.setAttribute('type', 'submit');
  const form = h(
    'form',
    { class: 'card local-setup' },
    h('h1', { text: t('local.title') }),
    h('p', { class: 'sub', text: t('local.intro') }),
    h('div', { class: 'field-row' }, field(t('local.first'), name0), field(t('local.second'), name1)),
    field(t('local.variant'), variant),
    variantHint,
    modeGroup,
    h('div', { class: 'field-row' }, lengthField, field(t('local.clock'), clock)),
    h('label', { class: 'toggle' }, fixed, h('span', { text: t('local.fixed') })),
    h('div', { class: 'row' }, start, h('a', { class: 'btn ghost', href: '/', text: t('local.back') })),
  );
  const radio = (value: MatchKind) => form.querySelector<HTMLInputElement>(`input[name=mode][value=${value}]`)!;
  const sync = () => {
    // No money session without a cube; Tavli is always a match to a number of points.
    const name = variant.value as VariantName;
    radio('money').disabled = !hasCube(name);
    radio('single').disabled = name === 'tavli';
    for (const value of ['single', 'money'] as const) radio(value).closest('label')!.classList.toggle('disabled', radio(value).disabled);
    const checked = form.querySelector<HTMLInputElement>('input[name=mode]:checked');
    if (!checked || checked.disabled) radio('match').checked = true;
    variantHint.textContent = t('local.variantHint', { variant: name });
    lengthField.hidden = form.querySelector<HTMLInputElement>('input[name=mode]:checked')?.value !== 'match';
  };
  modeGroup.addEventListener('change', sync);
  variant.addEventListener('change', sync);
  sync();
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const kind = (form.querySelector<HTMLInputElement>('input[name=mode]:checked')?.value ?? 'match') as MatchKind;
    const setup: LocalSetup = {
      kind,
      length: Math.max(1, Math.min(25, Math.round(Number(length.value) || 5))),
      names: tidyNames(name0.value, name1.value),
      clock: Number(clock.value) || 0,
      fixedSide: fixed.checked,
      variant: isVariantName(variant.value) ? variant.value : 'backgammon',
    };
    void play(root, setup, null);
  });
  root.replaceChildren(pageHeader(h('a', { href: '/rules', text: t('nav.howToPlay') })), h('main', { class: 'center-card' }, form));
}

async function play(root: HTMLElement, setup: LocalSetup, saved: Stored | null): Promise<void> {
  let dice: LocalFairDice;
  try {
    dice = saved ? await LocalFairDice.restore(saved.dice, CHAIN_LENGTH) : new LocalFairDice(CHAIN_LENGTH);
  } catch {
    // A save that no longer checks out: start afresh rather than play on with doubtful dice.
    store(null);
    dice = new LocalFairDice(CHAIN_LENGTH);
    saved = null;
  }
  const game = new LocalGame({
    kind: setup.kind,
    length: setup.length,
    clockSeconds: setup.clock,
    names: setup.names,
    dice,
    side: setup.fixedSide ? 0 : null,
    variant: setup.variant ?? 'backgammon',
  });
  const app = new BoardApp(root, game, { title: 'fairgammon', home: '/' });
  const pauseBtn = button(t('local.pause'), 'btn ghost pause', 'P');
  const newGame = button(t('local.newGame'), 'btn ghost new-game');
  const cover = h(
    'div',
    { class: 'paused-cover', role: 'dialog', 'aria-label': t('local.paused'), hidden: '' },
    h('h2', { text: t('local.paused') }),
    h('p', { class: 'sub', text: t('local.pausedText') }),
  );
  const resumeBtn = button(t('local.resume'), 'btn primary resume', 'P');
  cover.append(resumeBtn);
  app.overlay.append(cover);
  app.sideLinks.append(
    h('div', { class: 'row local-actions' }, pauseBtn, newGame),
    h('p', { class: 'links local-links' }, h('a', { class: 'lobby-link', href: '/', text: t('local.back') }), h('a', { class: 'rules-link', href: '/rules', text: t('nav.howToPlay') })),
  );
  const render = () => {
    cover.hidden = !game.paused;
    root.classList.toggle('is-paused', game.paused);
    pauseBtn.hidden = game.paused;
  };
  const toggle = () => {
    if (game.paused) game.resume();
    else game.pause();
    render();
    if (game.paused) resumeBtn.focus();
  };
  pauseBtn.addEventListener('click', toggle);
  resumeBtn.addEventListener('click', toggle);
  addEventListener('keydown', (e) => {
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) return;
    if ((e.key === 'p' || e.key === 'P') && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      toggle();
    }
  });
  newGame.addEventListener('click', () => {
    if (!confirm(t('local.newConfirm'))) return;
    game.dispose();
    store(null);
    location.reload();
  });
  app.sideExtra.append(achievementsPanel());
  game.subscribe(() => {
    const save = game.save();
    const d = dice.save();
    if (save && d) store({ setup, game: save, dice: d, savedAt: Date.now() });
    render();
  });
  followGame((listener) => game.subscribe(listener));
  if (saved) {
    game.restore(saved.game);
    game.resume();
  } else {
    await game.start();
  }
  render();
  Object.assign(window, { fairgammon: { game, app } });
}
