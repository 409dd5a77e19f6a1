/**
 * A player's page at `/u/<name>`: rating and experience, the rating chart, and the match
 * history (paged), each match linking to its replay and analysis. The player's own page also
 * lists their private matches and offers to delete the account.
 */

import { formatDate, ltr, t } from '../i18n';
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
import { type VariantName, isVariantName } from '../engine/variants';
import { variantName } from '../ui/variantNames';

const what = (e: HistoryEntry): string => {
  const words = t('profile.what', { mode: e.mode, length: e.length, private: e.private ? 'yes' : 'no' });
  return e.variant && e.variant !== 'backgammon' && isVariantName(e.variant) ? t('profile.whatVariant', { variant: variantName(e.variant), what: words }) : words;
};

/** The ratings kept apart in each variant the player played rated (backgammon's is above). */
function variantRatings(p: Profile): HTMLElement | null {
  const rows = Object.entries(p.variants ?? {}).filter(([name]) => isVariantName(name));
  if (!rows.length) return null;
  return h(
    'section',
    { class: 'card variant-ratings' },
    h('h2', { text: t('profile.variantsTitle') }),
    h(
      'table',
      { class: 'history' },
      h('thead', {}, h('tr', {}, ...[t('profile.variant'), t('leaders.rating'), t('profile.experience')].map((th) => h('th', { text: th })))),
      h('tbody', {}, ...rows.map(([name, r]) => h('tr', { 'data-variant': name }, h('td', { text: variantName(name as VariantName) }), h('td', { class: 'rating-value', text: rating(r.rating) }), h('td', { text: String(r.experience) })))),
    ),
  );
}

const SHORT_DATE: Intl.DateTimeFormatOptions = { year: '2-digit', month: 'numeric', day: 'numeric' };

