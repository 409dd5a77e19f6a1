/**
 * The match page at `/m/<match>`: the board as a player (seat token in this browser's storage)
 * or as a spectator (`#watch`, or no seat here). An invite link (`#join=<code>`: the code never
 * reaches the server in a URL) first asks for a name and claims the open seat. A seat link
 * (`#seat=<seat>.<token>`, from the match panel) moves a seat to another device: the token is
 * stored and taken out of the address bar; the new device re-commits its dice chain by itself. The creator sees
 * the invite and spectator links until the opponent joins; the game then starts by itself.
 * After the match, Rematch offers a rematch (the server tells the opponent and the spectators):
 * the opponent sees the offer with Accept, a spectator a link to watch it.
 */

import { acceptRematch, declineRematch, exportPaths, getMatch, joinMatch, LobbyError, type MatchSummary, offerRematch } from '../net/lobbyApi';
import { seatOf } from '../net/friendsApi';
import { errorWords } from '../net/refusals';
import { browserEnv } from '../net/connection';
import { NetGame } from '../view/netGame';
import { MatchSession } from '../net/session';
import {
  type SeatRecord,
  browserStorage,
  loadName,
  loadSeat,
  dismissRematch,
  parseSeatLink,
  saveName,
  saveSeat,
  seatLink,
  rematchDismissed,
} from '../net/storage';
import type { SecretStorage } from '../fairdice';
import { BoardApp } from '../ui/app';
import { chatPanel } from '../ui/chatPanel';
import { account } from './account';
import { reportButton, reportDialog } from './report';
import type { ChatLine } from '../net/protocol';
import { button, h } from '../ui/dom';
import { followComputerMatch } from './achievements';
import { ConnectionBanner } from './banner';
import { liveRecord } from './liveRecord';
import { attachBotPanel } from './botPanel';
import { describeOptions, linkField, pageHeader, rememberName, wsUrl } from './common';
import { t } from '../i18n';

const MATCH_ID = /^[0-9a-f]{32}$/;

/** The spectator link: as the server named it for the creator, else this page's `#watch`. */
const spectatorLink = (matchId: string, record: SeatRecord | null): string => record?.watch ?? `${location.origin}/m/${matchId}#watch`;

export async function startMatchPage(root: HTMLElement, matchId: string): Promise<void> {
  root.classList.add('fg-app');
  if (!MATCH_ID.test(matchId)) return notFound(root);
  const storage = browserStorage();
  let record = loadSeat(storage, matchId);
  const hash = location.hash;
  const moved = parseSeatLink(hash);
  if (moved) {
    // The seat link's token replaces whatever this browser held for the match; the server
    // checks it at the hello (a wrong one ends in "unknown seat token").
    record = moved;
    saveSeat(storage, matchId, moved);
    history.replaceState(null, '', location.pathname);
  }
  const invite = hash.startsWith('#join=') ? decodeURIComponent(hash.slice('#join='.length)) : null;
  if (!record && hash !== '#watch') {
    let summary;
    try {
      summary = await getMatch(matchId);
    } catch (err) {
      if (err instanceof LobbyError && err.status === 404) return notFound(root);
      summary = null;
    }
    // A signed-in player's own seat, taken on another device: the server gives its token again
    // (docs/correspondence.md, "Playing from anywhere").
    if (summary !== null && !invite) record = await accountSeat(matchId, summary, storage);
    const open = summary !== null && summary.phase === 'waiting';
    if (!record && open && (invite || !summary!.private)) record = await joinScreen(root, matchId, invite, storage, summary!);
  }
  // The invite code has done its job: keep it out of the address bar (and of bookmarks).
  if (invite) history.replaceState(null, '', location.pathname + (record ? '' : '#watch'));
  boot(root, matchId, record, storage);
}

/** This account's seat of the match, when the summary says an account with its name holds one. */
async function accountSeat(matchId: string, summary: MatchSummary, storage: SecretStorage): Promise<SeatRecord | null> {
  const me = await account();
  const mine = me !== null && summary.names.some((n, s) => n === me.username && summary.accounts?.[s]);
  if (!mine) return null;
  try {
    const got = await seatOf(matchId);
    const record: SeatRecord = { seat: got.seat, token: got.token };
    saveSeat(storage, matchId, record);
    return record;
  } catch {
    return null; // a seat whose token is only in the browser that took it: watch
  }
}

