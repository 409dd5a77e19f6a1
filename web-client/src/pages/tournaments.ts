/**
 * Tournaments (docs/tournaments.md; the API: docs/protocol.md, "Tournaments"):
 * `/tournaments` lists the open, running and finished ones and creates one (signed-in
 * players); `/t/<id>` shows one — its terms, a countdown to what comes next, the standings,
 * the rounds (a knockout's bracket round by round), the matches being played with watch links,
 * the viewer's own match — and joins or withdraws. The page reads the tournament again every
 * 3 s, so standings and bracket move as matches end. Every name is rendered as text.
 */

import { call } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import { formatNumber, ltr, t, withSlots } from '../i18n';
import { browserStorage, saveSeat } from '../net/storage';
import type { Seat } from '../engine/seat';
import { button, h } from '../ui/dom';
import { account, accountBox } from './account';
import { describeOptions, pageHeader } from './common';
import { withBotTag } from '../ui/botTag';

interface Summary {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly mode: string;
  readonly length: number;
  readonly clock: number;
  readonly max_players: number;
  readonly players: number;
  readonly rounds: number;
  readonly minutes: number;
  readonly rated: boolean;
  readonly phase: string;
  readonly winner: string | null;
}

interface PairingView {
  readonly round: number;
  readonly board: number;
  readonly players: readonly (string | null)[];
  readonly match: string | null;
  readonly outcome: { winner: number | null; how: string; score: number[]; points: number[] } | null;
  readonly watch?: string;
}

interface TournamentView {
  readonly tournament: string;
  readonly name: string;
  readonly kind: string;
  readonly state: 'open' | 'running' | 'finished';
  readonly terms: { mode: string; length: number; clock: number; max_players: number; rounds: number; minutes: number; rated: boolean };
  readonly now: number;
  readonly next: number | null;
  readonly end: string | null;
  readonly round: number;
  readonly players: readonly { name: string; bot?: boolean; rating: number; withdrawn: boolean }[];
  readonly standings: readonly { rank: number; name: string; bot?: boolean; points: number; won: number; played: number; withdrawn: boolean }[];
  readonly rounds: readonly { round: number; pairings: readonly PairingView[] }[];
  readonly running: readonly PairingView[];
  readonly winner: string | null;
  readonly me: { match: string; seat: Seat; token: string; round: number; board: number } | null;
  readonly you: { name: string; points: number; withdrawn: boolean } | null;
}

const REFRESH_MS = 3000;
const KINDS = ['knockout', 'swiss', 'arena'] as const;

function terms(x: { kind: string; mode: string; length: number; clock: number; rounds: number; minutes: number; rated: boolean }): string {
  return t('tournaments.terms', { kind: x.kind, options: describeOptions(x.mode, x.length, x.clock), rounds: x.rounds, minutes: x.minutes, rated: x.rated ? 'yes' : 'no' });
}

const message = errorWords;

// ---------------------------------------------------------------- the list

