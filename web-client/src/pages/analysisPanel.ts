/**
 * The analysis of a finished game beside the board: both players' error rate, PR, errors and
 * blunders, luck and luck-adjusted result, and the chart of equity and luck over the game.
 * While the server's workers run it shows their progress (polling analysis.json); a first
 * report whose deeper pass is queued is replaced by the deeper one when it lands. On the replay
 * board it also says what the shown turn was worth and can show the best play.
 */

import { isVariantName } from '../engine/variants';
import { variantName } from '../ui/variantNames';
import { t } from '../i18n';
import { refusalText } from '../net/refusals';
import { renderChart } from '../ui/analysisChart';
import { button, h } from '../ui/dom';
import type { Mark } from '../ui/moveRecord';
import { type AnalysisDoc, type DoneAnalysis, chartSeries, nextPoll, recordMarks, signed, verdict } from '../view/analysis';

export const analysisPath = (match: string, game: number): string => `/api/matches/${match}/games/${game}/analysis.json`;

export class AnalysisPanel {
  readonly el = h('section', { class: 'analysis', 'aria-label': t('analysis.title') });
  /** Called when the analysis arrives (the record's marks change). */
  onChange: () => void = () => undefined;
  /** Show this Position ID (the best play, seen by `seat`) on the board, or the real one (null). */
  onBest: ((best: { id: string; seat: 0 | 1 } | null) => void) | null = null;
  private doc: AnalysisDoc | null = null;
  private failure: string | null = null;
  private current: number | null = null;
  private showingBest = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private polls = 0;

  constructor(
    matchId: string,
    private readonly game: number,
    private readonly names: readonly [string, string],
    private readonly withTurns: boolean,
    /** Where the report is read (an imported game's is under /api/imports). */
    private readonly path: string = analysisPath(matchId, game),
  ) {}

  start(): void {
    void this.poll();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  }

  get done(): DoneAnalysis | null {
    return this.doc?.status === 'done' ? this.doc : null;
  }

  marks(): Map<number, Mark> | undefined {
    const d = this.done;
    return d ? recordMarks(d) : undefined;
  }

  /** The replay shows record entry `index` (−1: the start). */
  show(index: number): void {
    if (index !== this.current && this.showingBest) {
      this.showingBest = false;
      this.onBest?.(null);
    }
    this.current = index;
    this.render();
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    try {
      const response = await fetch(this.path, { cache: 'no-store' });
      const body = (await response.json()) as AnalysisDoc & { message?: string };
      if (!response.ok) {
        this.failure = refusalText(String((body as { error?: unknown }).error ?? ''), body.message ?? '');
      } else {
        this.failure = null;
        const was = this.doc;
        this.doc = body;
        if (body.status === 'done' && (was?.status !== 'done' || was.level !== body.level)) {
          // A new report (the first, or the deeper one replacing it): marks and figures change.
          this.polls = 0;
          this.onChange();
        }
      }
    } catch (err) {
      this.failure = t('refusal.offline');
    }
    this.render();
    const wait = nextPoll(this.doc, this.polls);
    if (wait !== null && !this.stopped) {
      this.polls++;
      this.timer = setTimeout(() => void this.poll(), wait);
    }
  }