function notFound(root: HTMLElement): void {
  root.replaceChildren(
    pageHeader(),
    h(
      'main',
      { class: 'center-card' },
      h('section', { class: 'card' }, h('h1', { text: t('match.notFound') }), h('p', { text: t('match.notFoundText') }), h('a', { class: 'btn primary', href: '/', text: t('match.toLobby') })),
    ),
  );
}

/** Ask for a name and take the open seat; resolves with the seat, or null to watch instead. */
function joinScreen(
  root: HTMLElement,
  matchId: string,
  invite: string | null,
  storage: SecretStorage,
  summary: Awaited<ReturnType<typeof getMatch>>,
): Promise<SeatRecord | null> {
  return new Promise((resolve) => {
    const name = h('input', { type: 'text', name: 'name', maxlength: '24', autocomplete: 'nickname', placeholder: t('common.guest'), 'aria-label': t('lobby.yourName') });
    name.value = loadName(storage);
    // A signed-in player plays under the account's name (the server ignores a typed one).
    void account().then((me) => {
      if (!me) return;
      name.value = me.username;
      name.disabled = true;
    });
    const error = h('p', { class: 'form-error', role: 'alert' });
    const join = button(t('match.joinAndPlay'), 'btn primary join');
    join.setAttribute('type', 'submit');
    const watch = button(t('match.justWatch'), 'btn ghost watch');
    watch.addEventListener('click', () => resolve(null));
    const form = h(
      'form',
      { class: 'card join-card' },
      h('h1', { text: summary.names[0] ? t('match.invites', { name: summary.names[0] }) : t('match.someoneInvites') }),
      h('p', { class: 'sub', text: describeOptions(summary.mode, summary.length, summary.clock, summary.reserve, summary.days) }),
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('lobby.yourName') }), name),
      error,
      h('div', { class: 'row' }, join, watch),
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      join.disabled = true;
      error.textContent = '';
      const n = rememberName(storage, name);
      try {
        const joined = await joinMatch(matchId, n, invite);
        const record: SeatRecord = { seat: 1, token: joined.token };
        saveSeat(storage, matchId, record);
        resolve(record);
      } catch (err) {
        join.disabled = false;
        error.textContent = errorWords(err);
      }
    });
    root.replaceChildren(pageHeader(), h('main', { class: 'center-card' }, form));
    name.focus();
  });
}

