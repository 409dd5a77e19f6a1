/**
 * A player's page at `/u/<name>`: rating and experience, the rating chart, and the match
 * history (paged), each match linking to its replay and analysis. The player's own page also
 * lists their private matches and offers to delete the account.
 */

import { type HistoryEntry, type Profile, deleteAccount, getProfile } from '../net/accountApi';
import { LobbyError } from '../net/lobbyApi';
import { errorWords } from '../net/refusals';
import { MATCH_KIND } from '../net/tracker';
import { matchScore } from '../engine/matchRules';
import { button, h } from '../ui/dom';
import { withBotTag } from '../ui/botTag';
import { account, accountBox, rating } from './account';
import { challengeDialog } from './challenge';
import { myNav } from './mine';
import { block, follow, getFriends, unfollow } from '../net/friendsApi';
import { pageHeader } from './common';
import { ratingChart } from './ratingChart';
import { reportButton } from './report';
import { skillCards } from './skillPanel';

const what = (e: HistoryEntry): string => (e.mode === 'match' ? `${e.length}-point match` : e.mode === 'money' ? 'Money session' : 'Single game');

const SHORT_DATE: Intl.DateTimeFormatOptions = { year: '2-digit', month: 'numeric', day: 'numeric' };

function historyRow(e: HistoryEntry): HTMLElement {
  const result = e.won === null ? 'No result' : e.won ? 'Won' : 'Lost';
  // The match score never passes the length (a gammon at 2 in a match to 1 won it 1–0).
  const shown = matchScore({ kind: MATCH_KIND[e.mode], length: e.length, jacoby: false }, e.score);
  const change = e.change === null ? '' : `${e.change > 0 ? '+' : ''}${e.change.toFixed(2)}`;
  const opponent = e.opponent_account ? h('span', {}, ...withBotTag(h('a', { href: `/u/${encodeURIComponent(e.opponent)}`, text: e.opponent }), e.opponent_bot)) : h('span', { text: `${e.opponent} (guest)` });
  return h(
    'tr',
    { class: e.won ? 'won' : e.won === false ? 'lost' : '' },
    // A short date (two-digit year): the row fits a 360 px phone.
    h('td', { class: 'date', text: new Date(e.at).toLocaleDateString(undefined, SHORT_DATE) }),
    h('td', {}, opponent),
    h('td', { text: what(e) + (e.private ? ' · private' : '') }),
    h('td', { class: 'score', text: `${result} ${shown[0]}–${shown[1]}` }),
    h('td', { class: `change ${e.change === null ? '' : e.change >= 0 ? 'up' : 'down'}`, text: e.rated ? change : 'unrated' }),
    h('td', {}, h('a', { href: e.link, text: 'Replay' })),
  );
}

