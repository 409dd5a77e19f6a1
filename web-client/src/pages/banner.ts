/**
 * The offline banner: shown while the connection is down, with the reconnect countdown, and
 * while the server says it cannot reach its store (clocks stopped).
 */

import type { MatchSession } from '../net/session';
import { button, h } from '../ui/dom';
import { formatClock } from '../ui/format';

const FINAL_WORDS: Record<number, string> = {
  4001: 'This seat’s key is not accepted. Open the match from the browser you joined with.',
  4003: 'This seat is now open in another tab or device. This page stopped following the match.',
  4004: 'This match does not exist on the server.',
  4005: 'This page is out of date: reload it.',
  4000: 'The server closed the connection (protocol error). Reload the page.',
  1008: 'The server refused this page’s origin.',
};

export class ConnectionBanner {
  readonly el: HTMLElement;
  private readonly text = h('span', { class: 'banner-text' });
  private readonly retry = button('Retry now', 'btn retry');

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
      text = FINAL_WORDS[code] ?? (s.tracker.over ? '' : 'Disconnected from the server. Reload the page to reconnect.');
    } else if (s.storeTrouble) {
      text = 'Server trouble: clocks are stopped. Play resumes when it is fixed.';
    } else if (c.state === 'connecting' && (s.everOnline || c.attempts > 0)) {
      const wait = c.retryAt === null ? 0 : c.retryAt - Date.now();
      text = wait > 400 ? `Offline — reconnecting in ${formatClock(wait)}…` : 'Offline — reconnecting…';
      retry = wait > 400;
    }
    this.el.hidden = text === '';
    this.text.textContent = text;
    this.retry.hidden = !retry;
    this.el.classList.toggle('final', c.state === 'closed');
    document.body.classList.toggle('is-offline', text !== '');
  }
}