function boot(root: HTMLElement, matchId: string, record: SeatRecord | null, storage: SecretStorage): void {
  const session = new MatchSession({
    matchId,
    seat: record,
    name: record ? loadName(storage) || null : null,
    url: wsUrl(),
    env: browserEnv,
    storage,
  });
  const game = new NetGame(session, () => void rematch(session, record, storage));
  const app = new BoardApp(root, game, { title: 'fairgammon', home: '/' });
  const banner = new ConnectionBanner(session);
  // A roll that failed verification stays called out for the rest of the page's life.
  const alarm = h('div', { class: 'banner alarm', role: 'alert', hidden: '' });
  const offer = rematchPanel(session, record, storage);
  root.prepend(banner.el, alarm, offer.el);
  const invite = invitePanel(matchId, record);
  app.overlay.append(invite.el);
  const info = matchPanel(session, matchId, record);
  app.sideLinks.append(info.el);
  // Against the computer: achievements (the summary says whether the opponent is one).
  void followComputerMatch(() => getMatch(matchId), game, () => app.undoCount, app.sideExtra);
  // Bot accounts (outside engines) get a BOT tag on their bar.
  void getMatch(matchId)
    .then((s) => {
      if (s.bot_accounts?.some(Boolean)) app.markBots(s.bot_accounts);
    })
    .catch(() => undefined);
  // A signed-in viewer reports a player of the match, or a line of the chat (docs/moderation.md).
  const reporting: { line: ((line: ChatLine) => void) | null } = { line: null };
  const chat = chatPanel(session, storage, () => loadName(storage) || null, (n) => saveName(storage, n), reporting);
  // Against the computer a player has nobody to talk to: no chat (spectators keep theirs).
  const chatBox = h('div', { class: 'chat-box' }, chat.el);
  app.sideExtra.prepend(chatBox);
  const reports = h('div', { class: 'row report-row', hidden: '' });
  app.sideExtra.append(reports);
  void account().then(async (me) => {
    if (!me) return;
    reporting.line = (line) => document.body.append(reportDialog({ name: line.name, match: matchId, room: line.room, line: line.n }, line.text));
    chat.refresh();
    const summary = await getMatch(matchId).catch(() => null);
    const others = (summary?.names ?? []).filter((n, i): n is string => n !== null && summary?.accounts?.[i] === true && n.toLowerCase() !== me.username.toLowerCase());
    reports.replaceChildren(...others.map((n) => reportButton({ name: n, match: matchId }, t('report.title', { name: n }))));
    reports.hidden = others.length === 0;
  });
  const moves = liveRecord(session, matchId);
  app.sideMain.append(moves.el);
  void attachBotPanel(app, session, matchId, record).then((level) => {
    if (level !== null && record !== null) chatBox.remove();
  });
  const update = () => {
    const tr = session.tracker;
    invite.el.hidden = !(tr.clock.phase === 'waiting' && tr.over === null && tr.version > 0);
    const bad = [...session.checks].find(([, c]) => c.check === 'alarm');
    alarm.hidden = bad === undefined;
    if (bad) {
      const [key, verdict] = bad;
      alarm.textContent = t('match.diceAlarm', { game: key.split(':')[0]!, why: verdict.why });
    }
    const [n0, n1] = tr.names;
    document.title = n0 && n1 ? `${t('common.versus', { a: n0, b: n1 })} · fairgammon` : n0 || n1 ? `${n0 || n1} · fairgammon` : 'fairgammon';
    banner.render();
    offer.render();
    chat.render();
    moves.render();
    info.render();
  };
  // The panels show the session as it is now, so a burst of frames (a replay of a long match
  // arrives as one frame per event) is drawn once after it, not once per frame.
  let queued = false;
  session.subscribe(() => {
    if (queued) return;
    queued = true;
    setTimeout(() => {
      queued = false;
      update();
    }, 0);
  });
  setInterval(() => banner.render(), 500);
  addEventListener('online', () => session.connection.retryNow());
  session.start();
  update();
  // For tests and the curious: the live objects.
  Object.assign(window, { fairgammon: { session, game, app } });
}

/** What the creator sees until the opponent joins: the links to share. */
function invitePanel(matchId: string, record: SeatRecord | null): { el: HTMLElement } {
  const watch = spectatorLink(matchId, record);
  const title = record ? t('match.waitingOpponent') : t('match.waitingSecond');
  const kids: Node[] = [h('div', { class: 'spinner', 'aria-hidden': 'true' }), h('h2', { text: title })];
  if (record?.seat === 0 && record.rematchOf) {
    kids.push(h('p', { class: 'sub rematch-wait', text: t('match.rematchWait') }));
    const back = h('a', { href: `/m/${record.rematchOf}`, text: t('match.backToLast') });
    kids.push(h('p', { class: 'links' }, back));
  } else if (record?.seat === 0 && record.invite) {
    kids.push(
      h('p', { class: 'sub', text: t('match.sendInvite') }),
      linkField(t('match.inviteLink'), record.invite, 'invitelink'),
    );
  } else if (record?.seat === 0) {
    kids.push(h('p', { class: 'sub', text: t('match.listed') }));
  } else {
    kids.push(h('p', { class: 'sub', text: t('match.startsWhenSecond') }));
  }
  kids.push(linkField(t('match.spectatorLink'), watch, 'watchlink'));
  return { el: h('section', { class: 'invite', role: 'dialog', 'aria-label': t('match.invite'), hidden: '' }, ...kids) };
}

/** The side panel of a network match: links to share and export, and leaving (always in view
 * while the match is played; gone once it is over). */
