/**
 * Tournaments (docs/tournaments.md; the API: docs/protocol.md, "Tournaments"):
 * `/tournaments` lists the open, running and finished ones and creates one (signed-in
 * players); `/t/<id>` shows one — its terms, a countdown to what comes next, the standings,
 * the rounds (a knockout's bracket round by round), the matches being played with watch links,
 * the viewer's own match — and joins or withdraws. The page reads the tournament again every
 * 3 s, so standings and bracket move as matches end. Every name is rendered as text.
 */

import { LobbyError, call } from '../net/lobbyApi';
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
const KINDS = { knockout: 'Knockout', swiss: 'Swiss', arena: 'Arena' } as const;

function terms(t: { kind: string; mode: string; length: number; clock: number; rounds: number; minutes: number; rated: boolean }): string {
  const what = `${KINDS[t.kind as keyof typeof KINDS] ?? t.kind} · ${describeOptions(t.mode, t.length, t.clock)}`;
  const extra = t.kind === 'swiss' ? ` · ${t.rounds} rounds` : t.kind === 'arena' ? ` · ${t.minutes} min` : '';
  return what + extra + (t.rated ? ' · rated' : '');
}

const message = (err: unknown) => (err instanceof LobbyError ? err.message : String(err));

// ---------------------------------------------------------------- the list

