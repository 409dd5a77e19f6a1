/**
 * The chat panel of a match page: the players' room for the two seats, the spectators' room
 * for the watchers (and, once the match is over, for the players to read). Lines are shown as
 * text, never markup. Quick phrases for phones; a player can mute the opponent or the
 * spectators (in this browser only).
 */

import type { SecretStorage } from '../fairdice';
import type { ChatLine, ChatRoom } from '../net/protocol';
import { MAX_CHAT_CHARS } from '../net/protocol';
import type { MatchSession } from '../net/session';
import { t } from '../i18n';
import { button, h } from './dom';

export const QUICK_PHRASES = ['chat.goodLuck', 'chat.niceRoll', 'chat.thanks'] as const;
const MUTE_KEY = 'fairgammon.mute';

export function chatPanel(
  session: MatchSession,
  storage: SecretStorage,
  spectatorName: () => string | null,
  setSpectatorName: (name: string) => void = () => undefined,
  /** Set (once the viewer is known to be signed in): how a signed-in speaker's line is reported. */
  reporting: { line: ((line: ChatLine) => void) | null } = { line: null },
): { el: HTMLElement; render: () => void; refresh: () => void } {
  const chat = session.chat;
  // A guest spectator chats under the name typed here (kept like the lobby's name); a
  // signed-in one under the account's name whatever is typed.
  const nameInput = h('input', { type: 'text', maxlength: '24', placeholder: t('chat.spectator'), 'aria-label': t('chat.yourName'), autocomplete: 'nickname' });
  nameInput.value = spectatorName() ?? '';
  nameInput.addEventListener('change', () => setSpectatorName(nameInput.value.trim().replace(/\s+/g, ' ')));
  const nameField = h('label', { class: 'chat-name' }, h('span', { class: 'flabel', text: t('chat.name') }), nameInput);
  const list = h('ol', { class: 'chat-lines', 'aria-live': 'polite' });
  const input = h('input', { type: 'text', maxlength: String(MAX_CHAT_CHARS), placeholder: t('chat.placeholder'), 'aria-label': t('chat.message'), enterkeyhint: 'send' });
  const send = button(t('chat.send'), 'btn primary small chat-send');
  send.setAttribute('type', 'submit');
  const form = h('form', { class: 'chat-form' }, input, send);
  const quick = h('div', { class: 'chat-quick' });
  for (const key of QUICK_PHRASES) {
    const phrase = t(key);
    const b = button(phrase, 'btn ghost small quick');
    b.addEventListener('click', () => chat.say(phrase, nameInput.value.trim() || spectatorName()));
    quick.append(b);
  }
  const error = h('p', { class: 'chat-error', role: 'alert' });
  const tabs = h('div', { class: 'chat-tabs', role: 'tablist' });
  const muteOpponent = h('input', { type: 'checkbox', class: 'mute-opponent' });
  const muteSpectators = h('input', { type: 'checkbox', class: 'mute-spectators' });
  const muted = new Set<string>((storage.getItem(MUTE_KEY) ?? '').split(',').filter(Boolean));
  muteOpponent.checked = muted.has('opponent');
  muteSpectators.checked = muted.has('spectators');
  const mutes = h(
    'div',
    { class: 'chat-mutes' },
    h('label', { class: 'toggle' }, muteOpponent, h('span', { text: t('chat.muteOpponent') })),
    h('label', { class: 'toggle' }, muteSpectators, h('span', { text: t('chat.hideSpectators') })),
  );
  const el = h('section', { class: 'chat-panel', 'aria-label': t('chat.title') }, h('h2', { text: t('chat.title') }), tabs, list, error, nameField, form, quick, mutes);
  let room: ChatRoom | null = null;
  let shown = '';

  const saveMutes = () => {
    muted.clear();
    if (muteOpponent.checked) muted.add('opponent');
    if (muteSpectators.checked) muted.add('spectators');
    storage.setItem(MUTE_KEY, [...muted].join(','));
    shown = '';
    render();
  };
  muteOpponent.addEventListener('change', saveMutes);
  muteSpectators.addEventListener('change', saveMutes);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (chat.say(input.value, nameInput.value.trim() || spectatorName())) input.value = '';
  });

  function render(): void {
    const over = session.tracker.over !== null;
    if (over) chat.matchOver();
    const rooms: ChatRoom[] = (['players', 'spectators'] as const).filter((r) => chat.canRead(r) && !(r === 'spectators' && chat.seat !== null && muteSpectators.checked));
    if (room === null || !rooms.includes(room)) room = rooms[0] ?? null;
    const key = `${chat.revision}|${room}|${rooms.join()}|${chat.seat}`;
    if (key === shown) return;
    shown = key;
    el.hidden = room === null;
    muteOpponent.parentElement!.hidden = chat.seat === null;
    muteSpectators.parentElement!.hidden = chat.seat === null || !over;
    tabs.replaceChildren(
      ...(rooms.length > 1
        ? rooms.map((r) => {
            const b = button(r === 'players' ? t('chat.players') : t('chat.spectators'), `tab chat-tab-${r}${r === room ? ' on' : ''}`);
            b.setAttribute('role', 'tab');
            b.setAttribute('aria-selected', String(r === room));
            b.addEventListener('click', () => {
              room = r;
              shown = '';
              render();
            });
            return b;
          })
        : []),
    );
    const writable = room === chat.ownRoom;
    form.hidden = quick.hidden = !writable;
    nameField.hidden = !writable || chat.seat !== null;
    error.textContent = chat.refusal ?? '';
    if (room === null) return;
    const lines = chat.list(room).filter((l) => !(muteOpponent.checked && chat.seat !== null && l.room === 'players' && l.seat !== chat.seat));
    list.replaceChildren(
      ...(lines.length
        ? lines.map((l) =>
            h(
              'li',
              { class: `chat-line${l.seat !== null && l.seat === chat.seat ? ' mine' : ''}` },
              h('span', { class: 'who', text: l.account ? l.name : l.seat === null ? t('chat.guestName', { name: l.name }) : l.name }),
              h('span', { class: 'said', text: l.text }),
              ...(reporting.line && l.account && !(l.seat !== null && l.seat === chat.seat) ? [flag(l)] : []),
            ),
          )
        : [h('li', { class: 'chat-empty', text: room === 'players' ? t('chat.emptyPlayers') : t('chat.emptySpectators') })]),
    );
    list.scrollTop = list.scrollHeight;
  }
  /** The button that reports a signed-in speaker's line (docs/moderation.md). */
  function flag(line: ChatLine): HTMLElement {
    const b = h('button', { type: 'button', class: 'chat-report', title: t('chat.reportLine', { name: line.name }), 'aria-label': t('chat.reportLine', { name: line.name }) }); // its flag drawn by CSS: not part of the line's text
    b.addEventListener('click', () => reporting.line?.(line));
    return b;
  }
  /** Draw again (whether lines may be reported changed). */
  const refresh = () => {
    shown = '';
    render();
  };
  return { el, render, refresh };
}
