/**
 * `/rules`: how to play — the rules, the cube, gammons, matches and Crawford, money play with
 * Jacoby and beavers, the clock and what a forfeit costs, and why nobody can fix the dice
 * (docs/rules.md and docs/fairness.md say the same things exactly).
 */

import '../ui/pages.css';
import './rules.css';
import { h } from '../ui/dom';
import { pageHeader } from './common';
import { t } from '../i18n';

type Block = string | readonly string[];

/** The page's sections: a title and paragraphs (a list where a paragraph is an array). */
export const SECTIONS: readonly (readonly [string, string, readonly Block[]])[] = [
  [
    'goal',
    'The goal',
    [
      'Each player has 15 checkers. You move yours around the board into your home board (your points 1 to 6) and then take them off, “bearing off”. The first to bear off all 15 wins the game.',
      'Your opponent moves the other way round. At the start each side has 2 checkers on its 24-point, 5 on its 13-point, 3 on its 8-point and 5 on its 6-point. The numbers under each player’s name are pip counts: how far that side still has to move. Lower is better.',
    ],
  ],
  [
    'moving',
    'Rolling and moving',
    [
      'To start, each player rolls one die; the higher one moves first with those two numbers (ties roll again). After that you roll two dice at the start of each turn.',
      [
        'Each die moves one checker that many points. One checker may use both dice if the point it lands on in between is open.',
        'A point is open unless two or more of your opponent’s checkers are on it.',
        'A double (say 4–4) is played four times.',
        'You must use both dice if you can. If only one can be played, you must play the larger one when that is possible. If no die can be played, your turn passes by itself.',
      ],
      'On this site: tap a checker and it moves by the die that makes sense (making a point or hitting first, otherwise the larger die); tap it again for the other die, or tap the destination when only one checker can get there. The move list offers every legal step with its die, and Undo takes a step back. Your turn is sent by itself when all dice are used, after a moment in which you can still undo (Settings can turn this off).',
    ],
  ],
  [
    'hitting',
    'Hitting and the bar',
    [
      'A single checker alone on a point is a blot. Landing on an opposing blot hits it: it goes to the bar in the middle and must come back in through your opponent’s home board before that side may move anything else. With a 3 you enter on the opponent’s 3-point (your 22-point). If every entry point your dice allow is blocked, the turn is lost.',
    ],
  ],
  [
    'bearing-off',
    'Bearing off',
    [
      'Once all 15 of your checkers are in your home board you may bear them off: a 4 takes a checker off your 4-point. If that point is empty you must move a checker from a higher point; if there is none higher, you take one off from your highest point. A checker hit while you bear off must come all the way home again before you go on.',
    ],
  ],
  [
    'gammons',
    'Gammons and backgammons',
    [
      [
        'A plain win counts once the loser has borne off at least one checker: 1 point.',
        'A gammon: the loser has borne off none: 2 points.',
        'A backgammon: the loser has borne off none and still has a checker on the bar or in the winner’s home board: 3 points.',
      ],
      'These are multiplied by the doubling cube.',
    ],
  ],
  [
    'cube',
    'The doubling cube',
    [
      'Before rolling, the player on roll may double: offer to play on for twice the stake. The other player either takes (the game goes on at twice the value and the taker now owns the cube) or drops (gives up the game and pays the value before the double).',
      'Only the owner of the cube may double again: that is a redouble. The cube goes 2, 4, 8, 16, 32 and 64, and no further. A single game is played without the cube.',
      'On this site Double asks once more before anything is offered, so a stray tap never doubles; and you can let the dice roll by themselves when you don’t want to double (Settings).',
    ],
  ],
  [
    'match',
    'Match play and the Crawford game',
    [
      'A match is played to N points: games go on until someone has N. Gammons and backgammons count in full and the cube is in play.',
      'The Crawford rule: in the first game after a player reaches N − 1 points, nobody may double. After that one game the cube is back (so a 1-point match has no Crawford game). The header shows “Crawford” during that game.',
    ],
  ],
  [
    'money',
    'Money play: Jacoby and beavers',
    [
      'A money session has no target: each game is scored with the cube and the session goes on until a player stops it between games.',
      'The Jacoby rule (if chosen when the match is created): a gammon or backgammon counts only as a single game unless the cube was turned in that game. It makes people play for the double instead of for a quiet gammon.',
      'Beavers (if chosen): when doubled, you may beaver — take and at once redouble, keeping the cube. The doubler then takes (the game goes on at four times the value) or drops.',
    ],
  ],
  [
    'clock',
    'The clock and what a forfeit (the settlement) costs',
    [
      'Each decision — roll or double, your move, take or drop — has its own clock, 30 seconds unless the match was created with another time. It starts again in full for every decision; it is not a chess clock. The running clock is orange and turns red in its last 10 seconds. Between games both clocks are orange: they count down to the next game, which starts by itself.',
      'A match may also give each player a time reserve (chosen when it is created: 1 to 10 minutes): a bank for the whole match. When a decision takes longer than its own clock, the reserve runs — the clock turns yellow and shows what is left of it — and whatever you use of it is gone for the rest of the match. Under the clock, “+2:00” is the reserve you still have. Dice commitments and reveals, which your browser sends by itself, never use it.',
      'If your clock runs out, or you stay away (a dropped connection may come back in time; the board shows the countdown), you forfeit. The forfeit costs the worst result still possible for you, times the cube: a single game once you have borne off a checker; otherwise a backgammon if you still have a checker on the bar or in your opponent’s home board, or while the checkers are still in contact; otherwise a gammon. So running out the clock is never cheaper than resigning, dropping or playing on. In a match a forfeit loses the whole match; in a money session it loses that game and ends the session.',
      'A problem on our side never costs you: if the server stops, every clock stops with it and gets the lost time back.',
    ],
  ],
  [
    'dice',
    'Why nobody can fix our dice — and how to check',
    [
      'Before a game, each browser picks a long secret at random and publishes a fingerprint of it (a cryptographic hash, a “commitment”). For every roll, each browser then reveals the next piece of its secret, and the dice are computed from both pieces together.',
      [
        'Your opponent cannot choose the dice: your piece is already fixed by your fingerprint and unknown to them, and theirs is fixed by theirs.',
        'The server cannot choose them either: it never knows either secret, it only passes the pieces on.',
        'Nobody can change a piece after the fact: each piece must match the fingerprint published before the game, and your browser checks every roll as it happens — the “verified ✓” mark next to the dice. A mismatch raises a red alarm.',
      ],
      'To check a finished game yourself, open “Verify the dice” after the game (or the Verify page with a transcript): it recomputes every roll from the published pieces. The exact method is written down so that anyone can build their own checker: see the fairness specification (docs/fairness.md) in the source.',
    ],
  ],
];

export function startRulesPage(root: HTMLElement): void {
  root.classList.add('fg-app', 'rules-page');
  const toc = h('nav', { class: 'card rules-toc', 'aria-label': 'Contents' }, h('h2', { text: 'Contents' }));
  const list = h('ol');
  const body = h('div', { class: 'rules-body' });
  for (const [id, title, blocks] of SECTIONS) {
    list.append(h('li', {}, h('a', { href: `#${id}`, text: title })));
    const section = h('section', { class: 'card', id }, h('h2', { text: title }));
    for (const block of blocks) {
      section.append(typeof block === 'string' ? h('p', { text: block }) : h('ul', {}, ...block.map((item) => h('li', { text: item }))));
    }
    body.append(section);
  }
  toc.append(list, h('p', { class: 'links' }, h('a', { class: 'btn primary', href: '/', text: 'Play online' }), h('a', { class: 'btn', href: '/local', text: 'Play on this device' })));
  root.replaceChildren(
    pageHeader(h('a', { href: '/', text: t('nav.lobby') })),
    h('main', { class: 'rules' }, h('h1', { text: 'How to play backgammon' }), h('div', { class: 'rules-grid' }, toc, body)),
  );
  document.title = 'How to play · fairgammon';
}
