/**
 * The notification bell of a signed-in player's page header: a link to `/notices` with the
 * unread count, kept live by the page's notices socket (net/notices.ts), and a toast for each
 * notice that arrives while the page is open (a challenge offers its answer at once). Every
 * notice's words are the server's plain text, set as text.
 */

import { t } from '../i18n';
import { type Notice, declineChallenge } from '../net/friendsApi';
import { type NoticeFeed, noticeFeed } from '../net/notices';
import { errorWords } from '../net/refusals';
import { button, h } from '../ui/dom';
import { acceptAndPlay } from './challenge';

const TOAST_MS = 12_000;

/** "3 unread notifications": the bell's label for screen readers. */
export const bellLabel = (n: number): string => (n ? t('notices.unread', { n }) : t('notices.title'));

export function bell(feed: NoticeFeed = noticeFeed()): HTMLElement {
  const count = h('span', { class: 'bell-count', hidden: '' });
  const link = h('a', { class: 'bell', href: '/notices', 'aria-label': bellLabel(0), title: t('notices.title') }, bellIcon(), count);
  const show = (n: number) => {
    count.hidden = n === 0;
    count.textContent = n > 99 ? '99+' : String(n);
    link.setAttribute('aria-label', bellLabel(n));
  };
  show(feed.unread);
  feed.listen(({ unread, notice }) => {
    show(unread);
    if (notice && location.pathname !== '/notices') toast(notice);
  });
  return link;
}

/** A notice's page as a link: a web address or a path of this site, never a script. */
export const noticeLink = (notice: Notice): string => (/^(https?:\/\/|\/(?!\/))/.test(notice.page) ? notice.page : '');

const SVG = 'http://www.w3.org/2000/svg';

/** A bell drawn as lines (no icon font: every device draws it the same). */
function bellIcon(): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  for (const [k, v] of Object.entries({ class: 'bell-icon', viewBox: '0 0 24 24', width: '22', height: '22', 'aria-hidden': 'true' })) svg.setAttribute(k, v);
  for (const d of ['M6 16V11a6 6 0 0 1 12 0v5l1.5 2h-15z', 'M10 20a2 2 0 0 0 4 0']) {
    const path = document.createElementNS(SVG, 'path');
    for (const [k, v] of Object.entries({ d, fill: 'none', stroke: 'currentColor', 'stroke-width': '1.8', 'stroke-linejoin': 'round', 'stroke-linecap': 'round' })) path.setAttribute(k, v);
    svg.append(path);
  }
  return svg;
}

function toastShelf(): HTMLElement {
  let shelf = document.querySelector<HTMLElement>('.note-toasts');
  if (!shelf) {
    shelf = h('div', { class: 'note-toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(shelf);
  }
  return shelf;
}

/** A notice on the page for a while: its text, a link to what it is about, and for a
 * challenge Accept and Decline. */
export function toast(notice: Notice): HTMLElement {
  const close = button('×', 'btn ghost small toast-close');
  close.setAttribute('aria-label', t('notices.dismiss'));
  const actions = h('div', { class: 'toast-actions' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const el = h('div', { class: `note-toast notice-${notice.kind}` }, h('p', { class: 'toast-text', text: notice.text }), actions, error, close);
  const match = typeof notice.data.match === 'string' ? notice.data.match : null;
  if (notice.kind === 'challenge' && match) {
    const accept = button(t('offer.accept'), 'btn primary small accept-challenge');
    const decline = button(t('match.decline'), 'btn ghost small decline-challenge');
    accept.addEventListener('click', async () => {
      accept.disabled = decline.disabled = true;
      try {
        await acceptAndPlay(match);
      } catch (err) {
        error.textContent = errorWords(err);
      }
    });
    decline.addEventListener('click', async () => {
      accept.disabled = decline.disabled = true;
      try {
        await declineChallenge(match);
        el.remove();
      } catch (err) {
        error.textContent = errorWords(err);
      }
    });
    actions.append(accept, decline);
  } else if (noticeLink(notice)) {
    actions.append(h('a', { class: 'btn small toast-open', href: noticeLink(notice), text: t('games.open') }));
  }
  close.addEventListener('click', () => el.remove());
  toastShelf().append(el);
  // A challenge waits for its answer; the others go by themselves.
  if (notice.kind !== 'challenge') setTimeout(() => el.remove(), TOAST_MS);
  return el;
}