export async function startTournaments(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players tournaments' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = `${t('nav.tournaments')} · fairgammon`;
  const lists = h('div', { class: 'tournament-lists' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const field = (label: string, input: HTMLElement) => h('label', { class: 'field' }, h('span', { class: 'flabel', text: label }), input);
  const kind = h('select', { name: 'kind' });
  for (const value of KINDS) kind.append(h('option', { value, text: t('tournaments.kind', { kind: value }) }));
  const name = h('input', { type: 'text', name: 'tname', maxlength: '40', placeholder: t('tournaments.namePlaceholder') });
  const length = h('input', { type: 'number', name: 'length', min: '1', max: '25', value: '3' });
  const clock = h('input', { type: 'number', name: 'clock', min: '5', max: '600', value: '30' });
  const players = h('input', { type: 'number', name: 'max_players', min: '2', max: '256', value: '8' });
  const rounds = h('input', { type: 'number', name: 'rounds', min: '1', max: '20', value: '4' });
  const minutes = h('input', { type: 'number', name: 'minutes', min: '5', max: '240', value: '30' });
  const starts = h('select', { name: 'starts' });
  starts.append(h('option', { value: 'when_full', text: t('tournaments.whenFull') }), h('option', { value: 'at', text: t('tournaments.atTime') }));
  const startAt = h('input', { type: 'datetime-local', name: 'start_at', step: '60' });
  const rated = h('input', { type: 'checkbox', name: 'rated' });
  const secret = h('input', { type: 'checkbox', name: 'private' });
  const check = (label: string, input: HTMLInputElement) => h('label', { class: 'check' }, input, h('span', { text: label }));
  const startNote = h('p', { class: 'sub start-note' });
  const showStart = () => {
    const at = starts.value === 'at';
    startAt.hidden = !at;
    startAt.required = at;
    startNote.textContent = at
      ? t('tournaments.noteAt')
      : t('tournaments.noteFull');
  };
  starts.addEventListener('change', showStart);
  showStart();
  const create = button(t('tournaments.create'), 'btn primary create-tournament');
  create.setAttribute('type', 'submit');
  const form = h(
    'form',
    { class: 'card create-tournament-form' },
    h('h2', { text: t('tournaments.new') }),
    h('div', { class: 'field-row' }, field(t('tournaments.fieldKind'), kind), field(t('tournaments.fieldLength'), length), field(t('tournaments.fieldClock'), clock)),
    h('div', { class: 'field-row' }, field(t('tournaments.fieldPlayers'), players), field(t('tournaments.fieldRounds'), rounds), field(t('tournaments.fieldMinutes'), minutes)),
    h('div', { class: 'field-row' }, field(t('tournaments.fieldStarts'), starts), field(t('tournaments.fieldStartTime'), startAt)),
    field(t('tournaments.fieldName'), name),
    h('div', { class: 'field-row checks' }, check(t('tournaments.rated'), rated), check(t('tournaments.private'), secret)),
    startNote,
    create,
    error,
  );
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    create.disabled = true;
    const body: Record<string, unknown> = { kind: kind.value, length: Number(length.value), clock: Number(clock.value), max_players: Number(players.value), name: name.value || null };
    if (kind.value === 'swiss') body.rounds = Number(rounds.value);
    if (kind.value === 'arena') body.minutes = Number(minutes.value);
    if (rated.checked) body.rated = true;
    if (secret.checked) body.private = true;
    if (starts.value === 'at') {
      const when = new Date(startAt.value); // a datetime-local value is the browser's local time
      if (Number.isNaN(when.getTime())) {
        error.textContent = t('tournaments.chooseStart');
        create.disabled = false;
        return;
      }
      body.start = when.toISOString();
    }
    try {
      const made = await call<TournamentView>('POST', '/api/tournaments', body);
      location.assign(`/t/${made.tournament}`);
    } catch (err) {
      error.textContent = message(err);
      create.disabled = false;
    }
  });
  const me = await account().catch(() => null);
  if (!me) {
    form.replaceChildren(h('h2', { text: t('tournaments.new') }), h('p', { class: 'sub', text: t('tournaments.signIn') }));
  }
  main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: t('nav.tournaments') }), h('p', { class: 'sub', text: t('tournaments.intro') })), lists, form);
  const row = (x: Summary) =>
    h(
      'li',
      { 'data-tournament': x.id },
      h('span', { class: 'minfo' }, h('a', { href: `/t/${x.id}`, text: x.name }), h('span', { class: 'sub', text: t('tournaments.line', { terms: terms(x), players: x.players, max: x.max_players, won: x.winner ? 'yes' : 'no', winner: x.winner ?? '' }) })),
      h('a', { class: 'btn', href: `/t/${x.id}`, text: x.phase === 'open' ? t('tournaments.join') : t('tournaments.view') }),
    );
  const refresh = async () => {
    try {
      const all = await call<Record<'open' | 'running' | 'finished' | 'mine', Summary[]>>('GET', '/api/tournaments');
      const section = (title: string, cls: string, items: Summary[], empty: string) =>
        h('section', { class: `card ${cls}` }, h('h2', { text: title }), h('ul', { class: 'matchlist' }, ...(items.length ? items.map(row) : [h('li', { class: 'empty', text: empty })])));
      lists.replaceChildren(
        section(t('tournaments.upcoming'), 'upcoming', all.open, t('tournaments.noneOpen')),
        section(t('tournaments.running'), 'running', all.running, t('tournaments.noneRunning')),
        section(t('tournaments.finished'), 'finished', all.finished, t('tournaments.noneFinished')),
      );
    } catch (err) {
      lists.replaceChildren(h('p', { text: message(err) }));
    }
  };
  await refresh();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refresh();
  }, REFRESH_MS * 2);
}

