/** Names for two players on one device. */

import { t } from '../i18n';

/** Two names, never both the same: empty fields become Ivory and Copper. */
export function tidyNames(a: string, b: string): [string, string] {
  // The default names are the checkers' colours, in the page's language.
  const [ivory, copper] = [t('local.ivory'), t('local.copper')];
  const first = a.trim().replace(/\s+/g, ' ').slice(0, 24) || ivory;
  let second = b.trim().replace(/\s+/g, ' ').slice(0, 24) || (first === copper ? ivory : copper);
  if (second.toLowerCase() === first.toLowerCase()) second = `${second.slice(0, 22)} 2`;
  return [first, second];
}
