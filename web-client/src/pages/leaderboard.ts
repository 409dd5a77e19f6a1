/** The leaderboard at `/leaderboard`: the top rated players with enough experience, and the
 * Top Gamer boards of this week and this month (docs/accounts.md); `/leaderboard?pool=bots`:
 * the bot accounts' own board (they are rated apart: docs/accounts.md, "Bot accounts"). */

import { ltr, t } from '../i18n';
import { errorWords } from '../net/refusals';
import { getLeaderboard, getTopGamers, type TopGamer } from '../net/accountApi';
import { withBotTag } from '../ui/botTag';
import { h } from '../ui/dom';
import { accountBox, rating } from './account';
import { pageHeader } from './common';

export async function startLeaderboard(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = `${t('nav.leaderboard')} · fairgammon`;
  const bots = new URLSearchParams(location.search).get('pool') === 'bots';
  const tabs = h(
    'p',
    { class: 'pool-tabs' },
    h('a', { href: '/leaderboard', text: t('leaders.people'), ...(bots ? {} : { 'aria-current': 'page' }) }),
    ' · ',
    h('a', { href: '/leaderboard?pool=bots', text: t('leaders.bots'), ...(bots ? { 'aria-current': 'page' } : {}) }),
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
        h('h1', { text: bots ? t('leaders.titleBots') : t('nav.leaderboard') }),
        tabs,
        h('p', { class: 'sub', text: t('leaders.who', { bots: bots ? 'yes' : 'no', n: board.min_experience }) }),
        rows.length
          ? h('div', { class: 'table-scroll' }, h('table', { class: 'history leaders' }, h('thead', {}, h('tr', {}, ...['#', t('leaders.player'), t('leaders.rating'), t('leaders.experience'), t('leaders.matches')].map((th) => h('th', { text: th })))), h('tbody', {}, ...rows)))
          : h('p', { class: 'sub', text: t('leaders.nobody') }),
      ),
      ...(bots
        ? []
        : [topGamers(t('leaders.topWeek', { period: ltr(week.period) }), 'week', week.players), topGamers(t('leaders.topMonth', { period: ltr(month.period) }), 'month', month.players)]),
    );
  } catch (err) {
    main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: t('nav.leaderboard') }), h('p', { text: errorWords(err) })));
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
    h('p', { class: 'sub', text: t('leaders.topAbout') }),
    rows.length
      ? h('div', { class: 'table-scroll' }, h('table', { class: 'history top' }, h('thead', {}, h('tr', {}, ...['#', t('leaders.player'), t('leaders.score'), t('leaders.rating'), t('leaders.points'), t('leaders.matches')].map((th) => h('th', { text: th })))), h('tbody', {}, ...rows)))
      : h('p', { class: 'sub', text: t('leaders.nobodyPeriod') }),
  );
}