export async function startTournaments(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players tournaments' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = 'Tournaments · fairgammon';
  const lists = h('div', { class: 'tournament-lists' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const field = (label: string, input: HTMLElement) => h('label', { class: 'field' }, h('span', { class: 'flabel', text: label }), input);
  const kind = h('select', { name: 'kind' });
  for (const [value, label] of Object.entries(KINDS)) kind.append(h('option', { value, text: label }));
  const name = h('input', { type: 'text', name: 'tname', maxlength: '40', placeholder: 'Name (optional)' });
  const length = h('input', { type: 'number', name: 'length', min: '1', max: '25', value: '3' });
  const clock = h('input', { type: 'number', name: 'clock', min: '5', max: '600', value: '30' });
  const players = h('input', { type: 'number', name: 'max_players', min: '2', max: '256', value: '8' });
  const rounds = h('input', { type: 'number', name: 'rounds', min: '1', max: '20', value: '4' });
  const minutes = h('input', { type: 'number', name: 'minutes', min: '5', max: '240', value: '30' });
  const starts = h('select', { name: 'starts' });
  starts.append(h('option', { value: 'when_full', text: 'When it is full' }), h('option', { value: 'at', text: 'At a set time' }));
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
      ? 'It starts at that time (your local time) if enough players have joined, and is cancelled otherwise.'
      : 'It starts as soon as it is full (and is cancelled if it is not full within a day).';
  };
  starts.addEventListener('change', showStart);
  showStart();
  const create = button('Create tournament', 'btn primary create-tournament');
  create.setAttribute('type', 'submit');
  const form = h(
    'form',
    { class: 'card create-tournament-form' },
    h('h2', { text: 'New tournament' }),
    h('div', { class: 'field-row' }, field('Kind', kind), field('Points to win', length), field('Seconds per move', clock)),
    h('div', { class: 'field-row' }, field('Players at most', players), field('Rounds (Swiss)', rounds), field('Minutes (arena)', minutes)),
    h('div', { class: 'field-row' }, field('Starts', starts), field('Start time', startAt)),
    field('Name', name),
    h('div', { class: 'field-row checks' }, check('Rated', rated), check('Private (only people with the link can join)', secret)),
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
        error.textContent = 'Choose the start time.';
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
    form.replaceChildren(h('h2', { text: 'New tournament' }), h('p', { class: 'sub', text: 'Sign in to create or join a tournament.' }));
  }
  main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: 'Tournaments' }), h('p', { class: 'sub', text: 'Knockout, Swiss and arena tournaments that run themselves: rounds are paired, deadlines kept and results counted by the server.' })), lists, form);
  const row = (t: Summary) =>
    h(
      'li',
      { 'data-tournament': t.id },
      h('span', { class: 'minfo' }, h('a', { href: `/t/${t.id}`, text: t.name }), h('span', { class: 'sub', text: `${terms(t)} · ${t.players}/${t.max_players} players${t.winner ? ` · won by ${t.winner}` : ''}` })),
      h('a', { class: 'btn', href: `/t/${t.id}`, text: t.phase === 'open' ? 'Join' : 'View' }),
    );
  const refresh = async () => {
    try {
      const all = await call<Record<'open' | 'running' | 'finished' | 'mine', Summary[]>>('GET', '/api/tournaments');
      const section = (title: string, cls: string, items: Summary[], empty: string) =>
        h('section', { class: `card ${cls}` }, h('h2', { text: title }), h('ul', { class: 'matchlist' }, ...(items.length ? items.map(row) : [h('li', { class: 'empty', text: empty })])));
      lists.replaceChildren(
        section('Upcoming', 'upcoming', all.open, 'None open: create one.'),
        section('Running', 'running', all.running, 'None running.'),
        section('Finished', 'finished', all.finished, 'None yet.'),
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
  const what = view.state === 'open' ? 'Starts' : view.kind === 'arena' ? 'Next' : 'Next step';
  return `${what} in ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function pairingLine(p: PairingView): HTMLElement {
  const [a, b] = p.players;
  const o = p.outcome;
  const who = (i: number) => h('span', { class: o && o.winner === i ? 'winner' : '', text: p.players[i] ?? 'bye' });
  const result = o ? (o.how === 'played' ? `${o.score[0]}–${o.score[1]}` : o.how.replace('_', ' ')) : p.watch ? '' : '…';
  const watch = !o && p.match ? h('a', { href: `/m/${p.match}#watch`, class: 'watch', text: 'Watch' }) : null;
  return h('li', { class: 'pairing' }, who(0), h('span', { class: 'sub', text: a && b ? ' vs ' : ' ' }), who(1), h('span', { class: 'sub pairing-result', text: ` ${result}` }), ...(watch ? [' ', watch] : []));
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
    const status = v.state === 'finished' ? (v.winner ? `Finished · won by ${v.winner}` : 'Finished') : v.state === 'running' ? `Running${v.kind === 'arena' ? '' : ` · round ${v.round}`}` : `Open · ${v.players.length}/${v.terms.max_players} players`;
    const actions: HTMLElement[] = [];
    if (v.state !== 'finished') {
      const open = v.state === 'open' || v.kind === 'arena'; // knockouts and Swiss take nobody once started
      if ((!v.you || v.you.withdrawn) && open) {
        const join = button('Join', 'btn primary join-tournament');
        join.addEventListener('click', () => void act('join', join));
        actions.push(join);
      } else if (v.you && !v.you.withdrawn) {
        const out = button('Withdraw', 'btn withdraw-tournament');
        out.addEventListener('click', () => void act('withdraw', out));
        actions.push(out);
      }
    }
    const mine: HTMLElement[] = [];
    if (v.me) {
      const me = v.me;
      const play = button('Play your match', 'btn primary play-tournament-match');
      play.addEventListener('click', () => {
        saveSeat(storage, me.match, { seat: me.seat, token: me.token });
        location.assign(`/m/${me.match}`);
      });
      mine.push(h('section', { class: 'card your-match' }, h('h2', { text: 'Your match' }), h('p', { text: `Round ${me.round || '—'}, board ${me.board}: play now (a seat not taken by the deadline loses).` }), play));
    }
    const table = h(
      'table',
      { class: 'history standings' },
      h('thead', {}, h('tr', {}, ...['#', 'Player', 'Points', 'Won', 'Played'].map((t) => h('th', { text: t })))),
      h(
        'tbody',
        {},
        ...v.standings.map((s) =>
          h('tr', { class: s.withdrawn ? 'withdrawn' : '' }, h('td', { class: 'rank', text: String(s.rank) }), h('td', {}, ...withBotTag(document.createTextNode(s.name + (s.withdrawn ? ' (withdrew)' : '')), s.bot)), h('td', { class: 'num', text: String(s.points) }), h('td', { class: 'num', text: String(s.won) }), h('td', { class: 'num', text: String(s.played) })),
        ),
      ),
    );
    const rounds = v.rounds.map((r) => h('div', { class: 'round' }, h('h3', { text: v.kind === 'arena' ? 'Games' : `Round ${r.round}` }), h('ul', { class: 'pairings' }, ...r.pairings.map(pairingLine))));
    const signups = v.state === 'open' ? [h('section', { class: 'card entrants' }, h('h2', { text: 'Players' }), h('ul', { class: 'matchlist' }, ...(v.players.length ? v.players.filter((p) => !p.withdrawn).map((p) => h('li', {}, ...withBotTag(document.createTextNode(p.name), p.bot), ` · ${p.rating}`)) : [h('li', { class: 'empty', text: 'Nobody yet.' })])))] : [];
    main.replaceChildren(
      h('section', { class: 'card tournament-head' }, h('h1', { text: v.name }), h('p', { class: 'sub', text: terms({ ...v.terms, kind: v.kind }) }), h('p', { class: `tstate ${v.state}`, text: status }), clockLine, ...actions, error),
      ...mine,
      ...signups,
      ...(v.standings.length ? [h('section', { class: 'card' }, h('h2', { text: 'Standings' }), h('div', { class: 'table-scroll' }, table))] : []),
      ...(rounds.length ? [h('section', { class: `card bracket ${v.kind}` }, h('h2', { text: v.kind === 'knockout' ? 'Bracket' : 'Rounds' }), h('div', { class: 'rounds' }, ...rounds))] : []),
    );
    clockLine.textContent = countdown(v, shown);
  };
  const load = async () => {
    try {
      view = await call<TournamentView>('GET', `/api/tournaments/${tid}`);
      shown = Date.now();
      draw();
    } catch (err) {
      if (!view) main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: 'Tournament' }), h('p', { text: message(err) })));
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
