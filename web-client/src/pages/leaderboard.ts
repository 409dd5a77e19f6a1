/** The leaderboard at `/leaderboard`: the top rated players with enough experience, and the
 * Top Gamer boards of this week and this month (docs/accounts.md); `/leaderboard?pool=bots`:
 * the bot accounts' own board (they are rated apart: docs/accounts.md, "Bot accounts"). */

import { getLeaderboard, getTopGamers, type TopGamer } from '../net/accountApi';
import { withBotTag } from '../ui/botTag';
import { h } from '../ui/dom';
import { accountBox, rating } from './account';
import { pageHeader } from './common';

export async function startLeaderboard(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = 'Leaderboard · fairgammon';
  const bots = new URLSearchParams(location.search).get('pool') === 'bots';
  const tabs = h(
    'p',
    { class: 'pool-tabs' },
    h('a', { href: '/leaderboard', text: 'People', ...(bots ? {} : { 'aria-current': 'page' }) }),
    ' · ',
    h('a', { href: '/leaderboard?pool=bots', text: 'Bots', ...(bots ? { 'aria-current': 'page' } : {}) }),
  );
  try {
    const [board, week, month] = await Promise.all([getLeaderboard(bots ? 'bots' : 'humans'), getTopGamers('week'), getTopGamers('month')]);
    const rows = board.players.map((p) =>
      h(
        'tr',
        {},
        h('td', { class: 'rank', text: String(p.rank) }),
        h('td', {}, ...withBotTag(h('a', { href: `/u/${encodeURIComponent(p.username)}`, text: p.username }), p.bot)),
        h('td', { class: 'num', text: rating(p.rating) }),
        h('td', { class: 'num', text: String(p.experience) }),
        h('td', { class: 'num', text: String(p.matches) }),
      ),
    );
    main.replaceChildren(
      h(
        'section',
        { class: 'card leaderboard' },
        h('h1', { text: bots ? 'Leaderboard · bots' : 'Leaderboard' }),
        tabs,
        h('p', { class: 'sub', text: `${bots ? 'Bot accounts, rated among themselves,' : 'Rated players'} with at least ${board.min_experience} point${board.min_experience === 1 ? '' : 's'} of experience (the total length of their rated matches).` }),
        rows.length
          ? h('div', { class: 'table-scroll' }, h('table', { class: 'history leaders' }, h('thead', {}, h('tr', {}, ...['#', 'Player', 'Rating', 'Experience', 'Matches'].map((t) => h('th', { text: t })))), h('tbody', {}, ...rows)))
          : h('p', { class: 'sub', text: 'Nobody yet: play rated matches to appear here.' }),
      ),
      ...(bots
        ? []
        : [topGamers(`Top Gamer · this week (${week.period})`, 'week', week.players), topGamers(`Top Gamer · this month (${month.period})`, 'month', month.players)]),
    );
  } catch (err) {
    main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: 'Leaderboard' }), h('p', { text: err instanceof Error ? err.message : String(err) })));
  }
}

function signed(n: number): string {
  return `${n > 0 ? '+' : ''}${n.toFixed(2)}`;
}

/** A Top Gamer board: rating gained in rated matches plus tournament points, from the first rated match. */
function topGamers(title: string, kind: string, players: readonly TopGamer[]): HTMLElement {
  const rows = players.map((p) =>
    h(
      'tr',
      {},
      h('td', { class: 'rank', text: String(p.rank) }),
      h('td', {}, h('a', { href: `/u/${encodeURIComponent(p.username)}`, text: p.username })),
      h('td', { class: 'num', text: signed(p.score) }),
      h('td', { class: 'num', text: signed(p.rating_change) }),
      h('td', { class: 'num', text: String(p.tournament_points) }),
      h('td', { class: 'num', text: String(p.matches) }),
    ),
  );
  return h(
    'section',
    { class: `card leaderboard top-gamers top-${kind}` },
    h('h2', { text: title }),
    h('p', { class: 'sub', text: 'Score: rating gained in rated matches plus tournament points in the period. Everyone is here from their first rated match.' }),
    rows.length
      ? h('div', { class: 'table-scroll' }, h('table', { class: 'history top' }, h('thead', {}, h('tr', {}, ...['#', 'Player', 'Score', 'Rating', 'Points', 'Matches'].map((t) => h('th', { text: t })))), h('tbody', {}, ...rows)))
      : h('p', { class: 'sub', text: 'Nobody yet this period: play a rated match to appear here.' }),
  );
}
