/**
 * Quick pairing in the lobby (docs/protocol.md, "Quick pairing"): a few common formats, each
 * with how many are looking for it now; a click seeks a game on those terms, the seek's socket
 * (`/ws/seeks/{seek}`) says at once when it is paired, and the page moves to the match. Alone
 * for a few seconds, the seeker is offered the computer while waiting. Closing the page (its
 * socket) or Cancel takes the seek out of the pool.
 */

import { t } from '../i18n';
import type { Seat } from '../engine/seat';
import { createBotMatch } from '../net/botApi';
import { call } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import type { SecretStorage } from '../fairdice';
import { type CreateOptions, saveSeat } from '../net/storage';
import { button, h } from '../ui/dom';
import { account } from './account';
import { describeOptions } from './common';

interface Format {
  readonly mode: 'single_game' | 'match' | 'money';
  readonly length: number;
  readonly clock: number;
}

/** The common formats offered (any other terms: `POST /api/seeks` from any client). */
export const FORMATS: readonly Format[] = [
  { mode: 'single_game', length: 0, clock: 30 },
  { mode: 'match', length: 3, clock: 30 },
  { mode: 'match', length: 5, clock: 30 },
  { mode: 'money', length: 0, clock: 30 },
];

interface Looking {
  readonly mode: string;
  readonly length: number;
  readonly clock: number;
  readonly rated: boolean;
  readonly count: number;
}

interface SeekState {
  readonly seek: string;
  readonly state: 'waiting' | 'paired' | 'gone';
  readonly computer?: boolean;
  readonly match?: string;
  readonly seat?: Seat;
  readonly token?: string;
  readonly why?: string;
}

const REFRESH_MS = 4000;