  private render(): void {
    const kids: Node[] = [h('h2', { class: 'analysis-title', text: this.withTurns ? t('analysis.title') : t('analysis.titleGame', { game: this.game }) })];
    const doc = this.doc;
    if (doc === null || doc.status === 'pending') {
      const p = doc?.status === 'pending' ? doc.progress : null;
      const text = this.failure ? t('analysis.unavailable', { why: this.failure }) : p ? t('analysis.progress', { done: p[0], total: p[1] }) : t('analysis.pending');
      kids.push(h('p', { class: 'analysis-pending', role: 'status', text }));
      if (p) {
        const bar = h('progress', { max: String(p[1]), value: String(p[0]) });
        kids.push(bar);
      }
      this.el.replaceChildren(...kids);
      return;
    }
    if (doc.status === 'unavailable') {
      // A game the analysis cannot read (a variant its nets do not know): say so, no figures.
      const why = doc.reason === 'variant' && doc.variant && isVariantName(doc.variant) ? t('analysis.noVariant', { variant: variantName(doc.variant) }) : (doc.message ?? doc.reason);
      kids.push(h('p', { class: 'analysis-pending', role: 'status', text: t('analysis.unavailable', { why }) }));
      this.el.replaceChildren(...kids);
      return;
    }
    kids.push(this.summary(doc), this.chart(doc));
    if (this.withTurns) kids.push(this.turnLine(doc));
    kids.push(h('p', { class: 'analysis-note', text: t('analysis.note', { level: doc.level }) }));
    this.el.replaceChildren(...kids);
  }

  private summary(doc: DoneAnalysis): HTMLElement {
    const [a, b] = doc.players;
    const row = (label: string, f: (p: typeof a) => string, title?: string) =>
      h('tr', title ? { title } : {}, h('th', { scope: 'row', text: label }), h('td', { text: f(a) }), h('td', { text: f(b) }));
    return h(
      'table',
      { class: 'analysis-summary' },
      h('thead', {}, h('tr', {}, h('th', {}), h('th', { scope: 'col', text: this.names[0] }), h('th', { scope: 'col', text: this.names[1] }))),
      h(
        'tbody',
        {},
        row(t('analysis.errorRate'), (p) => `${p.error_rate.toFixed(1)}`, t('analysis.errorRateTitle')),
        row(t('analysis.pr'), (p) => p.pr.toFixed(1), t('analysis.prTitle')),
        row(t('analysis.decisions'), (p) => `${p.decisions}`),
        row(t('analysis.errorsBlunders'), (p) => `${p.errors} · ${p.blunders}`, t('analysis.errorsBlundersTitle')),
        row(t('analysis.luck'), (p) => signed(p.luck), t('analysis.luckTitle')),
        row(t('analysis.result'), (p) => signed(p.result, 0)),
        row(t('analysis.luckAdjusted'), (p) => signed(p.luck_adjusted), t('analysis.luckAdjustedTitle')),
      ),
    );
  }

  private chart(doc: DoneAnalysis): HTMLElement {
    const svg = renderChart(chartSeries(doc), this.names, this.withTurns ? this.current : null);
    const legend = h(
      'p',
      { class: 'chart-legend' },
      h('span', { class: 'key equity' }),
      t('analysis.equityOf', { name: this.names[0] }),
      h('span', { class: 'key luck' }),
      t('analysis.luckOf', { a: this.names[0], b: this.names[1] }),
    );
    return h('figure', { class: 'analysis-figure' }, svg, legend);
  }

  private turnLine(doc: DoneAnalysis): HTMLElement {
    const box = h('div', { class: 'analysis-turn', 'aria-live': 'polite' });
    const i = this.current;
    const turn = i !== null && i >= 0 ? doc.turns[i] : undefined;
    if (!turn) {
      box.append(h('p', { text: t('analysis.stepThrough') }));
      return box;
    }
    const words = verdict(turn);
    box.append(h('p', { class: turn.mark ? `verdict ${turn.mark}` : 'verdict', text: t('analysis.verdictOf', { name: this.names[turn.seat], words: words ?? 'none' }) }));
    if (turn.action === 'move' && turn.best && turn.played && turn.best !== turn.played && this.onBest) {
      const toggle = button(this.showingBest ? t('analysis.showMade') : t('analysis.showBest'), 'btn ghost show-best');
      toggle.addEventListener('click', () => {
        this.showingBest = !this.showingBest;
        this.onBest?.(this.showingBest ? { id: turn.best!, seat: turn.seat } : null);
        this.render();
      });
      box.append(toggle);
    }
    return box;
  }
}
