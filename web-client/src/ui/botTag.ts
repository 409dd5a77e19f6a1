/** The BOT tag shown beside the name of a bot account (an outside engine playing under its own
 * account, rated apart from people: docs/accounts.md, "Bot accounts"). */

import { t } from '../i18n';
import { h } from './dom';

export function botTag(): HTMLElement {
  return h('span', { class: 'bot-tag', text: t('bar.bot'), title: t('bar.botTitle') });
}

/** `name` as a link or text, followed by the BOT tag when `bot`. */
export function withBotTag(name: Node, bot: boolean | undefined): (Node | string)[] {
  return bot ? [name, ' ', botTag()] : [name];
}
