/**
 * What the signed-in player's own pages share: the row of links between them (notifications,
 * friends and challenges, my games), and the card a signed-out visitor gets instead.
 */

import { t } from '../i18n';
import { account, signInDialog } from './account';
import type { AccountInfo } from '../net/accountApi';
import { button, h } from '../ui/dom';

const PAGES = [
  ['/notices', 'notices.title'],
  ['/friends', 'nav.friends'],
  ['/games', 'nav.games'],
] as const;

/** The links between the player's own pages, the current one marked. */
export function myNav(current: string): HTMLElement {
  return h(
    'nav',
    { class: 'my-nav', 'aria-label': t('mine.nav') },
    ...PAGES.map(([path, key]) => h('a', path === current ? { href: path, text: t(key), 'aria-current': 'page' } : { href: path, text: t(key) })),
  );
}

/** The signed-in account, or null after showing a "sign in first" card in `main`. */
export async function needAccount(main: HTMLElement, what: string): Promise<AccountInfo | null> {
  const me = await account();
  if (me) return me;
  const open = button(t('account.signIn'), 'btn primary signin-here');
  open.addEventListener('click', () => document.body.append(signInDialog(() => location.reload())));
  main.replaceChildren(h('section', { class: 'card' }, h('h1', { text: what }), h('p', { class: 'sub', text: t('mine.signInFirst') }), open));
  return null;
}
