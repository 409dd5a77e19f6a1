/**
 * The language picker every page's header carries: the languages by their own names; a pick
 * is remembered (src/i18n) and the page reloads in it.
 */

import { LANGUAGES, type Lang, language, setLanguage, t } from '../i18n';
import { h } from './dom';

export function languageSelect(): HTMLSelectElement {
  const select = h('select', { class: 'lang-select', name: 'lang', 'aria-label': t('header.language') });
  for (const l of LANGUAGES) select.append(h('option', { value: l.code, lang: l.code, text: l.name }));
  select.value = language();
  select.addEventListener('change', () => {
    setLanguage(select.value as Lang, true);
    location.reload();
  });
  return select;
}
