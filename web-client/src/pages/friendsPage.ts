/**
 * `/friends`: a signed-in player's people and settings (docs/friends.md). Challenges received
 * (Accept, Decline) and sent (Open, Withdraw); the players followed, with who is online and
 * what they play now (a Watch link), each to challenge, unfollow or block; follow by name; the
 * blocked; privacy (who sees me online, who may challenge me); e-mail of notices; vacation
 * from correspondence clocks (docs/correspondence.md). Names are shown as text.
 */

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
const AUDIENCE_WORDS: Record<Audience, string> = {
  everyone: 'Everyone',
  following: 'Players I follow',
  friends: 'Friends (we follow each other)',
  nobody: 'Nobody',
};
const AUDIENCES = Object.entries(AUDIENCE_WORDS) as [Audience, string][];

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
  document.title = 'Friends · fairgammon';
  const me = await needAccount(main, 'Friends');
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
            action('Accept', 'btn primary small accept-challenge', error, () => acceptAndPlay(c.match)),
            action('Decline', 'btn ghost small decline-challenge', error, async () => {
              await declineChallenge(c.match);
              await showChallenges();
            }),
          ]
        : [
            h('a', { class: 'btn small', href: `/m/${c.match}`, text: 'Open' }),
            action('Withdraw', 'btn ghost small withdraw-challenge', error, async () => {
              await declineChallenge(c.match);
              await showChallenges();
            }),
          ];
      return h(
        'li',
        { 'data-match': c.match, class: received ? 'received' : 'sent' },
        h('span', { class: 'minfo' }, h('strong', {}, received ? 'From ' : 'To ', ...withBotTag(profileLink(other), c.bot)), h('span', { class: 'sub', text: describeOptions(c.mode, c.length, c.clock, 0, c.days) })),
        h('span', { class: 'row-actions' }, ...buttons),
      );
    };
    const rows = [...got.received.map((c) => row(c, true)), ...got.sent.map((c) => row(c, false))];
    challenges.replaceChildren(
      h('h2', { text: 'Challenges' }),
      h('ul', { class: 'matchlist challenge-list' }, ...(rows.length ? rows : [h('li', { class: 'empty', text: 'No open challenge. Challenge a player from their profile or from the list below.' })])),
    );
  };

  const followRow = (f: Followed) => {
    const state = f.online === null ? 'hidden' : f.online ? 'online' : 'offline';
    const status = f.online === null ? '' : f.online ? 'online' : 'offline';
    const watching = (f.playing ?? []).map((p) => h('a', { class: 'btn small watch', href: `/m/${p.match}#watch`, text: 'Watch' }));
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
    const challengeButton = button('Challenge', 'btn small challenge');
    challengeButton.addEventListener('click', () => document.body.append(challengeDialog(f.name, me.username)));
    return h(
      'li',
      { 'data-name': f.name, class: `presence-${state}` },
      h(
        'span',
        { class: 'minfo' },
        h('strong', {}, h('span', { class: 'presence-dot', 'aria-hidden': 'true' }), ...withBotTag(profileLink(f.name), f.bot)),
        h('span', { class: 'sub', text: [f.mutual ? 'friends' : 'following', status, f.playing?.length ? 'playing now' : ''].filter(Boolean).join(' · ') }),
        h('label', { class: 'toggle tell-toggle' }, tell, h('span', { text: 'Tell me when they start a match' })),
      ),
      h(
        'span',
        { class: 'row-actions' },
        ...watching,
        challengeButton,
        action('Unfollow', 'btn ghost small unfollow', error, async () => draw(await unfollow(f.name))),
        action('Block', 'btn ghost small block', error, async () => {
          if (confirm(`Block ${f.name}? They can no longer follow or challenge you.`)) draw(await block(f.name));
        }),
      ),
    );
  };

  const followName = h('input', { type: 'text', name: 'follow', maxlength: '20', placeholder: 'A player’s name', autocapitalize: 'off', spellcheck: 'false', 'aria-label': 'Player to follow' });
  const followForm = h('form', { class: 'linkform follow-form' }, followName, button('Follow', 'btn follow-name'));
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
    for (const [v, label] of AUDIENCES) s.append(h('option', { value: v, text: label }));
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
      h('h2', { text: `Following (${f.following.length})` }),
      h('p', { class: 'sub', text: f.following.length ? `${online} online now.` : 'Follow players to see when they are online and what they play.' }),
      followForm,
      h('ul', { class: 'matchlist following-list' }, ...f.following.map(followRow)),
    );
    blocked.hidden = f.blocked.length === 0;
    blocked.replaceChildren(
      h('h2', { text: 'Blocked' }),
      h(
        'ul',
        { class: 'matchlist blocked-list' },
        ...f.blocked.map((n) => h('li', { 'data-name': n }, h('span', { class: 'minfo', text: n }), action('Unblock', 'btn ghost small unblock', error, async () => draw(await unblock(n))))),
      ),
    );
    privacy.replaceChildren(
      h('h2', { text: 'Privacy' }),
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: 'Who sees when I am online and what I play' }), audience('show', f.privacy.show)),
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: 'Who may challenge me' }), audience('challenges', f.privacy.challenges)),
    );
  };

  const drawEmail = async () => {
    const got = await getEmail();
    const address = h('input', { type: 'email', name: 'email', maxlength: '254', autocomplete: 'email', value: got.address ?? '', 'aria-label': 'E-mail address' });
    const on = h('input', { type: 'checkbox', name: 'email-on' });
    on.checked = got.on;
    const save = button('Save', 'btn small save-email');
    save.setAttribute('type', 'submit');
    const form = h(
      'form',
      { class: 'email-form' },
      h('label', { class: 'field' }, h('span', { class: 'flabel', text: 'Address' }), address),
      h('label', { class: 'toggle' }, on, h('span', { text: 'E-mail me my turns in correspondence games and challenges' })),
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
      h('h2', { text: 'E-mail' }),
      h('p', { class: 'sub', text: got.available ? 'Off unless you turn it on; every mail has a link to stop it.' : 'This server sends no e-mail (it has no mail server configured).' }),
      ...(got.available ? [form] : []),
    );
  };

  const drawVacation = (v: Vacation) => {
    const days = h('input', { type: 'number', name: 'vacation-days', min: '1', max: String(Math.max(1, Math.floor(v.days_left))), step: '1', value: '3', inputmode: 'numeric', 'aria-label': 'Days of vacation' });
    const left = `${Math.floor(v.days_left)} of ${v.allowance} days left this year.`;
    const kids: Node[] = [h('h2', { text: 'Vacation' })];
    if (v.on && v.until !== null) {
      kids.push(
        h('p', { class: 'vacation-status', text: `On vacation until ${new Date(v.until).toLocaleString()}: your correspondence clocks stand still. ${left}` }),
        action('End vacation now', 'btn small end-vacation', error, async () => drawVacation(await endVacation())),
      );
    } else {
      const start = button('Start vacation', 'btn small start-vacation');
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
      kids.push(h('p', { class: 'sub', text: `Stops the clocks of all your correspondence games while you are away. ${left}` }), form);
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
