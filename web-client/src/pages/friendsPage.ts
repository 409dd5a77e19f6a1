/**
 * `/friends`: a signed-in player's people and settings (docs/friends.md). Challenges received
 * (Accept, Decline) and sent (Open, Withdraw); the players followed, with who is online and
 * what they play now (a Watch link), each to challenge, unfollow or block; follow by name; the
 * blocked; privacy (who sees me online, who may challenge me); e-mail of notices; vacation
 * from correspondence clocks (docs/correspondence.md). Names are shown as text.
 */

import { type MessageKey, around, formatDate, t } from '../i18n';
import {
  type Audience,
  type Challenge,
  type Followed,
  type Friends,
  block,
  declineChallenge,
  endVacation,
  follow,
  getChallenges,
  getEmail,
  getFriends,
  getVacation,
  setEmail,
  setPrivacy,
  startVacation,
  unblock,
  unfollow,
  type Vacation,
} from '../net/friendsApi';
import { noticeFeed } from '../net/notices';
import { errorWords } from '../net/refusals';
import { button, h } from '../ui/dom';
import { accountBox } from './account';
import { acceptAndPlay, challengeDialog } from './challenge';
import { withBotTag } from '../ui/botTag';
import { describeOptions, pageHeader } from './common';
import { myNav, needAccount } from './mine';

/** The privacy levels in words, each one of the server's (a missing one does not compile). */
const AUDIENCE_WORDS: Record<Audience, MessageKey> = {
  everyone: 'friends.everyone',
  following: 'friends.following',
  friends: 'friends.friends',
  nobody: 'friends.nobody',
};
/** "From {name}" / "To {name}": the name is a link, the words around it the language's. */
const fromTo = (): [[string, string], [string, string]] => [around('friends.from', 'name'), around('friends.to', 'name')];
const audiences = (): [Audience, string][] => (Object.entries(AUDIENCE_WORDS) as [Audience, MessageKey][]).map(([a, key]) => [a, t(key)] as [Audience, string]);

const profileLink = (name: string): HTMLElement => h('a', { href: `/u/${encodeURIComponent(name)}`, text: name });

/** A button that runs `act`, disabled while it runs; a refusal goes to `error`. */
function action(label: string, cls: string, error: HTMLElement, act: () => Promise<unknown>): HTMLButtonElement {
  const b = button(label, cls);
  b.addEventListener('click', async () => {
    b.disabled = true;
    error.textContent = '';
    try {
      await act();
    } catch (err) {
      error.textContent = errorWords(err);
    } finally {
      b.disabled = false;
    }
  });
  return b;
}

