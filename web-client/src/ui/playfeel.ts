/**
 * The player's choices of feel: how moves are entered and sent, when the dice roll by
 * themselves, sounds, and how the board is drawn (colours, home board side, a spectator's side).
 */

import { t } from '../i18n';
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
  const d = h('details', { class: 'settings' }, h('summary', { text: t('settings.title') }));
  const toggle = (key: Flag, label: string) => {
    const input = h('input', { type: 'checkbox', name: key });
    input.checked = current[key];
    input.addEventListener('change', () => {
      current = { ...current, [key]: input.checked };
      change(current);
    });
    return h('label', { class: 'toggle' }, input, h('span', { text: label }));
  };
  const volume = h('input', { type: 'range', name: 'volume', min: '0', max: '1', step: '0.1', 'aria-label': t('settings.volume') });
  volume.value = String(current.volume);
  volume.addEventListener('change', () => {
    current = { ...current, volume: Number(volume.value) };
    change(current);
  });
  const pause = h('select', { name: 'pauseMs', 'aria-label': t('settings.pause') });
  for (const [ms, label] of PAUSES) pause.append(h('option', { value: String(ms), text: t('settings.pauseOption', { label, s: ms / 1000 }) }));
  pause.value = String(current.pauseMs);
  pause.addEventListener('change', () => {
    current = { ...current, pauseMs: Number(pause.value) };
    change(current);
  });
  d.append(
    h('p', { class: 'group', text: t('settings.playing') }),
    toggle('quickMove', t('settings.quickMove')),
    toggle('autoConfirm', t('settings.autoConfirm')),
    toggle('autoRoll', t('settings.autoRoll')),
    h('label', { class: 'toggle pause' }, h('span', { text: t('settings.pause') }), pause),
    toggle('fast', t('settings.fast')),
    h('p', { class: 'group', text: t('settings.sound') }),
    toggle('sound', t('settings.soundEffects')),
    h('label', { class: 'toggle volume' }, h('span', { text: t('settings.volume') }), volume),
    h('p', { class: 'group', text: t('settings.board') }),
    toggle('swapColours', t('settings.swapColours')),
    toggle('homeLeft', t('settings.homeLeft')),
    toggle('flipSpectator', t('settings.flipSpectator')),
    h('p', { class: 'keys' }, t('settings.keys')),
  );
  return d;
}

/** Colours and the home board side are drawn by classes on the app's root. */
export function applyBoardOptions(root: HTMLElement, settings: Settings): void {
  root.classList.toggle('swap-colours', settings.swapColours);
  root.classList.toggle('home-left', settings.homeLeft);
}
