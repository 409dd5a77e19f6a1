/**
 * `/moderation`: the moderators' page (docs/moderation.md). The open reports, oldest first,
 * each with its match link and the reported chat line in its context; the engine-assist
 * detector's flags; a player's evidence (sanctions in force, reports, recent games, their
 * audit) with the actions (mute, suspend rating, ban, each with a reason, and Lift); a match's
 * whole chat; the audit log. Everything a player wrote is shown as text.
 */

import {
  type AuditEntry,
  type ChatLineSeen,
  type Evidence,
  type Flag,
  type Report,
  SANCTION_KINDS,
  type SanctionKind,
  clearFlag,
  dismissReport,
  getAudit,
  getChat,
  getEvidence,
  getQueue,
  moderate,
} from '../net/moderationApi';
import { LobbyError } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import { button, h } from '../ui/dom';
import { accountBox } from './account';
import { pageHeader } from './common';
import { needAccount } from './mine';

/** Each sanction in words (a kind without words does not compile). */
const SANCTION_WORDS: Record<SanctionKind, string> = { mute: 'Mute (no chat)', suspend: 'Suspend rating (no rated play)', ban: 'Ban (no rated play, chat or reports)' };
const ACTION_WORDS: Record<AuditEntry['action'], string> = { mute: 'muted', suspend: 'suspended the rating of', ban: 'banned', lift: 'lifted', dismiss: 'dismissed a report on' };

const when = (ms: number): string => new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
const matchLink = (link: string, text = 'Match'): HTMLElement => h('a', { href: link, text });

function chatList(lines: readonly ChatLineSeen[], marked?: number): HTMLElement {
  if (!lines.length) return h('p', { class: 'sub', text: 'No lines.' });
  return h(
    'ol',
    { class: 'mod-chat' },
    ...lines.map((l) =>
      h('li', { class: l.n === marked ? 'reported' : '' }, h('span', { class: 'who', text: `${l.name}${l.account ? '' : ' (guest)'}` }), h('span', { class: 'said', text: l.text })),
    ),
  );
}

