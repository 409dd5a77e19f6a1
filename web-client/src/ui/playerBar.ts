/** A player's bar above or below the board: colour, name, presence, pips, turn and clock. */

import type { GameView, Seat } from '../view/gameView';
import { botTag } from './botTag';
import { h } from './dom';
import { t } from '../i18n';
import { clockFace, formatClock } from './format';

/** A player's presence in words. */
function presenceWords(presence: GameView['players'][0]['presence']): string {
  return t('bar.presence', { p: presence });
}

export class PlayerBar {
  readonly root: HTMLElement;
  private readonly chip = h('span', { class: 'chip', 'aria-hidden': 'true' });
  private readonly name = h('span', { class: 'pname' });
  private readonly presence = h('span', { class: 'presence' });
  private readonly botMark = botTag();
  private readonly pips = h('span', { class: 'pips' });
  private readonly turn = h('span', { class: 'turnmark' });
  private readonly clockText = h('span', { class: 'time' });
  private readonly reserveText = h('span', { class: 'reserve' });
  private readonly clockFill = h('i');
  private readonly clock: HTMLElement;

  constructor(position: 'top' | 'bottom') {
    this.clock = h('span', { class: 'clock', role: 'timer' }, this.clockText, this.reserveText, h('span', { class: 'meter' }, this.clockFill));
    const who = h('span', { class: 'who' }, this.chip, h('span', { class: 'namebox' }, this.name, this.botMark, this.presence));
    this.root = h('div', { class: `player ${position}` }, who, this.turn, this.pips, this.clock);
  }

  /** Show `seat` of `view`; `acting` = that seat owes a decision now; `bot` = a bot account holds it. */
  render(view: GameView, seat: Seat, pips: number, acting: boolean, bot = false): void {
    this.botMark.hidden = !bot;
    const player = view.players[seat];
    this.root.dataset.seat = String(seat);
    this.chip.className = `chip s${seat}`;
    this.name.textContent = player.name;
    this.presence.className = `presence ${player.presence}`;
    this.presence.textContent = presenceWords(player.presence);
    // Both players on this screen (hot seat): "online" says nothing (a demo may still show
    // another presence).
    this.presence.hidden = view.shared === true && player.presence === 'online';
    this.pips.textContent = t('bar.pips', { n: pips });
    this.pips.setAttribute('aria-label', t('bar.pipsLabel', { name: player.name, n: pips }));
    this.root.classList.toggle('acting', acting);
    this.turn.textContent = acting ? (view.phase === 'offer' ? t('bar.toAnswer') : t('bar.toPlay')) : '';
  }

  /** Update the countdowns (clock and forfeit) to `now` (client ms). */
  tick(view: GameView, seat: Seat, now: number): void {
    const clock = view.clocks[seat];
    const running = clock.deadline !== null;
    // Never more than the budget: a clock offset a few ms off must not show 0:31 of 0:30.
    const face = clockFace(clock, now);
    const left = face.leftMs;
    this.clock.hidden = clock.budgetMs === 0;
    this.clock.classList.toggle('running', running);
    this.clock.classList.toggle('low', face.toDeadline !== null && face.toDeadline < 10_000);
    this.clock.classList.toggle('in-reserve', face.inReserve);
    this.clockText.textContent = formatClock(left);
    this.reserveText.hidden = face.reserveMs === null;
    this.reserveText.textContent = face.inReserve ? t('clock.reserve') : face.reserveMs !== null ? `+${formatClock(face.reserveMs)}` : '';
    const between = running && view.phase === 'gameover';
    const reserve = face.reserveMs === null ? '' : formatClock(face.reserveMs);
    this.clock.title = between
      ? t('clock.untilNextGame')
      : face.inReserve
        ? t('clock.inReserve')
        : running
          ? t('clock.decisionLeft', { reserve: reserve || 'none' })
          : face.reserveMs !== null
            ? t('clock.reserveLeft')
            : '';
    this.clock.setAttribute(
      'aria-label',
      t('clock.label', {
        name: view.players[seat].name,
        time: formatClock(left),
        reserve: face.reserveMs === null ? 'none' : face.inReserve ? 'in' : reserve,
        state: between ? 'between' : running ? 'running' : 'stopped',
      }),
    );
    const full = face.inReserve ? (clock.reserve?.leftMs ?? 0) : clock.budgetMs;
    this.clockFill.style.width = `${full ? Math.max(0, Math.min(1, left / full)) * 100 : 0}%`;
    const p = view.players[seat];
    if (p.forfeitAt !== null && p.presence !== 'online') {
      this.presence.textContent = t('bar.forfeitsIn', { presence: presenceWords(p.presence), time: formatClock(p.forfeitAt - now) });
    }
  }
}