export async function startFriendsPage(root: HTMLElement): Promise<void> {
  root.classList.add('fg-app', 'players-page', 'mine-page');
  const main = h('main', { class: 'players' });
  root.replaceChildren(pageHeader(accountBox()), main);
  document.title = `${t('nav.friends')} · fairgammon`;
  const me = await needAccount(main, t('nav.friends'));
  if (!me) return;
  const error = h('p', { class: 'form-error', role: 'alert' });
  const challenges = h('section', { class: 'card challenges-card', id: 'challenges' });
  const people = h('section', { class: 'card following-card' });
  const blocked = h('section', { class: 'card blocked-card' });
  const privacy = h('section', { class: 'card privacy-card' });
  const email = h('section', { class: 'card email-card' });
  const vacation = h('section', { class: 'card vacation-card', id: 'vacation' });
  main.replaceChildren(myNav('/friends'), error, challenges, people, privacy, email, vacation, blocked);

  const showChallenges = async () => {
    const got = await getChallenges();
    const row = (c: Challenge, received: boolean) => {
      const other = received ? c.from : c.to;
      const buttons = received
        ? [
            action(t('offer.accept'), 'btn primary small accept-challenge', error, () => acceptAndPlay(c.match)),
            action(t('match.decline'), 'btn ghost small decline-challenge', error, async () => {
              await declineChallenge(c.match);
              await showChallenges();
            }),
          ]
        : [
            h('a', { class: 'btn small', href: `/m/${c.match}`, text: t('games.open') }),
            action(t('friends.withdraw'), 'btn ghost small withdraw-challenge', error, async () => {
              await declineChallenge(c.match);
              await showChallenges();
            }),
          ];
      return h(
        'li',
        { 'data-match': c.match, class: received ? 'received' : 'sent' },
        h('span', { class: 'minfo' }, h('strong', {}, fromTo()[received ? 0 : 1][0], ...withBotTag(profileLink(other), c.bot), fromTo()[received ? 0 : 1][1]), h('span', { class: 'sub', text: describeOptions(c.mode, c.length, c.clock, 0, c.days) })),
        h('span', { class: 'row-actions' }, ...buttons),
      );
    };
    const rows = [...got.received.map((c) => row(c, true)), ...got.sent.map((c) => row(c, false))];
    challenges.replaceChildren(
      h('h2', { text: t('friends.challenges') }),
      h('ul', { class: 'matchlist challenge-list' }, ...(rows.length ? rows : [h('li', { class: 'empty', text: t('friends.noChallenge') })])),
    );
  };

  const followRow = (f: Followed) => {
    const state = f.online === null ? 'hidden' : f.online ? 'online' : 'offline';
    const status = f.online === null ? '' : f.online ? t('friends.isOnline') : t('friends.isOffline');
    const watching = (f.playing ?? []).map((p) => h('a', { class: 'btn small watch', href: `/m/${p.match}#watch`, text: t('lobby.watch') }));
    const tell = h('input', { type: 'checkbox', name: 'tell' });
    tell.checked = f.tell;
    tell.addEventListener('change', async () => {
      error.textContent = '';
      try {
        draw(await follow(f.name, tell.checked));
      } catch (err) {
        error.textContent = errorWords(err);
      }
    });
    const challengeButton = button(t('profile.challenge'), 'btn small challenge');
    challengeButton.addEventListener('click', () => document.body.append(challengeDialog(f.name, me.username)));
    return h(
      'li',
      { 'data-name': f.name, class: `presence-${state}` },
      h(
        'span',
        { class: 'minfo' },
        h('strong', {}, h('span', { class: 'presence-dot', 'aria-hidden': 'true' }), ...withBotTag(profileLink(f.name), f.bot)),
        h('span', { class: 'sub', text: [f.mutual ? t('friends.mutual') : t('friends.isFollowing'), status, f.playing?.length ? t('friends.playingNow') : ''].filter(Boolean).join(' · ') }),
        h('label', { class: 'toggle tell-toggle' }, tell, h('span', { text: t('friends.tell') })),
      ),
      h(
        'span',
        { class: 'row-actions' },
        ...watching,
        challengeButton,
        action(t('profile.unfollow'), 'btn ghost small unfollow', error, async () => draw(await unfollow(f.name))),
        action(t('profile.block'), 'btn ghost small block', error, async () => {
          if (confirm(t('friends.blockConfirm', { name: f.name }))) draw(await block(f.name));
        }),
      ),
    );
  };

  const followName = h('input', { type: 'text', name: 'follow', maxlength: '20', placeholder: t('friends.namePlaceholder'), autocapitalize: 'off', spellcheck: 'false', 'aria-label': t('friends.toFollow') });
  const followForm = h('form', { class: 'linkform follow-form' }, followName, button(t('profile.follow'), 'btn follow-name'));
  followForm.addEventListener('submit', async (e) => {
    e.preventDefault();
    const n = followName.value.trim();
    if (!n) return;
    error.textContent = '';
    try {
      draw(await follow(n));
      followName.value = '';
    } catch (err) {
      error.textContent = errorWords(err);
    }
  });

  const audience = (name: 'show' | 'challenges', value: Audience) => {
    const s = h('select', { name });
    for (const [v, label] of audiences()) s.append(h('option', { value: v, text: label }));
    s.value = value;
    s.addEventListener('change', async () => {
      error.textContent = '';
      try {
        draw(await setPrivacy({ [name]: s.value as Audience }));
      } catch (err) {
        error.textContent = errorWords(err);
      }
    });
    return s;
  };

  const draw = (f: Friends) => {
    const online = f.following.filter((x) => x.online).length;
    people.replaceChildren(
      h('h2', { text: t('friends.followingCount', { n: f.following.length }) }),
      h('p', { class: 'sub', text: f.following.length ? t('friends.online', { n: online }) : t('friends.followHint') }),
      followForm,
      h('ul', { class: 'matchlist following-list' }, ...f.following.map(followRow)),
    );
    blocked.hidden = f.blocked.length === 0;
    blocked.replaceChildren(
      h('h2', { text: t('friends.blocked') }),
      h(
        'ul',
        { class: 'matchlist blocked-list' },
        ...f.blocked.map((n) => h('li', { 'data-name': n }, h('span', { class: 'minfo', text: n }), action(t('friends.unblock'), 'btn ghost small unblock', error, async () => draw(await unblock(n))))),
      ),
    );
    privacy.replaceChildren(
      h('h2', { text: t('friends.privacy') }),
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('friends.whoSees') }), audience('show', f.privacy.show)),
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('friends.whoChallenges') }), audience('challenges', f.privacy.challenges)),
    );
  };

  const drawEmail = async () => {
    const got = await getEmail();
    const address = h('input', { type: 'email', name: 'email', maxlength: '254', autocomplete: 'email', value: got.address ?? '', 'aria-label': t('friends.emailAddress') });
    const on = h('input', { type: 'checkbox', name: 'email-on' });
    on.checked = got.on;
    const save = button(t('friends.save'), 'btn small save-email');
    save.setAttribute('type', 'submit');
    const form = h(
      'form',
      { class: 'email-form' },
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: t('friends.address') }), address),
      h('label', { class: 'toggle' }, on, h('span', { text: t('friends.emailMe') })),
      save,
    );
    form.addEventListener('submit', async (e) => {
      e.preventDefault();
      error.textContent = '';
      try {
        const change: { address?: string; on: boolean } = { on: on.checked };
        if (address.value.trim()) change.address = address.value.trim();
        await setEmail(change);
        await drawEmail();
      } catch (err) {
        error.textContent = errorWords(err);
      }
    });
    email.replaceChildren(
      h('h2', { text: t('friends.email') }),
      h('p', { class: 'sub', text: got.available ? t('friends.emailOff') : t('friends.noEmail') }),
      ...(got.available ? [form] : []),
    );
  };

  const drawVacation = (v: Vacation) => {
    const days = h('input', { type: 'number', name: 'vacation-days', min: '1', max: String(Math.max(1, Math.floor(v.days_left))), step: '1', value: '3', inputmode: 'numeric', 'aria-label': t('friends.vacationDays') });
    const left = { left: Math.floor(v.days_left), allowance: v.allowance };
    const kids: Node[] = [h('h2', { text: t('friends.vacation') })];
    if (v.on && v.until !== null) {
      kids.push(
        h('p', { class: 'vacation-status', text: t('friends.onVacation', { until: formatDate(v.until, { dateStyle: 'medium', timeStyle: 'short' }), ...left }) }),
        action(t('friends.endVacation'), 'btn small end-vacation', error, async () => drawVacation(await endVacation())),
      );
    } else {
      const start = button(t('friends.startVacation'), 'btn small start-vacation');
      start.setAttribute('type', 'submit');
      const form = h('form', { class: 'linkform vacation-form' }, days, start);
      form.addEventListener('submit', async (e) => {
        e.preventDefault();
        error.textContent = '';
        try {
          drawVacation(await startVacation(Math.round(Number(days.value))));
        } catch (err) {
          error.textContent = errorWords(err);
        }
      });
      kids.push(h('p', { class: 'sub', text: t('friends.vacationAbout', left) }), form);
    }
    vacation.replaceChildren(...kids);
  };

  try {
    const [friends, v] = await Promise.all([getFriends(), getVacation(), showChallenges(), drawEmail()]);
    draw(friends);
    drawVacation(v);
  } catch (err) {
    error.textContent = errorWords(err);
  }
  // A challenge made, answered or withdrawn while the page is open: the list follows.
  noticeFeed().listen(({ notice }) => {
    if (notice?.kind.startsWith('challenge')) void showChallenges().catch(() => undefined);
  });
}
