/**
 * The lobby at `/`: create a match (single game, match to N, money session; clock; open or
 * private), ask for a quick pairing (pages/quickPair.ts), join an open one, watch a live one,
 * or follow a link. The display name and the
 * last options are remembered in this browser.
 */

import { type BotLevel, HEURISTIC_GAMES, VARIANT_LEVELS } from '../generated/catalog';
import { VARIANT_NAMES, type VariantName, gameVariant, hasCube, isVariantName } from '../engine/variants';
import { variantName } from '../ui/variantNames';
import { botTag, withBotTag } from '../ui/botTag';
import { LobbyError, type MatchSummary, createMatch, joinMatch, listMatches } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import { type CreateOptions, browserStorage, loadName, loadOptions, saveOptions, saveSeat } from '../net/storage';
import { button, h } from '../ui/dom';
import { botChoice } from './botPanel';
import { RESERVE_CHOICES, describeOptions, heroSection, limitPace, pageHeader, paceSelect, rememberName, reserveWords } from './common';
import { account, accountBox } from './account';
import { hasSavedGame } from './localPage';
import { t } from '../i18n';
import { quickPairing } from './quickPair';

const REFRESH_MS = 4000;

export function startLobby(root: HTMLElement): void {
  const storage = browserStorage();
  const options = loadOptions(storage);
  const error = h('p', { class: 'form-error', role: 'alert' });

  // ---- create ----
  const name = h('input', { type: 'text', name: 'name', maxlength: '24', autocomplete: 'nickname', placeholder: t('common.guest') });
  name.value = loadName(storage);
  const modes = [
    ['single_game', t('lobby.modeSingle'), t('lobby.modeSingleHint')],
    ['match', t('lobby.modeMatch'), t('lobby.modeMatchHint')],
    ['money', t('lobby.modeMoney'), t('lobby.modeMoneyHint')],
  ] as const;
  const variant = h('select', { name: 'variant' });
  for (const v of VARIANT_NAMES) variant.append(h('option', { value: v, text: variantName(v) }));
  variant.value = options.variant && isVariantName(options.variant) ? options.variant : 'backgammon';
  const variantField = h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('local.variant') }), variant);
  const modeGroup = h('div', { class: 'segmented', role: 'radiogroup', 'aria-label': t('lobby.kindOfMatch') });
  for (const [value, label, hint] of modes) {
    const input = h('input', { type: 'radio', name: 'mode', value, id: `mode-${value}` });
    input.checked = options.mode === value;
    modeGroup.append(
      h('label', { for: `mode-${value}`, class: 'seg' }, input, h('span', { class: 'seg-title', text: label }), h('span', { class: 'seg-hint', text: hint })),
    );
  }
  const length = h('input', { type: 'number', name: 'length', min: '1', max: '25', step: '1', inputmode: 'numeric' });
  length.value = String(options.length);
  const clock = h('input', { type: 'number', name: 'clock', min: '5', max: '600', step: '1', inputmode: 'numeric' });
  clock.value = String(options.clock);
  // The time reserve: a bank per player for the whole match, for the decisions that take longer.
  const reserve = h('select', { name: 'reserve' });
  for (const seconds of RESERVE_CHOICES) reserve.append(h('option', { value: String(seconds), text: seconds ? reserveWords(seconds) : t('lobby.reserveNone') }));
  reserve.value = String(RESERVE_CHOICES.includes(options.reserve) ? options.reserve : 0);
  const check = (key: string, label: string, on: boolean) => {
    const input = h('input', { type: 'checkbox', name: key });
    input.checked = on;
    return { input, label: h('label', { class: 'toggle' }, input, h('span', { text: label })) };
  };
  const priv = check('private', t('lobby.private'), options.private);
  const rated = check('rated', t('lobby.rated'), false);
  rated.label.hidden = true;
  const jacoby = check('jacoby', t('lobby.jacoby'), options.jacoby);
  const beavers = check('beavers', t('lobby.beavers'), options.beavers);
  const lengthField = h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.pointsToWin') }), length);
  // Correspondence (signed-in players): days per move instead of seconds, played from anywhere.
  const pace = paceSelect();
  const paceField = h('label', { class: 'field pace-field', title: t('lobby.paceHint') }, h('span', { class: 'flabel', text: t('lobby.pace') }), pace);
  paceField.hidden = true;
  const clockField = h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.secondsPerMove') }), clock);
  const reserveField = h('label', { class: 'field', title: t('lobby.reserveHint') }, h('span', { class: 'flabel', text: t('lobby.timeReserve') }), reserve);
  const moneyField = h('div', { class: 'field inline' }, jacoby.label, beavers.label);
  const create = button(t('lobby.createMatch'), 'btn primary create');
  create.setAttribute('type', 'submit');
  const form = h(
    'form',
    { class: 'card create-card', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title', text: t('lobby.newMatch') }),
    h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.yourName') }), name),
    variantField,
    modeGroup,
    h(
      'div',
      { class: 'field-row' },
      lengthField,
      paceField,
      clockField,
      reserveField,
    ),
    moneyField,
    priv.label,
    rated.label,
    error,
    create,
  );
  const selectedMode = () => (form.querySelector<HTMLInputElement>('input[name=mode]:checked')?.value ?? 'single_game') as CreateOptions['mode'];
  const radio = (value: CreateOptions['mode']) => form.querySelector<HTMLInputElement>(`input[name=mode][value=${value}]`)!;
  const sync = () => {
    // No money session without a cube; Tavli is always a match to a number of points.
    const v = variant.value as VariantName;
    radio('money').disabled = !hasCube(v);
    radio('single_game').disabled = v === 'tavli';
    for (const value of ['single_game', 'money'] as const) radio(value).closest('label')!.classList.toggle('disabled', radio(value).disabled);
    if (form.querySelector<HTMLInputElement>('input[name=mode]:checked')?.disabled) radio('match').checked = true;
    lengthField.hidden = selectedMode() !== 'match';
    moneyField.hidden = selectedMode() !== 'money';
    rated.label.hidden = !signedIn || selectedMode() !== 'match';
    paceField.hidden = !signedIn;
    limitPace(pace, selectedMode());
    clockField.hidden = reserveField.hidden = pace.value !== '0';
  };
  // A signed-in player plays under the account's name and may create rated matches.
  let signedIn = false;
  void account().then((me) => {
    if (!me) return;
    signedIn = true;
    name.value = me.username;
    name.disabled = true;
    sync();
  });
  modeGroup.addEventListener('change', sync);
  variant.addEventListener('change', sync);
  pace.addEventListener('change', sync);
  sync();
  const readOptions = (): CreateOptions => ({
    mode: selectedMode(),
    length: Math.max(1, Math.min(25, Math.round(Number(length.value) || 5))),
    clock: Math.max(5, Math.min(600, Math.round(Number(clock.value) || 30))),
    reserve: Number(reserve.value) || 0,
    private: priv.input.checked,
    jacoby: jacoby.input.checked,
    beavers: beavers.input.checked,
    variant: isVariantName(variant.value) ? variant.value : 'backgammon',
  });
  const computer = botChoice(readOptions, () => rememberName(storage, name), storage);
  const heuristic = h('p', { class: 'sub bot-heuristic' });
  computer.querySelector('.levels')?.after(heuristic);
  form.append(computer);
  // The computer's levels in the chosen variant (bots/catalog.py's table): the others disabled.
  const syncComputer = () => {
    const offered = VARIANT_LEVELS[variant.value] ?? [];
    const radios = [...computer.querySelectorAll<HTMLInputElement>('input[name=bot-level]')];
    for (const radio of radios) radio.disabled = !offered.includes(radio.value as BotLevel);
    if (radios.some((r) => r.checked && r.disabled)) {
      const first = radios.find((r) => !r.disabled);
      if (first) first.checked = true;
    }
    computer.hidden = offered.length === 0;
    // Said plainly where a hand-written heuristic plays, not a trained net (bots/catalog.py).
    const game = isVariantName(variant.value) ? variant.value : 'backgammon';
    const games: string[] = [1, 2, 3].map((n) => gameVariant(game, n)); // Tavli's rotation
    heuristic.hidden = !games.some((g) => (HEURISTIC_GAMES as readonly string[]).includes(g));
    heuristic.textContent = heuristic.hidden ? '' : t('bot.heuristic', { variant: game, name: variantName(game) });
  };
  variant.addEventListener('change', syncComputer);
  syncComputer();
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    create.disabled = true;
    const chosen = readOptions();
    saveOptions(storage, chosen);
    try {
      const wantRated = signedIn && chosen.mode === 'match' && rated.input.checked;
      const days = signedIn ? Number(pace.value) : 0;
      const created = await createMatch(chosen, signedIn ? name.value : rememberName(storage, name), wantRated, days);
      saveSeat(storage, created.match, { seat: 0, token: created.token, invite: created.invite, watch: created.watch });
      location.assign(`/m/${created.match}`);
    } catch (err) {
      error.textContent = errorWords(err);
      create.disabled = false;
    }
  });

  // ---- lists ----
  const openList = h('ul', { class: 'matchlist open-list', 'aria-live': 'polite' });
  const liveList = h('ul', { class: 'matchlist live-list', 'aria-live': 'polite' });
  const joinAs = async (m: MatchSummary, b: HTMLButtonElement) => {
    b.disabled = true;
    try {
      const joined = await joinMatch(m.id, signedIn ? name.value : rememberName(storage, name), null);
      saveSeat(storage, m.id, { seat: 1, token: joined.token });
      location.assign(`/m/${m.id}`);
    } catch (err) {
      b.disabled = false;
      error.textContent = errorWords(err);
      void refresh();
    }
  };
  const row = (m: MatchSummary, live: boolean) => {
    const who = live ? t('common.versus', { a: m.names[0] ?? '?', b: m.names[1] ?? '?' }) : (m.names[0] ?? t('common.guest'));
    const plain = describeOptions(m.mode, m.length, m.clock, m.reserve, m.days);
    const options = m.variant && m.variant !== 'backgammon' && isVariantName(m.variant) ? t('board.withVariant', { variant: variantName(m.variant), label: plain }) : plain;
    const rated = m.rated ? 'yes' : 'no';
    const sub = live && m.mode !== 'single_game' ? t('lobby.rowLive', { options, rated, s0: m.score[0] ?? 0, s1: m.score[1] ?? 0 }) : t('lobby.row', { options, rated });
    // A bot account's name carries the BOT tag (docs/accounts.md, "Bot accounts").
    const tagged = live ? [who, ...(m.bot_accounts?.some(Boolean) ? [' ', botTag()] : [])] : withBotTag(document.createTextNode(who), m.bot_accounts?.[0]);
    const info = h('span', { class: 'minfo' }, h('strong', {}, ...tagged), h('span', { class: 'sub', text: sub }));
    let action: HTMLElement;
    if (live) action = h('a', { class: 'btn watch', href: `/m/${m.id}#watch`, text: t('lobby.watch') });
    else {
      const b = button(t('lobby.join'), 'btn primary join');
      b.addEventListener('click', () => void joinAs(m, b));
      action = b;
    }
    return h('li', { 'data-match': m.id }, info, action);
  };
  const fill = (list: HTMLElement, items: MatchSummary[], live: boolean, empty: string) => {
    list.replaceChildren(...(items.length ? items.map((m) => row(m, live)) : [h('li', { class: 'empty', text: empty })]));
  };
  const refresh = async () => {
    try {
      const [open, live] = await Promise.all([listMatches('open'), listMatches('live')]);
      fill(openList, open.filter((m) => !m.private), false, t('lobby.noOpen'));
      fill(liveList, live, true, t('lobby.nobodyPlaying'));
    } catch (err) {
      const text = err instanceof LobbyError ? errorWords(err) : t('lobby.unreachable');
      openList.replaceChildren(h('li', { class: 'empty', text }));
    }
  };

  // ---- join by link ----
  const linkInput = h('input', { type: 'url', placeholder: t('lobby.linkPlaceholder'), 'aria-label': t('lobby.linkLabel') });
  const linkForm = h('form', { class: 'linkform' }, linkInput, button(t('lobby.go'), 'btn go'));
  linkForm.addEventListener('submit', (e) => {
    e.preventDefault();
    try {
      const url = new URL(linkInput.value.trim(), location.href);
      if (url.origin === location.origin && url.pathname.startsWith('/m/')) location.assign(url.pathname + url.hash);
      else error.textContent = t('lobby.notOurLink');
    } catch {
      error.textContent = t('lobby.notALink');
    }
  });

  const hero = heroSection(
    t('lobby.heroTitle'),
    t('lobby.heroText'),
  );
  const side = h(
    'div',
    { class: 'lobby-side' },
    quickPairing(storage, () => (signedIn ? name.value : rememberName(storage, name))),
    h('section', { class: 'card' }, h('h2', { text: t('lobby.openMatches') }), openList),
    h('section', { class: 'card' }, h('h2', { text: t('lobby.liveNow') }), liveList),
    h('section', { class: 'card' }, h('h2', { text: t('lobby.haveLink') }), linkForm),
    h(
      'p',
      { class: 'lobby-links' },
      h('a', { href: '/local', text: hasSavedGame() ? t('lobby.resumeLocal') : t('lobby.playLocal') }),
      ' · ',
      h('a', { href: '/rules', text: t('nav.howToPlay') }),
      ' · ',
      h('a', { href: '/verify', text: t('nav.verify') }),
      ' · ',
      h('a', { href: '/leaderboard', text: t('nav.leaderboard') }),
      ' · ',
      h('a', { href: '/tournaments', text: t('nav.tournaments') }),
      ' · ',
      h('a', { href: '/analyse', text: t('nav.analyse') }),
      ' · ',
      h('a', { href: '/trainer', text: t('nav.trainer') }),
      ' · ',
      h('a', { href: '/imports', text: t('nav.imports') }),
      ' · ',
      h('a', { href: '/games', text: t('nav.games') }),
      ' · ',
      h('a', { href: '/friends', text: t('nav.friends') }),
    ),
  );
  root.classList.add('fg-app', 'lobby-page');
  root.replaceChildren(pageHeader(accountBox()), h('main', { class: 'lobby' }, hero, h('div', { class: 'lobby-grid' }, form, side)));
  fill(openList, [], false, t('common.loading'));
  fill(liveList, [], true, t('common.loading'));
  void refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, REFRESH_MS);
}