// ---------------------------------------------------------------- one tournament

function countdown(view: TournamentView, shown: number): string {
  if (view.next === null || view.state === 'finished') return '';
  const seconds = Math.max(0, Math.round((view.next - view.now - (Date.now() - shown)) / 1000));
  const what = view.state === 'open' ? 'starts' : view.kind === 'arena' ? 'next' : 'step';
  return t('tournaments.countdown', { what, time: ltr(`${formatNumber(Math.floor(seconds / 60), { useGrouping: false })}:${formatNumber(seconds % 60, { minimumIntegerDigits: 2 })}`) });
}

function pairingLine(p: PairingView): HTMLElement {
  const [a, b] = p.players;
  const o = p.outcome;
  const who = (i: number) => h('span', { class: o && o.winner === i ? 'winner' : '', text: p.players[i] ?? t('tournaments.bye') });
  const result = o ? (o.how === 'played' ? ltr(`${formatNumber(o.score[0] ?? 0)}–${formatNumber(o.score[1] ?? 0)}`) : t('tournaments.how', { how: o.how })) : p.watch ? '' : '…';
  const watch = !o && p.match ? h('a', { href: `/m/${p.match}#watch`, class: 'watch', text: t('tournaments.watch') }) : null;
  const names = a && b ? withSlots('common.versus', { a: who(0), b: who(1) }).map((x) => (typeof x === 'string' ? h('span', { class: 'sub', text: x }) : x)) : [who(0), ' ', who(1)];
  return h('li', { class: 'pairing' }, ...names, h('span', { class: 'sub pairing-result', text: ` ${result}` }), ...(watch ? [' ', watch] : []));
}