function matchPanel(session: MatchSession, matchId: string, record: SeatRecord | null): { el: HTMLElement; render: () => void } {
  const box = h('section', { class: 'matchinfo-panel', 'aria-label': t('match.panel') });
  box.append(
    linkField(t('match.spectatorLink'), spectatorLink(matchId, record), 'watchlink'),
    h(
      'p',
      { class: 'links' },
      h('a', { href: exportPaths.verify(matchId), text: t('match.verifyDice') }),
      h('a', { href: exportPaths.matchTranscript(matchId), text: t('match.transcripts') }),
      h('a', { href: exportPaths.mat(matchId), text: t('match.matFile') }),
      h('a', { href: '/rules', text: t('nav.howToPlay') }),
    ),
  );
  if (session.seat !== null && record) {
    // Behind a click: whoever holds this link plays the seat.
    const more = h('details', { class: 'seat-move' }, h('summary', { text: t('match.otherDevice') }));
    more.addEventListener('toggle', () => {
      if (!more.open || more.querySelector('.seatlink')) return;
      more.append(
        h('p', { class: 'sub', text: t('match.otherDeviceText') }),
        linkField(t('match.seatLink'), seatLink(location.origin, matchId, record), 'seatlink'),
      );
    });
    box.append(more);
  }
  const leave = button(t('match.leave'), 'btn ghost leave');
  leave.addEventListener('click', () => {
    if (confirm(t('match.leaveConfirm'))) void session.leave();
  });
  if (session.seat !== null) box.append(leave);
  const render = () => {
    leave.hidden = session.tracker.over !== null;
  };
  render();
  return { el: box, render };
}

/**
 * Offer a rematch (the same settings; the server tells the opponent and the spectators) and go
 * to it. If the opponent offered one first, this accepts it.
 */
async function rematch(session: MatchSession, record: SeatRecord | null, storage: SecretStorage): Promise<void> {
  if (!record) return;
  try {
    const r = await offerRematch(session.matchId, record.token);
    saveSeat(storage, r.match, { seat: r.seat, token: r.token, watch: r.watch, rematchOf: r.rematch_of });
    location.assign(`/m/${r.match}`);
  } catch (err) {
    session.say(t('match.noRematch', { why: errorWords(err) }), true);
  }
}

/**
 * The rematch offered after the match, from the event or the snapshot: the opponent may accept
 * it or decline it (the server ends the rematch, and the offerer waiting there is told), a
 * spectator may watch it, the player who offered it may go to it.
 */
function rematchPanel(session: MatchSession, record: SeatRecord | null, storage: SecretStorage): { el: HTMLElement; render: () => void } {
  const el = h('section', { class: 'banner rematch-offer', role: 'status', 'aria-label': t('result.rematch'), hidden: '' });
  let shown = '';
  const render = () => {
    const offer = session.tracker.rematch;
    if (offer === null || rematchDismissed(storage, offer.match)) {
      el.hidden = true;
      return;
    }
    const key = `${offer.match}:${offer.by}`;
    el.hidden = false;
    if (key === shown) return;
    shown = key;
    // An offer whose match has ended meanwhile (declined, or left by the player who offered
    // it) is of no more use: drop it quietly.
    void getMatch(offer.match)
      .then((m) => {
        if (m.phase === 'over') {
          dismissRematch(storage, offer.match);
          render();
        }
      })
      .catch(() => undefined);
    const name = session.tracker.names[offer.by] ?? null;
    if (record && record.seat !== offer.by) {
      const accept = button(t('offer.accept'), 'btn primary accept-rematch');
      const decline = button(t('match.decline'), 'btn ghost decline-rematch');
      accept.addEventListener('click', async () => {
        accept.disabled = true;
        try {
          const joined = await acceptRematch(offer.match, record.token);
          saveSeat(storage, offer.match, { seat: 1, token: joined.token, watch: joined.watch, rematchOf: session.matchId });
          location.assign(`/m/${offer.match}`);
        } catch (err) {
          accept.disabled = false;
          session.say(t('match.acceptFailed', { why: errorWords(err) }), true);
        }
      });
      decline.addEventListener('click', async () => {
        dismissRematch(storage, offer.match);
        render();
        try {
          await declineRematch(offer.match, record.token);
        } catch (err) {
          session.say(t('match.declineFailed', { why: errorWords(err) }), true);
        }
      });
      el.replaceChildren(h('span', { class: 'offer-text', text: name === null ? t('match.opponentOffersRematch') : t('match.offersRematch', { name }) }), accept, decline);
    } else if (record) {
      el.replaceChildren(
        h('span', { class: 'offer-text', text: t('match.youOfferedRematch') }),
        h('a', { class: 'btn primary', href: `/m/${offer.match}`, text: t('match.goToRematch') }),
      );
    } else {
      el.replaceChildren(
        h('span', { class: 'offer-text', text: name === null ? t('match.opponentOfferedRematch') : t('match.offeredRematch', { name }) }),
        h('a', { class: 'btn primary watch-rematch', href: `/m/${offer.match}#watch`, text: t('match.watchRematch') }),
      );
    }
  };
  return { el, render };
}