export async function startModerationPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page', 'moderation-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = 'Moderation · fairgammon';
  if (!(await needAccount(main, 'Moderation'))) return;

  const error = h('p', { class: 'form-error', role: 'alert' });
  const queue = h('section', { class: 'card mod-queue' });
  const flags = h('section', { class: 'card mod-flags' });
  const player = h('section', { class: 'card mod-player' });
  const chat = h('section', { class: 'card mod-chat-card', hidden: '' });
  const audit = h('section', { class: 'card mod-audit' });
  let report: Report | null = null; // the report the player card answers

  const fail = (err: unknown) => {
    error.textContent = errorWords(err);
  };

  async function showQueue(): Promise<void> {
    const q = await getQueue();
    queue.replaceChildren(h('h2', { text: `Reports (${q.reports.length} open)` }));
    if (!q.reports.length) queue.append(h('p', { class: 'sub empty-queue', text: 'No open report.' }));
    for (const r of q.reports) queue.append(reportItem(r));
    flags.replaceChildren(h('h2', { text: 'Engine-assist flags' }), h('p', { class: 'sub', text: 'Accounts whose play is implausibly close to the engine over their recent rated games: for review, never an automatic sanction.' }));
    if (!q.flags.length) flags.append(h('p', { class: 'sub', text: 'No account is flagged.' }));
    for (const f of q.flags) flags.append(flagItem(f));
  }

  function reportItem(r: Report): HTMLElement {
    const reason = h('input', { type: 'text', name: 'dismiss-reason', maxlength: '500', placeholder: 'Why dismiss', 'aria-label': 'Why dismiss' });
    const look = button(`Look at ${r.target}`, 'btn small primary look');
    look.addEventListener('click', () => void showPlayer(r.target, r).catch(fail));
    const dismiss = button('Dismiss', 'btn ghost small dismiss');
    dismiss.addEventListener('click', async () => {
      try {
        await dismissReport(r.id, reason.value);
        await refresh();
      } catch (err) {
        fail(err);
      }
    });
    const parts: Node[] = [
      h('p', { class: 'report-head' }, h('strong', { text: `#${r.id} ${r.target}` }), h('span', { class: 'sub', text: ` reported by ${r.reporter} · ${when(r.at)}` })),
      h('p', { class: 'report-reason', text: r.reason }),
    ];
    if (r.link && r.match) {
      const showChat = button('Whole chat', 'btn ghost small whole-chat');
      const match = r.match;
      showChat.addEventListener('click', () => void showMatchChat(match).catch(fail));
      parts.push(h('p', { class: 'row' }, matchLink(r.link, 'Open the match'), showChat));
    }
    if (r.chat) parts.push(chatList(r.chat.context, r.chat.line));
    parts.push(h('div', { class: 'row report-actions' }, look, reason, dismiss));
    return h('article', { class: 'report-item', 'data-report': String(r.id) }, ...parts);
  }

  function flagItem(f: Flag): HTMLElement {
    const look = button(`Look at ${f.name}`, 'btn small look');
    look.addEventListener('click', () => void showPlayer(f.name, null).catch(fail));
    const reason = h('input', { type: 'text', name: 'clear-reason', maxlength: '500', placeholder: 'Review', 'aria-label': 'What the review found' });
    const clear = button('Clear flag', 'btn ghost small clear-flag');
    clear.addEventListener('click', async () => {
      try {
        await clearFlag(f.name, reason.value);
        await refresh();
      } catch (err) {
        fail(err);
      }
    });
    return h(
      'article',
      { class: 'flag-item' },
      h('p', {}, h('strong', { text: f.name }), h('span', { class: 'sub', text: ` · ${when(f.at)}` })),
      h('p', { class: 'sub', text: f.summary }),
      h('ul', { class: 'plain' }, ...f.games.slice(0, 12).map((g) => h('li', {}, matchLink(g.link), h('span', { class: 'sub', text: ` PR ${g.pr.toFixed(1)} over ${g.decisions} decisions` })))),
      h('div', { class: 'row report-actions' }, look, reason, clear),
    );
  }

  async function showMatchChat(match: string): Promise<void> {
    const c = await getChat(match);
    chat.hidden = false;
    chat.replaceChildren(h('h2', { text: 'Chat of the match' }), h('p', {}, matchLink(c.link, 'Open the match')), h('h3', { text: 'Players' }), chatList(c.players), h('h3', { text: 'Spectators' }), chatList(c.spectators));
  }

  const lookup = h('input', { type: 'text', name: 'player', maxlength: '20', placeholder: 'Account name', 'aria-label': 'Account name' });
  const lookupForm = h('form', { class: 'row mod-lookup' }, lookup, (() => {
    const b = button('Look up', 'btn small lookup');
    b.setAttribute('type', 'submit');
    return b;
  })());
  lookupForm.addEventListener('submit', (e) => {
    e.preventDefault();
    if (lookup.value.trim()) void showPlayer(lookup.value.trim(), null).catch(fail);
  });

  async function showPlayer(name: string, answering: Report | null): Promise<void> {
    error.textContent = '';
    report = answering;
    const ev = await getEvidence(name);
    player.replaceChildren(h('h2', { text: 'Player' }), lookupForm, evidence(ev));
    player.scrollIntoView({ block: 'start' });
  }

  function evidence(ev: Evidence): HTMLElement {
    const box = h('div', { class: 'evidence', 'data-player': ev.name });
    const reason = h('textarea', { name: 'reason', rows: '2', maxlength: '500', placeholder: 'Reason (kept in the audit log)', 'aria-label': 'Reason' });
    const kind = h('select', { name: 'sanction', 'aria-label': 'Sanction' });
    for (const k of SANCTION_KINDS) if (!ev.sanctions[k]) kind.append(h('option', { value: k, text: SANCTION_WORDS[k] }));
    const apply = button('Apply', 'btn primary small apply-sanction');
    apply.disabled = kind.options.length === 0;
    const act = async (go: () => Promise<unknown>) => {
      try {
        await go();
        report = null;
        await refresh(ev.name);
      } catch (err) {
        fail(err);
      }
    };
    apply.addEventListener('click', () => void act(() => moderate(ev.name, kind.value as SanctionKind, reason.value, report ? { report: report.id } : {})));
    const inForce = SANCTION_KINDS.filter((k) => ev.sanctions[k]);
    box.append(
      h('p', {}, h('a', { href: `/u/${encodeURIComponent(ev.name)}`, class: 'player-name' }, h('strong', { text: ev.name })), h('span', { class: 'sub', text: ` · rating ${ev.rating.toFixed(2)} · ${ev.matches} matches` })),
      ...(report ? [h('p', { class: 'sub answering', text: `Answering report #${report.id}: ${report.reason}` })] : []),
      h('p', { class: `sub assist${ev.assist.flagged ? ' flagged' : ''}`, text: `Engine assist${ev.assist.flagged ? ' (flagged)' : ''}: ${ev.assist.decisions ? ev.assist.summary : 'no analysed rated game yet'}` }),
      h('h3', { text: 'Sanctions in force' }),
      inForce.length
        ? h(
            'ul',
            { class: 'plain sanctions' },
            ...inForce.map((k) => {
              const laid = ev.sanctions[k]!;
              const lift = button('Lift', `btn ghost small lift lift-${k}`);
              lift.addEventListener('click', () => void act(() => moderate(ev.name, 'lift', reason.value, { sanction: k })));
              return h('li', { class: `sanction sanction-${k}` }, h('strong', { text: SANCTION_WORDS[k] }), h('span', { class: 'sub', text: ` by ${laid.by}, ${when(laid.at)}: ` }), h('span', { text: laid.reason }), lift);
            }),
          )
        : h('p', { class: 'sub no-sanction', text: 'None.' }),
      h('div', { class: 'mod-act' }, kind, reason, apply),
      h('h3', { text: 'Recent games' }),
      ev.recent.length
        ? h('ul', { class: 'plain recent' }, ...ev.recent.map((g) => h('li', {}, matchLink(g.link, `vs ${g.opponent}`), h('span', { class: 'sub', text: ` · ${g.won === null ? 'no result' : g.won ? 'won' : 'lost'} · ${g.rated ? 'rated' : 'unrated'} · ${when(g.at)}` }))))
        : h('p', { class: 'sub', text: 'No finished match.' }),
      h('h3', { text: `Reports about ${ev.name}` }),
      ev.reports.length ? h('ul', { class: 'plain' }, ...ev.reports.map((r) => h('li', { text: `#${r.id} by ${r.reporter}, ${when(r.at)}: ${r.reason}` }))) : h('p', { class: 'sub', text: 'None.' }),
    );
    return box;
  }

  function auditRow(e: AuditEntry): HTMLElement {
    const what = e.action === 'lift' ? `lifted the ${e.sanction} of` : e.sanction === 'flag' ? 'cleared the engine-assist flag of' : ACTION_WORDS[e.action];
    return h('li', { class: `audit-${e.action}` }, h('span', { class: 'sub', text: `${when(e.at)} ` }), h('strong', { text: e.moderator }), h('span', { text: ` ${what} ${e.target}` }), h('span', { class: 'sub', text: ` — ${e.reason}${e.report ? ` (report #${e.report})` : ''}` }));
  }

  async function showAudit(): Promise<void> {
    const { entries } = await getAudit();
    audit.replaceChildren(h('h2', { text: 'Audit log' }), entries.length ? h('ol', { class: 'plain audit-log' }, ...entries.map(auditRow)) : h('p', { class: 'sub', text: 'Nothing yet.' }));
  }

  async function refresh(name?: string): Promise<void> {
    await Promise.all([showQueue(), showAudit(), name ? showPlayer(name, report) : Promise.resolve()]);
  }

  try {
    await showQueue();
  } catch (err) {
    const text = err instanceof LobbyError && err.code === 'not_moderator' ? 'Only moderators see this page: the operator names them (docs/moderation.md).' : errorWords(err);
    main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: 'Moderation' }), h('p', { class: 'sub not-moderator', text })));
    return;
  }
  player.replaceChildren(h('h2', { text: 'Player' }), lookupForm);
  main.replaceChildren(h('h1', { class: 'mod-title', text: 'Moderation' }), error, queue, player, chat, flags, audit);
  await showAudit().catch(fail);
}