export async function startProfile(root: HTMLElement, name: string): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  let page = Number(new URLSearchParams(location.search).get('page') ?? '1') || 1;
  const show = async () => {
    let p: Profile;
    try {
      p = await getProfile(name, page);
    } catch (err) {
      const text = err instanceof LobbyError && err.status === 404 ? 'No player of that name.' : errorWords(err);
      main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: name }), h('p', { text })));
      return;
    }
    document.title = `${p.username} · fairgammon`;
    const stats = h(
      'div',
      { class: 'stats' },
      h('div', {}, h('span', { class: 'big rating-value', text: rating(p.rating) }), h('span', { class: 'sub', text: 'rating' })),
      h('div', {}, h('span', { class: 'big', text: String(p.experience) }), h('span', { class: 'sub', text: 'experience' })),
      h('div', {}, h('span', { class: 'big', text: String(p.matches) }), h('span', { class: 'sub', text: 'matches' })),
      h('div', {}, h('span', { class: 'big', text: String(p.wins) }), h('span', { class: 'sub', text: 'won' })),
    );
    const chart = p.chart.length
      ? ratingChart(p.chart)
      : h('p', { class: 'sub empty-chart', text: 'No rated match yet: the chart starts with the first one.' });
    const rows = p.history.map(historyRow);
    const table = rows.length
      ? h(
          'table',
          { class: 'history' },
          h('thead', {}, h('tr', {}, ...['Date', 'Opponent', 'Match', 'Result', 'Rating', ''].map((t) => h('th', { text: t })))),
          h('tbody', {}, ...rows),
        )
      : h('p', { class: 'sub', text: 'No matches yet.' });
    const pager = h('p', { class: 'pager' });
    if (p.pages > 1) {
      const prev = button('Newer', 'btn ghost small newer');
      const next = button('Older', 'btn ghost small older');
      prev.disabled = p.page <= 1;
      next.disabled = p.page >= p.pages;
      prev.addEventListener('click', () => void go(page - 1));
      next.addEventListener('click', () => void go(page + 1));
      pager.append(prev, h('span', { class: 'sub', text: ` Page ${p.page} of ${p.pages} ` }), next);
    }
    const kids: Node[] = [
      h('section', { class: 'card profile-head' }, h('h1', {}, ...withBotTag(document.createTextNode(p.username), p.bot)), await peopleActions(p.username, p.own), stats),
      h('section', { class: 'card chart-card' }, h('h2', { text: 'Rating' }), chart),
      h('section', { class: 'card history-card' }, h('h2', { text: 'Matches' }), table, pager),
    ];
    const placed = p.tournaments ?? [];
    if (placed.length) {
      kids.push(
        h(
          'section',
          { class: 'card tournament-results' },
          h('h2', { text: 'Tournaments' }),
          h(
            'ul',
            { class: 'matchlist' },
            ...placed.map((t) =>
              h('li', {}, h('span', { class: 'minfo' }, h('a', { href: `/t/${t.tournament}`, text: t.name }), h('span', { class: 'sub', text: `${t.winner ? 'Won · ' : ''}${t.rank} of ${t.players} · ${t.points} point${t.points === 1 ? '' : 's'} · ${t.won}/${t.played} won` }))),
            ),
          ),
        ),
      );
    }
    kids.splice(2, 0, ...(await skillCards(p.username, p.own)));
    if (p.own) {
      kids.unshift(myNav(''));
      kids.push(deleteCard(p.username));
    }
    main.replaceChildren(...kids);
  };
  const go = async (n: number) => {
    page = n;
    history.replaceState(null, '', n > 1 ? `?page=${n}` : location.pathname);
    await show();
  };
  await show();
}

/** On another player's page, for a signed-in visitor: Follow (or Unfollow), Challenge, Block. */
async function peopleActions(name: string, own: boolean): Promise<HTMLElement> {
  const box = h('div', { class: 'row profile-actions' });
  const me = own ? null : await account();
  if (!me) return box;
  const error = h('p', { class: 'form-error', role: 'alert' });
  let following = false;
  try {
    following = (await getFriends()).following.some((f) => f.name.toLowerCase() === name.toLowerCase());
  } catch {
    // shown as not followed; the button's answer tells
  }
  const toggle = button(following ? 'Unfollow' : 'Follow', `btn small ${following ? 'ghost unfollow' : 'primary follow'}`);
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    error.textContent = '';
    try {
      const now = following ? await unfollow(name) : await follow(name);
      following = now.following.some((f) => f.name.toLowerCase() === name.toLowerCase());
      toggle.querySelector('.lbl')!.textContent = following ? 'Unfollow' : 'Follow';
      toggle.className = `btn small ${following ? 'ghost unfollow' : 'primary follow'}`;
    } catch (err) {
      error.textContent = errorWords(err);
    } finally {
      toggle.disabled = false;
    }
  });
  const dare = button('Challenge', 'btn small challenge');
  dare.addEventListener('click', () => document.body.append(challengeDialog(name, me.username)));
  const shun = button('Block', 'btn ghost small block');
  shun.addEventListener('click', async () => {
    if (!confirm(`Block ${name}? They can no longer follow or challenge you, and you stop following them.`)) return;
    try {
      await block(name);
      location.assign('/friends');
    } catch (err) {
      error.textContent = errorWords(err);
    }
  });
  box.append(toggle, dare, shun, reportButton({ name }), error);
  return box;
}

function deleteCard(username: string): HTMLElement {
  const del = button('Delete my account', 'btn ghost delete-account');
  const error = h('p', { class: 'form-error', role: 'alert' });
  del.addEventListener('click', async () => {
    if (!confirm(`Delete the account ${username}? Your rating and history are deleted for good.`)) return;
    try {
      await deleteAccount();
      location.assign('/');
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
    }
  });
  return h('section', { class: 'card danger' }, h('h2', { text: 'Account' }), h('p', { class: 'sub', text: 'Deleting removes your account, rating, history and every session.' }), error, del);
}
