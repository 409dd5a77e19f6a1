/**
 * The report dialog (docs/moderation.md): a signed-in player reports a player from their
 * profile, or from a match page a player of the match or one of their chat lines (the match
 * and the line go with the report). The reason is typed; everything is shown as text.
 */

import { type ReportTarget, fileReport } from '../net/moderationApi';
import { errorWords } from '../net/refusals';
import { t } from '../i18n';
import { button, h } from '../ui/dom';

/** A modal that files a report about `target`; `quoted`: the chat line reported, as said. */
export function reportDialog(target: ReportTarget, quoted?: string): HTMLElement {
  const reason = h('textarea', { name: 'reason', rows: '3', maxlength: '500', minlength: '3', required: '', placeholder: t('report.placeholder') });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const send = button(t('report.send'), 'btn primary send-report');
  send.setAttribute('type', 'submit');
  const cancel = button(t('common.cancel'), 'btn ghost cancel');
  const what = target.line !== undefined ? 'line' : target.match ? 'match' : 'player';
  const form = h(
    'form',
    { class: 'card account-card report-card' },
    h('h1', { text: t('report.title', { name: target.name }) }),
    h('p', { class: 'sub', text: t('report.intro', { name: target.name, what }) }),
    ...(quoted === undefined ? [] : [h('blockquote', { class: 'reported-line', text: quoted })]),
    h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('report.reason') }), reason),
    error,
    h('div', { class: 'row' }, send, cancel),
  );
  const shade = h('div', { class: 'account-shade', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('report.title', { name: target.name }) }, form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    error.textContent = '';
    send.disabled = true;
    try {
      await fileReport(target, reason.value);
      form.replaceChildren(h('h1', { text: t('report.sent') }), h('p', { class: 'sub report-sent', text: t('report.thanks') }), cancel);
      cancel.querySelector('.lbl')!.textContent = t('common.close');
      cancel.focus();
    } catch (err) {
      error.textContent = errorWords(err);
      send.disabled = false;
    }
  });
  cancel.addEventListener('click', () => shade.remove());
  shade.addEventListener('click', (e) => {
    if (e.target === shade) shade.remove();
  });
  queueMicrotask(() => reason.focus());
  return shade;
}

/** A small "Report" button that opens the dialog. */
export function reportButton(target: ReportTarget, label = t('report.button'), quoted?: string): HTMLButtonElement {
  const b = button(label, 'btn ghost small report');
  b.addEventListener('click', () => document.body.append(reportDialog(target, quoted)));
  return b;
}
