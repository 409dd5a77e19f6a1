/**
 * "Challenge": a signed-in player offers another a match (docs/friends.md, "Challenges"): the
 * terms (game, points, seconds per move or days per move, rated), then a private match created
 * with them and offered to that player. The challenger goes to the match's page and waits
 * there; the challenged player is told at once (the bell and a toast on any page).
 */

import { t } from '../i18n';
import { acceptChallenge, challenge } from '../net/friendsApi';
import { createMatch } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import { browserStorage, loadOptions, saveSeat } from '../net/storage';
import { limitPace, paceSelect } from './common';
import { button, h } from '../ui/dom';

type Mode = 'single_game' | 'match' | 'money';

/** The challenge form as a modal dialog; resolves nothing: it leaves for the match page. */
/** Accept challenge `match`: this browser keeps seat 1's token, and the match page opens. */
export async function acceptAndPlay(match: string): Promise<void> {
  const seat = await acceptChallenge(match);
  saveSeat(browserStorage(), match, { seat: 1, token: seat.token });
  location.assign(`/m/${match}`);
}

export function challengeDialog(opponent: string, me: string): HTMLElement {
  const last = loadOptions(browserStorage());
  const mode = h('select', { name: 'mode' });
  for (const [value, label] of [['match', t('lobby.modeMatch')], ['single_game', t('options.single')], ['money', t('options.money')]] as const) mode.append(h('option', { value, text: label }));
  mode.value = last.mode;
  const length = h('input', { type: 'number', name: 'length', min: '1', max: '25', step: '1', inputmode: 'numeric', value: String(last.length) });
  const pace = paceSelect();
  const clock = h('input', { type: 'number', name: 'clock', min: '5', max: '600', step: '1', inputmode: 'numeric', value: String(last.clock) });
  const rated = h('input', { type: 'checkbox', name: 'rated' });
  const lengthField = h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.pointsToWin') }), length);
  const clockField = h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.secondsPerMove') }), clock);
  const ratedField = h('label', { class: 'toggle' }, rated, h('span', { text: t('seek.rated') }));
  const error = h('p', { class: 'form-error', role: 'alert' });
  const send = button(t('challenge.send'), 'btn primary send-challenge');
  send.setAttribute('type', 'submit');
  const cancel = button(t('common.cancel'), 'btn ghost cancel');
  const sync = () => {
    lengthField.hidden = mode.value !== 'match';
    ratedField.hidden = mode.value !== 'match';
    clockField.hidden = pace.value !== '0';
    limitPace(pace, mode.value);
  };
  mode.addEventListener('change', sync);
  pace.addEventListener('change', sync);
  const form = h(
    'form',
    { class: 'card account-card challenge-card' },
    h('h1', { text: t('challenge.title', { name: opponent }) }),
    h('p', { class: 'sub', text: t('challenge.about') }),
    h('div', { class: 'field-row' }, h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('seek.game') }), mode), lengthField),
    h('div', { class: 'field-row' }, h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.pace') }), pace), clockField),
    ratedField,
    error,
    h('div', { class: 'row' }, send, cancel),
  );
  sync();
  const shade = h('div', { class: 'account-shade', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('challenge.title', { name: opponent }) }, form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    error.textContent = '';
    send.disabled = true;
    const options = {
      ...last,
      mode: mode.value as Mode,
      length: Math.max(1, Math.min(25, Math.round(Number(length.value) || 5))),
      clock: Math.max(5, Math.min(600, Math.round(Number(clock.value) || 30))),
      reserve: 0,
      private: true,
    };
    try {
      const created = await createMatch(options, me, options.mode === 'match' && rated.checked, Number(pace.value));
      saveSeat(browserStorage(), created.match, { seat: 0, token: created.token, invite: created.invite, watch: created.watch });
      await challenge(opponent, created.match, created.invite);
      location.assign(`/m/${created.match}`);
    } catch (err) {
      error.textContent = errorWords(err);
      send.disabled = false;
    }
  });
  cancel.addEventListener('click', () => shade.remove());
  shade.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') shade.remove();
  });
  return shade;
}
