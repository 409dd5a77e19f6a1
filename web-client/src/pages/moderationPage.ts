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
  type RatingFlag,
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
import { around, formatDate, formatNumber, t } from '../i18n';

/** Each sanction in words (the catalogue's `mod.sanction` select). */
const sanctionWords = (kind: SanctionKind): string => t('mod.sanction', { kind });

const when = (ms: number): string => formatDate(ms, { dateStyle: 'short', timeStyle: 'short' });
const matchLink = (link: string, text = t('mod.match')): HTMLElement => h('a', { href: link, text });
const versus = (accounts: readonly (string | null)[]): string => t('common.versus', { a: accounts[0] ?? t('common.guest'), b: accounts[1] ?? t('common.guest') });

/** Why the rules flagged the match, and what they made of it (docs/fairplay.md). */
function ratingFlagWords(f: RatingFlag): string {
  const why = f.flags.map((flag) => t('mod.ratingFlag', { flag })).join('; ');
  return t('mod.flagLine', { why, shared: f.shared.length ? 'yes' : 'no', addresses: f.shared.join(', '), made: f.void ?? 'rated' });
}

function chatList(lines: readonly ChatLineSeen[], marked?: number): HTMLElement {
  if (!lines.length) return h('p', { class: 'sub', text: t('mod.noLines') });
  return h(
    'ol',
    { class: 'mod-chat' },
    ...lines.map((l) =>
      h('li', { class: l.n === marked ? 'reported' : '' }, h('span', { class: 'who', text: l.account ? l.name : t('mod.guestName', { name: l.name }) }), h('span', { class: 'said', text: l.text })),
    ),
  );
}

