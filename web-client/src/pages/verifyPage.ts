/**
 * The verify view at `/verify`: checks fair-dice transcripts in this browser (docs/fairness.md
 * section 11) — every commitment, link, die, the roll-off and turn order, the order of events,
 * the result, and a replay of every play through the rules engine.
 *
 *   /verify?match=<id>            every finished game of a match (fetched from the server)
 *   /verify?match=<id>&game=<n>   one game
 *   /verify                       paste or open a transcript file
 */

import { around, ltr, t } from '../i18n';
import { TranscriptError, type Verdict, verifyTranscript } from '../fairdice/transcript';
import { exportPaths } from '../net/lobbyApi';
import { button, h } from '../ui/dom';
import { heroSection, pageHeader } from './common';
import { diceCard } from './diceCard';

/** "1 roll", "2 rolls". */

interface GameDoc {
  game_no?: number;
  rolls?: { k: number; d1: number; d2: number; kind: string; roller: number | null; reveals: string[] }[];
  seats?: { name: string | null }[];
}

export function startVerifyPage(root: HTMLElement): void {
  const params = new URLSearchParams(location.search);
  const match = params.get('match');
  const game = Number(params.get('game') ?? 0) || null;
  const results = h('div', { class: 'verify-results', 'aria-live': 'polite' });
  const text = h('textarea', { rows: '6', placeholder: t('verify.paste'), 'aria-label': t('verify.json'), spellcheck: 'false' });
  const file = h('input', { type: 'file', accept: '.json,application/json', 'aria-label': t('verify.openFile') });
  const check = button(t('verify.verify'), 'btn primary verify');
  check.addEventListener('click', () => void run(text.value, results));
  file.addEventListener('change', async () => {
    const f = file.files?.[0];
    if (f) {
      text.value = await f.text();
      void run(text.value, results);
    }
  });
  const intro = heroSection(
    t('match.verifyDice'),
    t('verify.intro'),
    'hero small',
  );
  const manual = h('section', { class: 'card' }, h('h2', { text: t('verify.checkFile') }), text, h('div', { class: 'row' }, file, check));
  root.classList.add('fg-app', 'verify-page');
  root.replaceChildren(pageHeader(), h('main', { class: 'lobby verify' }, intro, results, manual));
  if (match) void fetchAndVerify(match, game, results);
}

async function fetchAndVerify(match: string, game: number | null, out: HTMLElement): Promise<void> {
  out.replaceChildren(h('p', { class: 'note', text: t('verify.fetching') }));
  try {
    const path = game ? exportPaths.gameTranscript(match, game) : exportPaths.matchTranscript(match);
    const response = await fetch(path, { cache: 'no-store' });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      out.replaceChildren(h('p', { class: 'form-error', text: body.message ?? `HTTP ${response.status}` }));
      return;
    }
    await run(await response.text(), out, match);
  } catch (err) {
    out.replaceChildren(h('p', { class: 'form-error', text: String(err) }));
  }
}

/** Verify a transcript or a match file ({match_id, games: [...]}) and show one card per game. */
async function run(text: string, out: HTMLElement, match?: string): Promise<void> {
  let docs: unknown[];
  let leftOut: LeftOut[] = [];
  try {
    const parsed = JSON.parse(text) as { games?: unknown[]; left_out?: unknown };
    docs = Array.isArray(parsed.games) ? parsed.games : [parsed];
    if (Array.isArray(parsed.left_out)) leftOut = parsed.left_out.filter(isLeftOut);
  } catch {
    docs = [text]; // the verifier reports the JSON error
  }
  out.replaceChildren();
  if (docs.length === 0 && leftOut.length === 0) {
    out.append(h('p', { class: 'note', text: t('verify.noGame') }));
    return;
  }
  if (match) out.append(h('p', { class: 'sub', text: t('verify.match', { match }) }));
  for (const doc of docs) out.append(await gameCard(doc));
  // A game forfeited before both seats committed to their dice: no roll, nothing to verify.
  for (const missing of leftOut) {
    out.append(h('section', { class: 'card verdict none' }, h('h2', { text: t('verify.noDice', { game: missing.game }) }), h('p', { class: 'why', text: missing.why })));
  }
  const numbers = docs.map((d) => (typeof d === 'object' && d !== null ? (d as GameDoc).game_no : undefined)).filter((n): n is number => typeof n === 'number');
  if (match && numbers.length) out.append(await diceCard(match, numbers));
}

/** A finished game the match's transcripts leave out, and why (docs/fairness.md). */
interface LeftOut {
  readonly game: number;
  readonly why: string;
}

function isLeftOut(x: unknown): x is LeftOut {
  return typeof x === 'object' && x !== null && typeof (x as LeftOut).game === 'number' && typeof (x as LeftOut).why === 'string';
}

/** A seat as the transcript numbers it ("Seat 0"), when it names nobody. */
const seatNo = (i: number): string => t('common.seatNo', { n: String(i) });

async function gameCard(doc: unknown): Promise<HTMLElement> {
  const g = (typeof doc === 'object' && doc !== null ? doc : {}) as GameDoc;
  const game = g.game_no ?? '?';
  let verdict: Verdict | null = null;
  let error: TranscriptError | Error | null = null;
  try {
    verdict = await verifyTranscript(doc);
  } catch (err) {
    error = err instanceof Error ? err : new Error(String(err));
  }
  const card = h('section', { class: `card verdict ${verdict ? 'ok' : 'bad'}` });
  if (verdict) {
    const names = g.seats?.map((s, i) => s.name ?? seatNo(i)) ?? [seatNo(0), seatNo(1)];
    const r = verdict.result;
    const summary = around('verify.summary', 'winner', { rolls: verdict.rolls, rolloff: verdict.rolloffRolls, plays: verdict.playsReplayed, points: r.points, reason: r.reason });
    // A file brings any name at all: the name is isolated (<bdi>), so right-to-left text or a
    // bidi override in it cannot reorder the verdict around it.
    card.append(
      h('h2', { text: t('verify.verified', { game }) }),
      r.winner === null
        ? h('p', { text: t('result.drawMothers') })
        : h('p', {}, summary[0], h('bdi', { class: 'winner', text: names[r.winner] ?? '?' }), summary[1]),
    );
  } else {
    const problem = error instanceof TranscriptError ? ` (${error.problem})` : '';
    card.append(h('h2', { text: t('verify.notVerified', { game, problem }) }), h('p', { class: 'why', text: error?.message ?? '' }));
  }
  if (Array.isArray(g.rolls) && g.rolls.length) {
    const list = h('ol', { class: 'rolls' });
    for (const r of g.rolls) {
      const who = r.kind === 'rolloff' ? t('verify.rolloff') : seatNo(r.roller ?? 0);
      list.append(
        h(
          'li',
          {},
          h('span', { class: 'k', text: `#${r.k}` }),
          h('span', { class: 'dv', text: ltr(`${r.d1}–${r.d2}`) }),
          h('span', { class: 'who', text: who }),
          h('code', { text: `${String(r.reveals?.[0]).slice(0, 10)}… ${String(r.reveals?.[1]).slice(0, 10)}…` }),
        ),
      );
    }
    card.append(h('details', { class: 'fairness' }, h('summary', { text: t('verify.rolls') }), list));
  }
  return card;
}
