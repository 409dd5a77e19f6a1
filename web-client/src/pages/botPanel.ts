/**
 * Playing the computer: the lobby's "Play the computer" section (a level, and the same match
 * options as the form it sits in), and, on the match page of a match against the computer, the
 * panel with the level, the computer's thinking and the player's fast play switch, and the Hint
 * button beside the dice controls (hintPanel.ts).
 */

import '../ui/bots.css';
import { t } from '../i18n';
import { type Level, createBotMatch, levelName, levels, setPace } from '../net/botApi';
import { getMatch } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import type { Seat } from '../net/protocol';
import type { MatchSession } from '../net/session';
import { type CreateOptions, type SeatRecord, saveSeat } from '../net/storage';
import type { SecretStorage } from '../fairdice';
import type { BoardApp } from '../ui/app';
import { button, h } from '../ui/dom';
import { hintPanel } from './hintPanel';

const LEVEL_KEY = 'fairgammon.botLevel';

/** The lobby's section: pick a level, play with the options of the surrounding form. */
export function botChoice(readOptions: () => CreateOptions, playerName: () => string, storage: SecretStorage): HTMLElement {
  let saved: string | null = null;
  try {
    saved = storage.getItem(LEVEL_KEY);
  } catch {
    // storage unavailable: the default level
  }
  const chosen = levels().some(([l]) => l === saved) ? (saved as Level) : 'normal';
  const group = h('div', { class: 'segmented levels', role: 'radiogroup', 'aria-label': t('bot.level') });
  for (const [value, label, hint] of levels()) {
    const input = h('input', { type: 'radio', name: 'bot-level', value, id: `level-${value}` });
    input.checked = value === chosen;
    group.append(h('label', { for: `level-${value}`, class: 'seg' }, input, h('span', { class: 'seg-title', text: label }), h('span', { class: 'seg-hint', text: hint })));
  }
  const error = h('p', { class: 'form-error', role: 'alert' });
  const play = button(t('bot.play'), 'btn primary play-bot');
  play.addEventListener('click', async () => {
    const level = (group.querySelector<HTMLInputElement>('input:checked')?.value ?? 'normal') as Level;
    error.textContent = '';
    play.disabled = true;
    try {
      storage.setItem(LEVEL_KEY, level);
    } catch {
      // not remembered: fine
    }
    try {
      const created = await createBotMatch(readOptions(), playerName(), level);
      saveSeat(storage, created.match, { seat: 0, token: created.token, watch: created.watch });
      location.assign(`/m/${created.match}`);
    } catch (err) {
      play.disabled = false;
      error.textContent = errorWords(err);
    }
  });
  return h(
    'section',
    { class: 'bot-choice', 'aria-labelledby': 'bot-title' },
    h('h2', { id: 'bot-title', text: t('bot.title') }),
    h('p', { class: 'sub', text: t('bot.intro') }),
    group,
    error,
    play,
  );
}

/**
 * On a match page: when the match is against the computer, a panel with the level and what the
 * computer is doing, and for the player the fast play switch (the page's short pauses, and the
 * server told so the computer answers at once) and the Hint button beside the dice controls.
 * Nothing otherwise. Resolves with the level, or null for a match between people.
 */
export async function attachBotPanel(app: BoardApp, session: MatchSession, matchId: string, record: SeatRecord | null): Promise<string | null> {
  let level: string | null | undefined;
  try {
    const summary = await getMatch(matchId);
    level = summary.bot;
    // A rematch of a match against the computer: the computer takes its seat in a moment.
    if (!level && summary.rematch_of && summary.phase === 'waiting') level = (await getMatch(summary.rematch_of)).bot;
  } catch {
    return null;
  }
  if (!level) return null;
  const botSeat: Seat = record?.seat === 1 ? 0 : 1;
  const status = h('p', { class: 'bot-status', role: 'status', 'aria-live': 'polite' });
  const panel = h(
    'section',
    { class: 'bot-panel', 'data-level': level },
    h('div', { class: 'bot-head' }, h('span', { class: 'bot-badge', text: t('bot.computer') }), h('strong', { class: 'bot-level', text: levelName(level) })),
    status,
  );
  if (record) {
    const hint = hintPanel(session, matchId, record, (play) => app.showPlay(play));
    app.actionsExtra.append(hint.button);
    app.afterActions.append(hint.out);
    const fast = h('input', { type: 'checkbox', class: 'fast-play', name: 'fast' });
    fast.addEventListener('change', () => app.updateSettings({ fast: fast.checked }));
    panel.append(h('label', { class: 'toggle fast-toggle' }, fast, h('span', { text: t('bot.fast') })));
    // The computer's think time follows the setting: told now, and at each change.
    let told: boolean | null = null;
    app.onSettings((settings) => {
      fast.checked = settings.fast;
      if (told === settings.fast) return;
      told = settings.fast;
      void setPace(matchId, record.token, settings.fast).catch(() => (told = null));
    });
  }
  app.sideExtra.prepend(panel);
  const doing: Record<string, string> = {
    decide: t('bot.thinkCube'),
    move: t('bot.thinkMove'),
    take: t('bot.thinkTake'),
    resign: t('bot.thinkResign'),
  };
  const render = () => {
    const tr = session.tracker;
    const owed = tr.over ? null : tr.owes(botSeat);
    const text = owed ? doing[owed] : null;
    status.textContent = tr.over ? t('bot.matchOver') : (text ?? t('bot.waiting'));
    panel.classList.toggle('thinking', text !== null && text !== undefined);
  };
  session.subscribe(render);
  render();
  return level;
}
