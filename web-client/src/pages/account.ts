/**
 * The account corner of the page header: "Sign in" (a small form: log in or create an
 * account) when signed out; the notification bell (pages/bell.ts), the player's name, rating and
 * "Sign out" when signed in. Accounts
 * are optional: guests play exactly as before.
 */

import { type AccountInfo, logIn, logOut, signUp, whoAmI } from '../net/accountApi';
import { errorWords } from '../net/refusals';
import { button, h } from '../ui/dom';
import { t } from '../i18n';
import { bell } from './bell';

let current: Promise<AccountInfo | null> | null = null;

/** Who is signed in (asked once per page). */
export function account(): Promise<AccountInfo | null> {
  current ??= whoAmI();
  return current;
}

export const rating = (r: number): string => r.toFixed(2);

/** The header box; calls `changed` after signing in or out (the page usually reloads). */
export function accountBox(changed: () => void = () => location.reload()): HTMLElement {
  const box = h('span', { class: 'account-box' });
  const board = h('a', { class: 'leaders-link', href: '/leaderboard', text: t('nav.leaderboard') });
  void account().then((me) => {
    if (me) {
      const out = button(t('account.signOut'), 'btn ghost small signout');
      out.addEventListener('click', async () => {
        out.disabled = true;
        await logOut().catch(() => undefined);
        changed();
      });
      const who = h('a', { class: 'me', href: `/u/${encodeURIComponent(me.username)}` }, h('strong', { text: me.username }), h('span', { class: 'my-rating', text: ` ${rating(me.rating)}` }));
      box.replaceChildren(board, bell(), who, out);
    } else {
      const open = button(t('account.signIn'), 'btn small signin');
      open.addEventListener('click', () => document.body.append(signInDialog(changed)));
      box.replaceChildren(board, open);
    }
  });
  return box;
}

/** The sign-in form, as a modal dialog: log in, or create an account with the same fields. */
export function signInDialog(done: () => void): HTMLElement {
  const username = h('input', { type: 'text', name: 'username', autocomplete: 'username', minlength: '3', maxlength: '20', pattern: '[A-Za-z0-9_\\-]{3,20}', required: '', autocapitalize: 'off', spellcheck: 'false' });
  const password = h('input', { type: 'password', name: 'password', autocomplete: 'current-password', minlength: '8', maxlength: '128', required: '' });
  const error = h('p', { class: 'form-error', role: 'alert' });
  const login = button(t('account.signIn'), 'btn primary login');
  login.setAttribute('type', 'submit');
  const create = button(t('account.create'), 'btn ghost create-account');
  const cancel = button(t('common.cancel'), 'btn ghost cancel');
  const form = h(
    'form',
    { class: 'card account-card' },
    h('h1', { text: t('account.signIn') }),
    h('p', { class: 'sub', text: t('account.intro') }),
    h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('account.username') }), username),
    h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('account.password') }), password),
    error,
    h('div', { class: 'row' }, login, create, cancel),
  );
  const shade = h('div', { class: 'account-shade', role: 'dialog', 'aria-modal': 'true', 'aria-label': t('account.signIn') }, form);
  const go = async (how: typeof logIn) => {
    error.textContent = '';
    if (!form.reportValidity()) return;
    login.disabled = create.disabled = true;
    try {
      await how(username.value, password.value);
      shade.remove();
      current = null;
      done();
    } catch (err) {
      error.textContent = errorWords(err);
      login.disabled = create.disabled = false;
    }
  };
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void go(logIn);
  });
  create.addEventListener('click', () => {
    password.setAttribute('autocomplete', 'new-password');
    void go(signUp);
  });
  cancel.addEventListener('click', () => shade.remove());
  shade.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') shade.remove();
  });
  setTimeout(() => username.focus(), 0);
  return shade;
}