function historyRow(e: HistoryEntry): HTMLElement {
  // The match score never passes the length (a gammon at 2 in a match to 1 won it 1–0).
  const shown = matchScore({ kind: MATCH_KIND[e.mode], length: e.length, jacoby: false }, e.score);
  const change = e.change === null ? '' : `${e.change > 0 ? '+' : ''}${e.change.toFixed(2)}`;
  const opponent = e.opponent_account ? h('span', {}, ...withBotTag(h('a', { href: `/u/${encodeURIComponent(e.opponent)}`, text: e.opponent }), e.opponent_bot)) : h('span', { text: t('chat.guestName', { name: e.opponent }) });
  return h(
    'tr',
    { class: e.won ? 'won' : e.won === false ? 'lost' : '' },
    // A short date (two-digit year): the row fits a 360 px phone.
    h('td', { class: 'date', text: formatDate(e.at, SHORT_DATE) }),
    h('td', {}, opponent),
    h('td', { text: what(e) }),
    h('td', { class: 'score', text: t('profile.result', { won: e.won === null ? 'none' : e.won ? 'yes' : 'no', score: ltr(`${shown[0]}–${shown[1]}`) }) }),
    h('td', { class: `change ${e.change === null ? '' : e.change >= 0 ? 'up' : 'down'}`, text: e.rated ? change : t('profile.unrated') }),
    h('td', {}, h('a', { href: e.link, text: t('profile.replay') })),
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
      const text = err instanceof LobbyError && err.status === 404 ? t('profile.noPlayer') : errorWords(err);
      main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: name }), h('p', { text })));
      return;
    }
    document.title = `${p.username} · fairgammon`;
    const stats = h(
      'div',
      { class: 'stats' },
      h('div', {}, h('span', { class: 'big rating-value', text: rating(p.rating) }), h('span', { class: 'sub', text: t('profile.rating') })),
      h('div', {}, h('span', { class: 'big', text: String(p.experience) }), h('span', { class: 'sub', text: t('profile.experience') })),
      h('div', {}, h('span', { class: 'big', text: String(p.matches) }), h('span', { class: 'sub', text: t('profile.matches') })),
      h('div', {}, h('span', { class: 'big', text: String(p.wins) }), h('span', { class: 'sub', text: t('profile.won') })),
    );
    const chart = p.chart.length
      ? ratingChart(p.chart)
      : h('p', { class: 'sub empty-chart', text: t('profile.noChart') });
    const rows = p.history.map(historyRow);
    const table = rows.length
      ? h(
          'table',
          { class: 'history' },
          h('thead', {}, h('tr', {}, ...[t('profile.date'), t('seek.opponent'), t('lobby.modeMatch'), t('analysis.result'), t('leaders.rating'), ''].map((th) => h('th', { text: th })))),
          h('tbody', {}, ...rows),
        )
      : h('p', { class: 'sub', text: t('profile.noMatches') });
    const pager = h('p', { class: 'pager' });
    if (p.pages > 1) {
      const prev = button(t('profile.newer'), 'btn ghost small newer');
      const next = button(t('profile.older'), 'btn ghost small older');
      prev.disabled = p.page <= 1;
      next.disabled = p.page >= p.pages;
      prev.addEventListener('click', () => void go(page - 1));
      next.addEventListener('click', () => void go(page + 1));
      pager.append(prev, h('span', { class: 'sub', text: ` ${t('profile.page', { page: p.page, pages: p.pages })} ` }), next);
    }
    const kids: Node[] = [
      h('section', { class: 'card profile-head' }, h('h1', {}, ...withBotTag(document.createTextNode(p.username), p.bot)), await peopleActions(p.username, p.own), stats),
      h('section', { class: 'card chart-card' }, h('h2', { text: t('leaders.rating') }), chart),
      h('section', { class: 'card history-card' }, h('h2', { text: t('leaders.matches') }), table, pager),
    ];
    const variants = variantRatings(p);
    if (variants) kids.splice(2, 0, variants);
    const placed = p.tournaments ?? [];
    if (placed.length) {
      kids.push(
        h(
          'section',
          { class: 'card tournament-results' },
          h('h2', { text: t('nav.tournaments') }),
          h(
            'ul',
            { class: 'matchlist' },
            ...placed.map((r) =>
              h('li', {}, h('span', { class: 'minfo' }, h('a', { href: `/t/${r.tournament}`, text: r.name }), h('span', { class: 'sub', text: t('profile.placed', { winner: r.winner ? 'yes' : 'no', rank: r.rank, players: r.players, points: r.points, won: r.won, played: r.played }) }))),
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
  const toggle = button(following ? t('profile.unfollow') : t('profile.follow'), `btn small ${following ? 'ghost unfollow' : 'primary follow'}`);
  toggle.addEventListener('click', async () => {
    toggle.disabled = true;
    error.textContent = '';
    try {
      const now = following ? await unfollow(name) : await follow(name);
      following = now.following.some((f) => f.name.toLowerCase() === name.toLowerCase());
      toggle.querySelector('.lbl')!.textContent = following ? t('profile.unfollow') : t('profile.follow');
      toggle.className = `btn small ${following ? 'ghost unfollow' : 'primary follow'}`;
    } catch (err) {
      error.textContent = errorWords(err);
    } finally {
      toggle.disabled = false;
    }
  });
  const dare = button(t('profile.challenge'), 'btn small challenge');
  dare.addEventListener('click', () => document.body.append(challengeDialog(name, me.username)));
  const shun = button(t('profile.block'), 'btn ghost small block');
  shun.addEventListener('click', async () => {
    if (!confirm(t('profile.blockConfirm', { name }))) return;
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
  const del = button(t('profile.delete'), 'btn ghost delete-account');
  const error = h('p', { class: 'form-error', role: 'alert' });
  del.addEventListener('click', async () => {
    if (!confirm(t('profile.deleteConfirm', { name: username }))) return;
    try {
      await deleteAccount();
      location.assign('/');
    } catch (err) {
      error.textContent = err instanceof Error ? err.message : String(err);
    }
  });
  return h('section', { class: 'card danger' }, h('h2', { text: t('profile.account') }), h('p', { class: 'sub', text: t('profile.deleteAbout') }), error, del);
}
