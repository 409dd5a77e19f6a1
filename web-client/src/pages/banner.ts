/**
 * The offline banner: shown while the connection is down, with the reconnect countdown, and
 * while the server says it cannot reach its store (clocks stopped).
 */

import { type MessageKey, t } from '../i18n';
import type { MatchSession } from '../net/session';
import { button, h } from '../ui/dom';
import { formatClock } from '../ui/format';

const FINAL_WORDS: Record<number, MessageKey> = {
  4001: 'banner.badKey',
  4003: 'banner.elsewhere',
  4004: 'banner.noMatch',
  4005: 'banner.outOfDate',
  4000: 'banner.protocol',
  1008: 'banner.origin',
};

export class ConnectionBanner {
  readonly el: HTMLElement;
  private readonly text = h('span', { class: 'banner-text' });
  private readonly retry = button(t('banner.retry'), 'btn retry');

  constructor(private readonly session: MatchSession) {
    this.retry.addEventListener('click', () => session.connection.retryNow());
    this.el = h('div', { class: 'banner offline', role: 'status', 'aria-live': 'polite', hidden: '' }, h('span', { class: 'dot', 'aria-hidden': 'true' }), this.text, this.retry);
  }

  render(): void {
    const s = this.session;
    const c = s.connection;
    let text = '';
    let retry = false;
    if (c.state === 'closed') {
      const code = c.lastClose?.code ?? 0;
      const words = FINAL_WORDS[code];
      text = words ? t(words) : s.tracker.over ? '' : t('banner.disconnected');
    } else if (s.storeTrouble) {
      text = t('banner.storeTrouble');
    } else if (c.state === 'connecting' && (s.everOnline || c.attempts > 0)) {
      const wait = c.retryAt === null ? 0 : c.retryAt - Date.now();
      text = wait > 400 ? t('banner.reconnectingIn', { time: formatClock(wait) }) : t('banner.reconnecting');
      retry = wait > 400;
    }
    this.el.hidden = text === '';
    this.text.textContent = text;
    this.retry.hidden = !retry;
    this.el.classList.toggle('final', c.state === 'closed');
    document.body.classList.toggle('is-offline', text !== '');
  }
}