export async function startTournament(root: HTMLElement, tid: string): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players tournament' });
  root.replaceChildren(pageHeader(accountBox()), main);
  const storage = browserStorage();
  const error = h('p', { class: 'form-error', role: 'alert' });
  const clockLine = h('p', { class: 'countdown', 'aria-live': 'off' });
  let view: TournamentView | null = null;
  let shown = Date.now();
  const act = async (what: 'join' | 'withdraw', b: HTMLButtonElement) => {
    b.disabled = true;
    error.textContent = '';
    try {
      view = await call<TournamentView>('POST', `/api/tournaments/${tid}/${what}`, {});
      shown = Date.now();
      draw();
    } catch (err) {
      error.textContent = message(err);
      b.disabled = false;
    }
  };
  const draw = () => {
    if (!view) return;
    const v = view;
    document.title = `${v.name} · fairgammon`;
    const status = t('tournaments.status', { state: v.state, won: v.winner ? 'yes' : 'no', winner: v.winner ?? '', arena: v.kind === 'arena' ? 'yes' : 'no', round: v.round, players: v.players.length, max: v.terms.max_players });
    const actions: HTMLElement[] = [];
    if (v.state !== 'finished') {
      const open = v.state === 'open' || v.kind === 'arena'; // knockouts and Swiss take nobody once started
      if ((!v.you || v.you.withdrawn) && open) {
        const join = button(t('tournaments.join'), 'btn primary join-tournament');
        join.addEventListener('click', () => void act('join', join));
        actions.push(join);
      } else if (v.you && !v.you.withdrawn) {
        const out = button(t('tournaments.withdraw'), 'btn withdraw-tournament');
        out.addEventListener('click', () => void act('withdraw', out));
        actions.push(out);
      }
    }
    const mine: HTMLElement[] = [];
    if (v.me) {
      const me = v.me;
      const play = button(t('tournaments.play'), 'btn primary play-tournament-match');
      play.addEventListener('click', () => {
        saveSeat(storage, me.match, { seat: me.seat, token: me.token });
        location.assign(`/m/${me.match}`);
      });
      mine.push(h('section', { class: 'card your-match' }, h('h2', { text: t('tournaments.yourMatch') }), h('p', { text: t('tournaments.playNow', { round: me.round ? formatNumber(me.round) : '—', board: me.board }) }), play));
    }
    const table = h(
      'table',
      { class: 'history standings' },
      h('thead', {}, h('tr', {}, ...['#', t('tournaments.player'), t('tournaments.points'), t('tournaments.won'), t('tournaments.played')].map((th) => h('th', { text: th })))),
      h(
        'tbody',
        {},
        ...v.standings.map((s) =>
          h('tr', { class: s.withdrawn ? 'withdrawn' : '' }, h('td', { class: 'rank', text: formatNumber(s.rank) }), h('td', {}, ...withBotTag(document.createTextNode(s.withdrawn ? t('tournaments.withdrew', { name: s.name }) : s.name), s.bot)), h('td', { class: 'num', text: formatNumber(s.points) }), h('td', { class: 'num', text: formatNumber(s.won) }), h('td', { class: 'num', text: formatNumber(s.played) })),
        ),
      ),
    );
    const rounds = v.rounds.map((r) => h('div', { class: 'round' }, h('h3', { text: v.kind === 'arena' ? t('tournaments.games') : t('tournaments.round', { round: r.round }) }), h('ul', { class: 'pairings' }, ...r.pairings.map(pairingLine))));
    const signups = v.state === 'open' ? [h('section', { class: 'card entrants' }, h('h2', { text: t('tournaments.players') }), h('ul', { class: 'matchlist' }, ...(v.players.length ? v.players.filter((p) => !p.withdrawn).map((p) => h('li', {}, ...withBotTag(document.createTextNode(p.name), p.bot), ` · ${formatNumber(p.rating)}`)) : [h('li', { class: 'empty', text: t('tournaments.nobody') })])))] : [];
    main.replaceChildren(
      h('section', { class: 'card tournament-head' }, h('h1', { text: v.name }), h('p', { class: 'sub', text: terms({ ...v.terms, kind: v.kind }) }), h('p', { class: `tstate ${v.state}`, text: status }), clockLine, ...actions, error),
      ...mine,
      ...signups,
      ...(v.standings.length ? [h('section', { class: 'card' }, h('h2', { text: t('tournaments.standings') }), h('div', { class: 'table-scroll' }, table))] : []),
      ...(rounds.length ? [h('section', { class: `card bracket ${v.kind}` }, h('h2', { text: v.kind === 'knockout' ? t('tournaments.bracket') : t('tournaments.rounds') }), h('div', { class: 'rounds' }, ...rounds))] : []),
    );
    clockLine.textContent = countdown(v, shown);
  };
  const load = async () => {
    try {
      view = await call<TournamentView>('GET', `/api/tournaments/${tid}`);
      shown = Date.now();
      draw();
    } catch (err) {
      if (!view) main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: t('tournaments.one') }), h('p', { text: message(err) })));
    }
  };
  await load();
  setInterval(() => {
    if (document.visibilityState === 'visible' && view?.state !== 'finished') void load();
  }, REFRESH_MS);
  setInterval(() => {
    if (view) clockLine.textContent = countdown(view, shown);
  }, 1000);
}
