/**
 * `/notices`: the signed-in player's notifications, newest first, each a line of the server's
 * plain text with its time and a link to what it is about; opening the page marks them read,
 * and a notice arriving while it is open is added at the top (and read).
 */

import { t } from '../i18n';
import { type Notice, getNotices, markRead } from '../net/friendsApi';
import { noticeFeed } from '../net/notices';
import { errorWords } from '../net/refusals';
import { h } from '../ui/dom';
import { accountBox } from './account';
import { noticeLink } from './bell';
import { pageHeader } from './common';
import { myNav, needAccount } from './mine';

const WHEN: Intl.DateTimeFormatOptions = { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' };

function row(n: Notice, fresh: boolean): HTMLElement {
  const link = noticeLink(n);
  return h(
    'li',
    { class: `notice notice-${n.kind}${fresh ? ' unread' : ''}`, 'data-id': String(n.id) },
    h('span', { class: 'minfo' }, h('span', { class: 'notice-text', text: n.text }), h('span', { class: 'sub', text: new Date(n.at).toLocaleString(undefined, WHEN) })),
    link ? h('a', { class: 'btn small', href: link, text: t('games.open') }) : h('span'),
  );
}

export async function startNoticesPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page', 'mine-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = `${t('notices.title')} · fairgammon`;
  if (!(await needAccount(main, t('notices.title')))) return;
  const list = h('ul', { class: 'matchlist notices', 'aria-live': 'polite' });
  main.replaceChildren(myNav('/notices'), h('section', { class: 'card notices-card' }, h('h1', { text: t('notices.title') }), list));
  const feed = noticeFeed();
  try {
    const got = await getNotices();
    list.replaceChildren(...(got.notices.length ? got.notices.map((n) => row(n, !n.read)) : [h('li', { class: 'empty', text: t('notices.empty') })]));
    if (got.unread) feed.setUnread((await markRead(got.notices[0]!.id)).unread);
  } catch (err) {
    list.replaceChildren(h('li', { class: 'empty', text: errorWords(err) }));
    return;
  }
  feed.listen(({ notice }) => {
    if (!notice) return;
    list.querySelector('li.empty')?.remove();
    list.prepend(row(notice, true));
    void markRead(notice.id).then((r) => feed.setUnread(r.unread)).catch(() => undefined);
  });
}
