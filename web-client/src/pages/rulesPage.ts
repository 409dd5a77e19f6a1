/**
 * `/rules`: how to play — the rules, the cube, gammons, matches and Crawford, money play with
 * Jacoby and beavers, the clock and what a forfeit costs, why nobody can fix the dice, and the
 * variants (docs/rules.md and docs/fairness.md say the same things exactly).
 */

import '../ui/pages.css';
import './rules.css';
import { h } from '../ui/dom';
import { pageHeader } from './common';
import { type MessageKey, t } from '../i18n';

/** The page's sections: an anchor, a title and paragraphs (a list where a paragraph is an
 * array), each a message of the catalogues. */
export const SECTIONS: readonly (readonly [string, MessageKey, readonly (MessageKey | readonly MessageKey[])[]])[] = [
  ['goal', 'rules.goal.title', ['rules.goal.p1', 'rules.goal.p2']],
  ['moving', 'rules.moving.title', ['rules.moving.p1', ['rules.moving.p2.1', 'rules.moving.p2.2', 'rules.moving.p2.3', 'rules.moving.p2.4'], 'rules.moving.p3']],
  ['hitting', 'rules.hitting.title', ['rules.hitting.p1']],
  ['bearing-off', 'rules.bearingOff.title', ['rules.bearingOff.p1']],
  ['gammons', 'rules.gammons.title', [['rules.gammons.p1.1', 'rules.gammons.p1.2', 'rules.gammons.p1.3'], 'rules.gammons.p2']],
  ['cube', 'rules.cube.title', ['rules.cube.p1', 'rules.cube.p2', 'rules.cube.p3']],
  ['match', 'rules.match.title', ['rules.match.p1', 'rules.match.p2']],
  ['money', 'rules.money.title', ['rules.money.p1', 'rules.money.p2', 'rules.money.p3']],
  ['clock', 'rules.clock.title', ['rules.clock.p1', 'rules.clock.p2', 'rules.clock.p3', 'rules.clock.p4']],
  ['dice', 'rules.dice.title', ['rules.dice.p1', ['rules.dice.p2.1', 'rules.dice.p2.2', 'rules.dice.p2.3'], 'rules.dice.p3']],
  // The variants (docs/rules.md, "Variants", has them in full with their sources).
  ['variants', 'rules.variants.title', ['rules.variants.p1']],
  ['nackgammon', 'rules.nackgammon.title', ['rules.nackgammon.p1']],
  ['hypergammon', 'rules.hypergammon.title', ['rules.hypergammon.p1']],
  ['portes', 'rules.portes.title', ['rules.portes.p1']],
  ['plakoto', 'rules.plakoto.title', ['rules.plakoto.p1', 'rules.plakoto.p2', 'rules.plakoto.p3']],
  ['fevga', 'rules.fevga.title', ['rules.fevga.p1', 'rules.fevga.p2', 'rules.fevga.p3']],
  ['tavli', 'rules.tavli.title', ['rules.tavli.p1']],
];

export function startRulesPage(root: HTMLElement): void {
  root.classList.add('fg-app', 'rules-page');
  const toc = h('nav', { class: 'card rules-toc', 'aria-label': t('rules.contents') }, h('h2', { text: t('rules.contents') }));
  const list = h('ol');
  const body = h('div', { class: 'rules-body' });
  for (const [id, titleKey, blocks] of SECTIONS) {
    const title = t(titleKey);
    list.append(h('li', {}, h('a', { href: `#${id}`, text: title })));
    const section = h('section', { class: 'card', id }, h('h2', { text: title }));
    for (const block of blocks) {
      section.append(typeof block === 'string' ? h('p', { text: t(block) }) : h('ul', {}, ...block.map((item) => h('li', { text: t(item) }))));
    }
    body.append(section);
  }
  toc.append(list, h('p', { class: 'links' }, h('a', { class: 'btn primary', href: '/', text: t('rules.playOnline') }), h('a', { class: 'btn', href: '/local', text: t('rules.playHere') })));
  root.replaceChildren(
    pageHeader(h('a', { href: '/', text: t('nav.lobby') })),
    h('main', { class: 'rules' }, h('h1', { text: t('rules.heading') }), h('div', { class: 'rules-grid' }, toc, body)),
  );
  document.title = `${t('nav.howToPlay')} · fairgammon`;
}
