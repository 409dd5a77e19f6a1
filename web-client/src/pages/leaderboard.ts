/** The leaderboard at `/leaderboard`: the top rated players with enough experience. */

import { getLeaderboard } from '../net/accountApi';
import { h } from '../ui/dom';
import { accountBox, rating } from './account';
import { pageHeader } from './common';

export async function startLeaderboard(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = 'Leaderboard · fairgammon';
  try {
    const board = await getLeaderboard();
    const rows = board.players.map((p) =>
      h(
        'tr',
        {},
        h('td', { class: 'rank', text: String(p.rank) }),
        h('td', {}, h('a', { href: `/u/${encodeURIComponent(p.username)}`, text: p.username })),
        h('td', { class: 'num', text: rating(p.rating) }),
        h('td', { class: 'num', text: String(p.experience) }),
        h('td', { class: 'num', text: String(p.matches) }),
      ),
    );
    main.replaceChildren(
      h(
        'section',
        { class: 'card leaderboard' },
        h('h1', { text: 'Leaderboard' }),
        h('p', { class: 'sub', text: `Rated players with at least ${board.min_experience} point${board.min_experience === 1 ? '' : 's'} of experience (the total length of their rated matches).` }),
        rows.length
          ? h('table', { class: 'history leaders' }, h('thead', {}, h('tr', {}, ...['#', 'Player', 'Rating', 'Experience', 'Matches'].map((t) => h('th', { text: t })))), h('tbody', {}, ...rows))
          : h('p', { class: 'sub', text: 'Nobody yet: play rated matches to appear here.' }),
      ),
    );
  } catch (err) {
    main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: 'Leaderboard' }), h('p', { text: err instanceof Error ? err.message : String(err) })));
  }
}
