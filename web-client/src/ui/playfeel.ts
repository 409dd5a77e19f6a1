/**
 * The player's choices of feel: how moves are entered and sent, when the dice roll by
 * themselves, sounds, and how the board is drawn (colours, home board side, a spectator's side).
 */

import { h } from './dom';
import type { Settings } from './settings';

/** The choices of the moment to undo (or to choose Double) before things happen by themselves. */
export const PAUSES = [
  [600, 'short'],
  [1200, 'normal'],
  [2500, 'long'],
] as const;

type Flag = { [K in keyof Settings]: Settings[K] extends boolean ? K : never }[keyof Settings];

/** The Settings panel: toggles, the volume and the keys. `change` gets the new settings. */
export function buildSettingsPanel(settings: Settings, change: (next: Settings) => void): HTMLElement {
  let current = settings;
  const d = h('details', { class: 'settings' }, h('summary', { text: 'Settings & keys' }));
  const toggle = (key: Flag, label: string) => {
    const input = h('input', { type: 'checkbox', name: key });
    input.checked = current[key];
    input.addEventListener('change', () => {
      current = { ...current, [key]: input.checked };
      change(current);
    });
    return h('label', { class: 'toggle' }, input, h('span', { text: label }));
  };
  const volume = h('input', { type: 'range', name: 'volume', min: '0', max: '1', step: '0.1', 'aria-label': 'Volume' });
  volume.value = String(current.volume);
  volume.addEventListener('change', () => {
    current = { ...current, volume: Number(volume.value) };
    change(current);
  });
  const pause = h('select', { name: 'pauseMs', 'aria-label': 'Moment to undo or to double' });
  for (const [ms, label] of PAUSES) pause.append(h('option', { value: String(ms), text: `${label} (${ms / 1000} s)` }));
  pause.value = String(current.pauseMs);
  pause.addEventListener('change', () => {
    current = { ...current, pauseMs: Number(pause.value) };
    change(current);
  });
  d.append(
    h('p', { class: 'group', text: 'Playing' }),
    toggle('quickMove', 'Tap a checker to move it (else: tap it, then its destination)'),
    toggle('autoConfirm', 'Send the turn by itself when all dice are used (a moment to undo)'),
    toggle('autoRoll', 'Roll by itself unless I choose to double'),
    h('label', { class: 'toggle pause' }, h('span', { text: 'Moment to undo or to double' }), pause),
    toggle('fast', 'Fast play: a short moment (0.3 s), and the computer answers at once'),
    h('p', { class: 'group', text: 'Sound' }),
    toggle('sound', 'Sound effects'),
    h('label', { class: 'toggle volume' }, h('span', { text: 'Volume' }), volume),
    h('p', { class: 'group', text: 'Board' }),
    toggle('swapColours', 'Swap the checker colours'),
    toggle('homeLeft', 'Home board on the left'),
    toggle('flipSpectator', 'As a spectator, see the board from the second player’s side'),
    h(
      'p',
      { class: 'keys' },
      'Keys: arrows move over the points, Enter or Space moves the checker there, B bar, O bear off, ' +
        'U undo, R redo, D roll, Shift+D double (twice: it asks first), E end turn, Escape clears.',
    ),
  );
  return d;
}

/** Colours and the home board side are drawn by classes on the app's root. */
export function applyBoardOptions(root: HTMLElement, settings: Settings): void {
  root.classList.toggle('swap-colours', settings.swapColours);
  root.classList.toggle('home-left', settings.homeLeft);
}
