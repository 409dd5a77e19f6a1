/**
 * The report dialog (docs/moderation.md): a signed-in player reports a player from their
 * profile, or from a match page a player of the match or one of their chat lines (the match
 * and the line go with the report). The reason is typed; everything is shown as text.
 */

import { type ReportTarget, fileReport } from '../net/moderationApi';
import { errorWords } from '../net/refusals';
import { button, h } from '../ui/dom';

/** A modal that files a report about `target`; `quoted`: the chat line reported, as said. */
export function reportDialog(target: ReportTarget, quoted?: string): HTMLElement {
  const reason = h('textarea', { name: 'reason', rows: '3', maxlength: '500', minlength: '3', required: '', placeholder: 'What happened?' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const send = button('Send report', 'btn primary send-report');
  send.setAttribute('type', 'submit');
  const cancel = button('Cancel', 'btn ghost cancel');
  const what = target.line !== undefined ? `this line of ${target.name}` : target.match ? `${target.name} in this match` : target.name;
  const form = h(
    'form',
    { class: 'card account-card report-card' },
    h('h1', { text: `Report ${target.name}` }),
    h('p', { class: 'sub', text: `You report ${what} to the moderators. They see the match, its chat and the player's recent games, and decide; the player is not told who reported.` }),
    ...(quoted === undefined ? [] : [h('blockquote', { class: 'reported-line', text: quoted })]),
    h('label', { class: 'field' }, h('span', { class: 'flabel', text: 'Reason' }), reason),
    error,
    h('div', { class: 'row' }, send, cancel),
  );
  const shade = h('div', { class: 'account-shade', role: 'dialog', 'aria-modal': 'true', 'aria-label': `Report ${target.name}` }, form);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    if (!form.reportValidity()) return;
    error.textContent = '';
    send.disabled = true;
    try {
      await fileReport(target, reason.value);
      form.replaceChildren(h('h1', { text: 'Report sent' }), h('p', { class: 'sub report-sent', text: 'Thank you: a moderator will look at it.' }), cancel);
      cancel.querySelector('.lbl')!.textContent = 'Close';
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
export function reportButton(target: ReportTarget, label = 'Report', quoted?: string): HTMLButtonElement {
  const b = button(label, 'btn ghost small report');
  b.addEventListener('click', () => document.body.append(reportDialog(target, quoted)));
  return b;
}