export async function startModerationPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page', 'moderation-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = `${t('mod.title')} · fairgammon`;
  if (!(await needAccount(main, t('mod.title')))) return;

  const error = h('p', { class: 'form-error', role: 'alert' });
  const queue = h('section', { class: 'card mod-queue' });
  const flags = h('section', { class: 'card mod-flags' });
  const ratingFlags = h('section', { class: 'card mod-rating-flags' });
  const player = h('section', { class: 'card mod-player' });
  const chat = h('section', { class: 'card mod-chat-card', hidden: '' });
  const audit = h('section', { class: 'card mod-audit' });
  let report: Report | null = null; // the report the player card answers

  const fail = (err: unknown) => {
    error.textContent = errorWords(err);
  };

  async function showQueue(): Promise<void> {
    const q = await getQueue();
    queue.replaceChildren(h('h2', { text: t('mod.reports', { n: q.reports.length }) }));
    if (!q.reports.length) queue.append(h('p', { class: 'sub empty-queue', text: t('mod.noReport') }));
    for (const r of q.reports) queue.append(reportItem(r));
    flags.replaceChildren(h('h2', { text: t('mod.engineFlags') }), h('p', { class: 'sub', text: t('mod.engineAbout') }));
    if (!q.flags.length) flags.append(h('p', { class: 'sub', text: t('mod.noAccountFlagged') }));
    for (const f of q.flags) flags.append(flagItem(f));
    ratingFlags.replaceChildren(h('h2', { text: t('mod.ratingFlags') }), h('p', { class: 'sub', text: t('mod.ratingAbout') }));
    if (!q.rating_flags.length) ratingFlags.append(h('p', { class: 'sub', text: t('mod.noMatchFlagged') }));
    else ratingFlags.append(h('ul', { class: 'plain rating-flags' }, ...q.rating_flags.map(ratingFlagItem)));
  }

  function ratingFlagItem(f: RatingFlag): HTMLElement {
    const names = versus(f.accounts);
    const looks = f.accounts.filter((n): n is string => n !== null).map((n) => {
      const look = button(t('mod.lookAt', { name: n }), 'btn small look');
      look.addEventListener('click', () => void showPlayer(n, null).catch(fail));
      return look;
    });
    return h(
      'li',
      { class: 'rating-flag', 'data-match': f.match },
      h('p', {}, matchLink(`/m/${f.match}`), h('span', { class: 'sub', text: ` · ${names} · ${when(f.at)}` })),
      h('p', { class: 'sub', text: ratingFlagWords(f) }),
      h('div', { class: 'row report-actions' }, ...looks),
    );
  }

  function reportItem(r: Report): HTMLElement {
    const reason = h('input', { type: 'text', name: 'dismiss-reason', maxlength: '500', placeholder: t('mod.whyDismiss'), 'aria-label': t('mod.whyDismiss') });
    const look = button(t('mod.lookAt', { name: r.target }), 'btn small primary look');
    look.addEventListener('click', () => void showPlayer(r.target, r).catch(fail));
    const dismiss = button(t('mod.dismiss'), 'btn ghost small dismiss');
    dismiss.addEventListener('click', async () => {
      try {
        await dismissReport(r.id, reason.value);
        await refresh();
      } catch (err) {
        fail(err);
      }
    });
    const parts: Node[] = [
      h('p', { class: 'report-head' }, h('strong', { text: `#${r.id} ${r.target}` }), h('span', { class: 'sub', text: ` ${t('mod.reportedBy', { reporter: r.reporter, when: when(r.at) })}` })),
      h('p', { class: 'report-reason', text: r.reason }),
    ];
    if (r.link && r.match) {
      const showChat = button(t('mod.wholeChat'), 'btn ghost small whole-chat');
      const match = r.match;
      showChat.addEventListener('click', () => void showMatchChat(match).catch(fail));
      parts.push(h('p', { class: 'row' }, matchLink(r.link, t('mod.openMatch')), showChat));
    }
    if (r.chat) parts.push(chatList(r.chat.context, r.chat.line));
    parts.push(h('div', { class: 'row report-actions' }, look, reason, dismiss));
    return h('article', { class: 'report-item', 'data-report': String(r.id) }, ...parts);
  }

  function flagItem(f: Flag): HTMLElement {
    const look = button(t('mod.lookAt', { name: f.name }), 'btn small look');
    look.addEventListener('click', () => void showPlayer(f.name, null).catch(fail));
    const reason = h('input', { type: 'text', name: 'clear-reason', maxlength: '500', placeholder: t('mod.review'), 'aria-label': t('mod.reviewLabel') });
    const clear = button(t('mod.clearFlag'), 'btn ghost small clear-flag');
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
      h('ul', { class: 'plain' }, ...f.games.slice(0, 12).map((g) => h('li', {}, matchLink(g.link), h('span', { class: 'sub', text: ` ${t('mod.pr', { pr: formatNumber(g.pr, { minimumFractionDigits: 1, maximumFractionDigits: 1 }), n: g.decisions, timed: g.seconds === null ? 'no' : 'yes', seconds: formatNumber(g.seconds ?? 0, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) })}` })))),
      h('div', { class: 'row report-actions' }, look, reason, clear),
    );
  }

  async function showMatchChat(match: string): Promise<void> {
    const c = await getChat(match);
    chat.hidden = false;
    chat.replaceChildren(h('h2', { text: t('mod.chatOf') }), h('p', {}, matchLink(c.link, t('mod.openMatch'))), h('h3', { text: t('mod.players') }), chatList(c.players), h('h3', { text: t('mod.spectators') }), chatList(c.spectators));
  }

  const lookup = h('input', { type: 'text', name: 'player', maxlength: '20', placeholder: t('mod.accountName'), 'aria-label': t('mod.accountName') });
  const lookupForm = h('form', { class: 'row mod-lookup' }, lookup, (() => {
    const b = button(t('mod.lookUp'), 'btn small lookup');
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
    player.replaceChildren(h('h2', { text: t('mod.player') }), lookupForm, evidence(ev));
    player.scrollIntoView({ block: 'start' });
  }

  function evidence(ev: Evidence): HTMLElement {
    const box = h('div', { class: 'evidence', 'data-player': ev.name });
    const reason = h('textarea', { name: 'reason', rows: '2', maxlength: '500', placeholder: t('mod.reasonPlaceholder'), 'aria-label': t('mod.reason') });
    const kind = h('select', { name: 'sanction', 'aria-label': t('mod.sanctionLabel') });
    for (const k of SANCTION_KINDS) if (!ev.sanctions[k]) kind.append(h('option', { value: k, text: sanctionWords(k) }));
    const apply = button(t('mod.apply'), 'btn primary small apply-sanction');
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
      h('p', {}, h('a', { href: `/u/${encodeURIComponent(ev.name)}`, class: 'player-name' }, h('strong', { text: ev.name })), h('span', { class: 'sub', text: ` · ${t('mod.playerLine', { rating: formatNumber(ev.rating, { minimumFractionDigits: 2, maximumFractionDigits: 2 }), n: ev.matches })}` })),
      ...(report ? [h('p', { class: 'sub answering', text: t('mod.answering', { id: report.id, reason: report.reason }) })] : []),
      h('p', { class: `sub assist${ev.assist.flagged ? ' flagged' : ''}`, text: t('mod.assist', { flagged: ev.assist.flagged ? 'yes' : 'no', summary: ev.assist.decisions ? ev.assist.summary : t('mod.noAnalysed') }) }),
      ...(ev.rating_flags.length
        ? [h('h3', { text: t('mod.ratingFlags') }), h('ul', { class: 'plain rating-flags' }, ...ev.rating_flags.map((f) => h('li', { class: 'rating-flag', 'data-match': f.match }, matchLink(`/m/${f.match}`), h('span', { class: 'sub', text: ` ${versus(f.accounts)} · ${ratingFlagWords(f)}` }))))]
        : []),
      h('h3', { text: t('mod.inForce') }),
      inForce.length
        ? h(
            'ul',
            { class: 'plain sanctions' },
            ...inForce.map((k) => {
              const laid = ev.sanctions[k]!;
              const lift = button(t('mod.lift'), `btn ghost small lift lift-${k}`);
              lift.addEventListener('click', () => void act(() => moderate(ev.name, 'lift', reason.value, { sanction: k })));
              return h('li', { class: `sanction sanction-${k}` }, h('strong', { text: sanctionWords(k) }), h('span', { class: 'sub', text: ` ${t('mod.laidBy', { by: laid.by, when: when(laid.at) })} ` }), h('span', { text: laid.reason }), lift);
            }),
          )
        : h('p', { class: 'sub no-sanction', text: t('mod.none') }),
      h('div', { class: 'mod-act' }, kind, reason, apply),
      h('h3', { text: t('mod.recent') }),
      ev.recent.length
        ? h('ul', { class: 'plain recent' }, ...ev.recent.map((g) => h('li', {}, matchLink(g.link, t('mod.vsOpponent', { name: g.opponent })), h('span', { class: 'sub', text: ` · ${t('mod.gameLine', { result: g.won === null ? 'none' : g.won ? 'won' : 'lost', rated: g.rated ? 'yes' : 'no', when: when(g.at) })}` }))))
        : h('p', { class: 'sub', text: t('mod.noFinished') }),
      h('h3', { text: t('mod.reportsAbout', { name: ev.name }) }),
      ev.reports.length ? h('ul', { class: 'plain' }, ...ev.reports.map((r) => h('li', { text: t('mod.reportLine', { id: r.id, reporter: r.reporter, when: when(r.at), reason: r.reason }) }))) : h('p', { class: 'sub', text: t('mod.none') }),
    );
    return box;
  }

  function auditRow(e: AuditEntry): HTMLElement {
    const action = e.action === 'lift' ? 'lift' : e.sanction === 'flag' ? 'flag' : e.action;
    const [before, after] = around('mod.audit', 'moderator', { action, sanction: e.sanction ?? '', target: e.target });
    return h(
      'li',
      { class: `audit-${e.action}` },
      h('span', { class: 'sub', text: `${when(e.at)} ` }),
      ...(before ? [h('span', { text: before })] : []),
      h('strong', { text: e.moderator }),
      h('span', { text: after }),
      h('span', { class: 'sub', text: ` ${t('mod.auditReason', { reason: e.reason, report: e.report ? 'yes' : 'no', n: e.report ?? 0 })}` }),
    );
  }

  async function showAudit(): Promise<void> {
    const { entries } = await getAudit();
    audit.replaceChildren(h('h2', { text: t('mod.auditLog') }), entries.length ? h('ol', { class: 'plain audit-log' }, ...entries.map(auditRow)) : h('p', { class: 'sub', text: t('mod.nothingYet') }));
  }

  async function refresh(name?: string): Promise<void> {
    await Promise.all([showQueue(), showAudit(), name ? showPlayer(name, report) : Promise.resolve()]);
  }

  try {
    await showQueue();
  } catch (err) {
    const text = err instanceof LobbyError && err.code === 'not_moderator' ? t('mod.notModerator') : errorWords(err);
    main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: t('mod.title') }), h('p', { class: 'sub not-moderator', text })));
    return;
  }
  player.replaceChildren(h('h2', { text: t('mod.player') }), lookupForm);
  main.replaceChildren(h('h1', { class: 'mod-title', text: t('mod.title') }), error, queue, player, chat, flags, ratingFlags, audit);
  await showAudit().catch(fail);
}
