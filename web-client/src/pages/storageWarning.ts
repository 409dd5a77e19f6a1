/**
 * A warning on every page when the browser refuses to store anything (private modes, blocked
 * site data): a reload would then lose the seat of a match, the dice secret, or a game on this
 * device, so the player should keep the tab open.
 */

import { t } from '../i18n';
import { h } from '../ui/dom';

/** True when this browser keeps what the page writes to localStorage. */
export function storageWorks(storage: Pick<Storage, 'setItem' | 'getItem' | 'removeItem'> | null = globalThis.localStorage ?? null): boolean {
  if (!storage) return false;
  const key = 'fairgammon.storage-check';
  try {
    storage.setItem(key, '1');
    const ok = storage.getItem(key) === '1';
    storage.removeItem(key);
    return ok;
  } catch {
    return false;
  }
}

/** Put the warning at the top of `root` when storage is refused; true when it did. */
export function warnIfNoStorage(root: HTMLElement): boolean {
  let works: boolean;
  try {
    works = storageWorks();
  } catch {
    works = false; // even reading window.localStorage can throw when site data is blocked
  }
  if (works) return false;
  root.prepend(
    h(
      'div',
      { class: 'banner storage-warning', role: 'alert' },
      h('span', { text: t('storage.refused') }),
    ),
  );
  return true;
}