export function quickPairing(storage: SecretStorage, playerName: () => string): HTMLElement {
  const status = h('p', { class: 'sub seek-status', role: 'status', 'aria-live': 'polite' });
  const offer = h('div', { class: 'seek-offer' });
  offer.hidden = true;
  const cancel = button(t('common.cancel'), 'btn seek-cancel');
  cancel.hidden = true;
  const counts = new Map<string, HTMLElement>();
  const buttons: HTMLButtonElement[] = [];
  let socket: WebSocket | null = null;
  let current: { seek: string; format: Format } | null = null;

  const key = (f: { mode: string; length: number; clock: number }) => `${f.mode}/${f.length}/${f.clock}`;
  const idle = () => {
    socket?.close();
    socket = null;
    current = null;
    cancel.hidden = true;
    offer.hidden = true;
    for (const b of buttons) b.disabled = false;
  };
  const hear = (state: SeekState, format: Format) => {
    if (state.state === 'paired' && state.match && state.token !== undefined && state.seat !== undefined) {
      saveSeat(storage, state.match, { seat: state.seat, token: state.token });
      status.textContent = t('seek.paired');
      socket?.close();
      location.assign(`/m/${state.match}`);
    } else if (state.state === 'gone') {
      status.textContent = state.why === 'expired' ? t('seek.expired') : t('seek.stopped');
      idle();
    } else {
      status.textContent = t('seek.looking', { what: describeOptions(format.mode, format.length, format.clock, 0) });
      offer.hidden = !state.computer;
    }
  };
  const seek = async (format: Format, extra: { rated?: boolean; range?: number; bots?: boolean } = {}) => {
    for (const b of buttons) b.disabled = true;
    status.textContent = '';
    try {
      const body: Record<string, unknown> = { mode: format.mode, clock: format.clock, name: playerName(), ...extra };
      if (format.mode === 'match') body.length = format.length;
      const made = await call<SeekState & { socket: string }>('POST', '/api/seeks', body);
      current = { seek: made.seek, format };
      cancel.hidden = false;
      hear(made, format);
      if (made.state !== 'waiting') return;
      const url = new URL(made.socket, location.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      socket = new WebSocket(url);
      socket.onmessage = (e) => {
        if (typeof e.data === 'string') hear(JSON.parse(e.data) as SeekState, format);
      };
    } catch (err) {
      status.textContent = errorWords(err);
      idle();
    }
  };
  cancel.addEventListener('click', () => {
    const seek = current?.seek;
    idle();
    status.textContent = t('seek.stopped');
    if (seek) void call('DELETE', `/api/seeks/${seek}`).catch(() => undefined);
  });
  const playBot = button(t('seek.playBot'), 'btn primary seek-bot');
  playBot.addEventListener('click', async () => {
    const format: Format = current?.format ?? { mode: 'single_game', length: 0, clock: 30 };
    playBot.disabled = true;
    const options: CreateOptions = { mode: format.mode, length: format.length || 1, clock: format.clock, reserve: 0, private: false, jacoby: false, beavers: false };
    try {
      const created = await createBotMatch(options, playerName(), 'normal');
      if (current) void call('DELETE', `/api/seeks/${current.seek}`).catch(() => undefined);
      saveSeat(storage, created.match, { seat: 0, token: created.token, watch: created.watch });
      location.assign(`/m/${created.match}`);
    } catch (err) {
      playBot.disabled = false;
      status.textContent = errorWords(err);
    }
  });
  offer.append(h('p', { text: t('seek.nobody') }), playBot);

  const list = h('div', { class: 'seek-formats' });
  for (const format of FORMATS) {
    const count = h('span', { class: 'seek-count', text: t('seek.count', { n: 0 }) });
    counts.set(key(format), count);
    const b = button('', 'btn seek-format');
    b.dataset.format = key(format);
    b.append(h('span', { class: 'seg-title', text: describeOptions(format.mode, format.length, format.clock, 0) }), count);
    b.addEventListener('click', () => void seek(format));
    buttons.push(b);
    list.append(b);
  }
  // Other terms: any mode, length and clock; for a signed-in player rated or not and a range.
  const mode = h('select', { name: 'seek_mode' });
  mode.append(h('option', { value: 'single_game', text: t('options.single') }), h('option', { value: 'match', text: t('lobby.modeMatch') }), h('option', { value: 'money', text: t('options.money') }));
  const length = h('input', { type: 'number', name: 'seek_length', min: '1', max: '25', value: '7' });
  const clock = h('input', { type: 'number', name: 'seek_clock', min: '5', max: '600', value: '60' });
  const rated = h('input', { type: 'checkbox', name: 'seek_rated' });
  // Bot accounts (outside engines) are met only when asked for, and unrated (docs/accounts.md).
  const bots = h('input', { type: 'checkbox', name: 'seek_bots' });
  const botsField = h('label', { class: 'check seek-bots' }, bots, h('span', { text: t('seek.bots') }));
  const range = h('select', { name: 'seek_range' });
  range.append(h('option', { value: '', text: t('seek.anyRating') }));
  for (const r of [100, 200, 400]) range.append(h('option', { value: String(r), text: t('seek.within', { r }) }));
  const field = (label: string, input: HTMLElement) => h('label', { class: 'field' }, h('span', { class: 'flabel', text: label }), input);
  const lengthField = field(t('seek.points'), length);
  const accountOnly = h('div', { class: 'field-row seek-account' }, h('label', { class: 'check' }, rated, h('span', { text: t('seek.rated') })), field(t('seek.opponent'), range));
  accountOnly.hidden = true;
  const showLength = () => {
    lengthField.hidden = mode.value !== 'match';
  };
  mode.addEventListener('change', showLength);
  showLength();
  const go = button(t('seek.seek'), 'btn primary seek-custom-go');
  buttons.push(go);
  go.addEventListener('click', () => {
    const format: Format = { mode: mode.value as Format['mode'], length: mode.value === 'match' ? Number(length.value) : 0, clock: Number(clock.value) };
    const extra: { rated?: boolean; range?: number; bots?: boolean } = {};
    if (bots.checked) extra.bots = true;
    if (!accountOnly.hidden) {
      extra.rated = rated.checked;
      if (range.value) extra.range = Number(range.value);
    }
    void seek(format, extra);
  });
  const custom = h('details', { class: 'seek-custom' }, h('summary', { text: t('seek.otherTerms') }), h('div', { class: 'field-row' }, field(t('seek.game'), mode), lengthField, field(t('lobby.secondsPerMove'), clock)), accountOnly, botsField, go);
  void account()
    .then((me) => {
      accountOnly.hidden = me === null;
    })
    .catch(() => undefined);

  const refresh = async () => {
    try {
      const { looking } = await call<{ looking: Looking[] }>('GET', '/api/seeks');
      const by = new Map<string, number>();
      for (const l of looking) by.set(key(l), (by.get(key(l)) ?? 0) + l.count);
      for (const [k, el] of counts) el.textContent = t('seek.count', { n: by.get(k) ?? 0 });
    } catch {
      // the counts wait for the next refresh
    }
  };
  void refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, REFRESH_MS);
  return h('section', { class: 'card quick-pairing' }, h('h2', { text: t('seek.title') }), h('p', { class: 'sub', text: t('seek.intro') }), list, custom, status, offer, cancel);
}
