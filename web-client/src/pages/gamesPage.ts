/**
 * `/games`: every live game of the signed-in player (docs/correspondence.md, "Playing from
 * anywhere"), those waiting for the player first, nearest deadline first, as the server sorts
 * them: the opponent, the terms, the score, whose turn and the time left, and a link to play.
 * Opening a game on another device works: the match page asks the server for the account's
 * seat. Refreshed when a turn notice arrives, and every half minute.
 */

import { around, t } from '../i18n';
import { type MyGame, getMyGames } from '../net/friendsApi';
import { noticeFeed } from '../net/notices';
import { errorWords } from '../net/refusals';
import { h } from '../ui/dom';
import { accountBox } from './account';
import { formatClock } from '../ui/format';
import { describeOptions, pageHeader } from './common';
import { myNav, needAccount } from './mine';

const REFRESH_MS = 30_000;

/** The words of a game's state for its player, e.g. "Your turn · 1 d 4 h left". */
export function turnWords(g: MyGame): string {
  if (g.phase === 'waiting') return t('games.waiting');
  const args = { left: g.time_left === null ? 'none' : formatClock(g.time_left), name: g.opponent ?? '', known: g.opponent ? 'yes' : 'no' };
  return g.your_turn ? t('games.yourTurn', args) : t('games.theirTurn', args);
}

function row(g: MyGame): HTMLElement {
  const score = g.mode === 'single_game' ? '' : ` · ${g.score[0]}–${g.score[1]}`;
  return h(
    'li',
    { 'data-match': g.match, class: g.your_turn ? 'your-turn' : '' },
    h('span', { class: 'minfo' }, h('strong', { text: t('games.versus', { name: g.opponent ?? '?' }) }), h('span', { class: 'sub', text: describeOptions(g.mode, g.length, g.clock, 0, g.days) + score }), h('span', { class: 'turn', text: turnWords(g) })),
    h('a', { class: `btn small ${g.your_turn ? 'primary' : ''} open-game`, href: `/m/${g.match}`, text: g.your_turn ? t('games.play') : t('games.open') }),
  );
}

export async function startGamesPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page', 'mine-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = `${t('nav.games')} · fairgammon`;
  if (!(await needAccount(main, t('nav.games')))) return;
  const list = h('ul', { class: 'matchlist my-games', 'aria-live': 'polite' });
  const away = around('games.away', 'link');
  const sub = h('p', { class: 'sub games-summary' });
  main.replaceChildren(
    myNav('/games'),
    h('section', { class: 'card games-card' }, h('h1', { text: t('nav.games') }), sub, list, h('p', { class: 'sub' }, away[0], h('a', { href: '/friends#vacation', text: t('games.vacation') }), away[1])),
  );
  const none = around('games.none', 'link');
  const show = async () => {
    try {
      const got = await getMyGames();
      document.title = `${got.your_turn ? `(${got.your_turn}) ` : ''}${t('nav.games')} · fairgammon`;
      sub.textContent = got.count
        ? t('games.summary', { turn: got.your_turn, count: got.count, correspondence: got.correspondence, limit: got.limit })
        : '';
      list.replaceChildren(...(got.games.length ? got.games.map(row) : [h('li', { class: 'empty' }, none[0], h('a', { href: '/', text: t('games.startOne') }), none[1])]));
    } catch (err) {
      list.replaceChildren(h('li', { class: 'empty', text: errorWords(err) }));
    }
  };
  await show();
  noticeFeed().listen(({ notice }) => {
    if (notice) void show();
  });
  setInterval(() => {
    if (document.visibilityState === 'visible') void show();
  }, REFRESH_MS);
}
