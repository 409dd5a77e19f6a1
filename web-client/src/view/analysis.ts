/**
 * A game's analysis as the server sends it (`analysis.json`, docs/analysis.md), and what the
 * screens derive from it: the marks of the move record and the series of the chart. Pure.
 */

import { t as tr } from '../i18n';

/** A mistake the analysis found, as the move record marks it: `?` (error) and `??` (blunder). */
export type Mark = 'error' | 'blunder';

export interface PlayerAnalysis {
  readonly seat: 0 | 1;
  readonly decisions: number;
  readonly checker_decisions: number;
  readonly cube_decisions: number;
  /** Resignations offered, accepted or rejected (docs/analysis.md). */
  readonly resign_decisions: number;
  readonly total_error: number;
  readonly error_rate: number;
  readonly pr: number;
  readonly errors: number;
  readonly blunders: number;
  readonly luck: number;
  readonly rolls: number;
  readonly result: number;
  readonly luck_adjusted: number;
}

export interface TurnAnalysis {
  readonly seat: 0 | 1;
  readonly action: string;
  readonly dice: readonly [number, number] | null;
  readonly played: string | null;
  readonly best: string | null;
  readonly played_text: string | null;
  readonly best_text: string | null;
  readonly equity_lost: number | null;
  readonly best_action: string | null;
  readonly cube_lost: number | null;
  readonly luck: number | null;
  readonly equity: number | null;
  readonly forced: boolean;
  readonly plays: number;
  readonly mark: Mark | null;
}

export type AnalysisDoc =
  | { readonly status: 'pending'; readonly level: string; readonly progress: readonly [number, number] | null }
  | {
      readonly status: 'done';
      readonly level: string;
      /** True on a first (1-ply) report whose deeper pass is queued: it will be replaced. */
      readonly deeper?: boolean;
      readonly players: readonly [PlayerAnalysis, PlayerAnalysis];
      readonly turns: readonly TurnAnalysis[];
    }
  /** No analysis for this game (docs/analysis.md): e.g. `reason` 'variant', a variant the nets
   * do not know (plakoto, fevga, hypergammon). */
  | { readonly status: 'unavailable'; readonly reason: string; readonly variant?: string; readonly message?: string };

export type DoneAnalysis = Extract<AnalysisDoc, { status: 'done' }>;

/** Polls while the workers run: every second at first, then less often (no worker may be up). */
export const POLL_MS = 1000;
export const POLL_MAX_MS = 8000;
/** Once a first report is shown whose deeper pass is queued: every few seconds, for a while. */
export const DEEPER_POLL_MS = 3000;
export const DEEPER_POLLS = 200;

/**
 * How long to wait before asking for analysis.json again, or null to stop: while the report is
 * pending (or could not be read), and while the report shown says a deeper one will replace it
 * (`deeper`), so that a page left open switches to the deeper figures when they land. `polls`
 * counts the polls made so far in the current phase.
 */
export function nextPoll(doc: AnalysisDoc | null, polls: number): number | null {
  if (doc?.status === 'unavailable') return null;
  if (doc?.status === 'done') return doc.deeper && polls < DEEPER_POLLS ? DEEPER_POLL_MS : null;
  return Math.min(POLL_MAX_MS, POLL_MS * 2 ** Math.max(0, Math.floor(polls / 10)));
}

/** The record's marks by entry index (the analysis has one turn per record entry, the game's end excepted). */
export function recordMarks(doc: DoneAnalysis): Map<number, Mark> {
  const marks = new Map<number, Mark>();
  doc.turns.forEach((t, i) => {
    if (t.mark) marks.set(i, t.mark);
  });
  return marks;
}

export interface ChartPoint {
  /** The record entry (turn index). */
  readonly i: number;
  /** Seat 0's equity after the turn. */
  readonly equity: number;
  /** Seat 0's luck so far minus seat 1's (points). */
  readonly luck: number;
  readonly mark: Mark | null;
  readonly seat: 0 | 1;
}

/** The chart's series: one point per turn, from the start (0, 0). */
export function chartSeries(doc: DoneAnalysis): ChartPoint[] {
  const out: ChartPoint[] = [];
  let luck = 0;
  let equity = 0;
  doc.turns.forEach((t, i) => {
    if (t.luck !== null) luck += t.seat === 0 ? t.luck : -t.luck;
    if (t.equity !== null) equity = t.equity;
    out.push({ i, equity, luck, mark: t.mark, seat: t.seat });
  });
  return out;
}

/** A number with its sign, for luck and results (`+0.42`, `−1.10`). */
export function signed(x: number, digits = 2): string {
  const s = Math.abs(x).toFixed(digits);
  return x > 0.00049 ? `+${s}` : x < -0.00049 ? `−${s}` : s;
}

/** What a turn's verdict says in words, or null when nothing was judged. */
export function verdict(t: TurnAnalysis): string | null {
  const parts: string[] = [];
  const lost = (x: number) => x.toFixed(3);
  if (t.cube_lost !== null && t.cube_lost > 0) parts.push(tr('verdict.shouldDouble', { lost: lost(t.cube_lost) }));
  if (t.action === 'move' && t.forced) parts.push(tr('verdict.forced'));
  else if (t.action === 'move' && t.equity_lost !== null) parts.push(t.equity_lost > 0 ? tr('verdict.lost', { lost: lost(t.equity_lost), best: t.best_text ?? '' }) : tr('verdict.bestPlay'));
  if (['double', 'take', 'drop', 'beaver', 'accept', 'reject'].includes(t.action) && t.equity_lost !== null) {
    parts.push(t.equity_lost > 0 ? tr('verdict.wrong', { right: t.best_action ?? '', lost: lost(t.equity_lost) }) : tr('verdict.right'));
  }
  // A resignation that gave away more than the position was worth, and its answer.
  if (t.action === 'resign' && t.equity_lost !== null) {
    parts.push(t.equity_lost > 0 ? tr('verdict.gaveAway', { lost: lost(t.equity_lost) }) : tr('verdict.rightToResign'));
  }
  if (t.luck !== null) parts.push(tr('verdict.luck', { luck: signed(t.luck, 3) }));
  if (!parts.length) return null;
  // The clauses are whole messages, listed; the mark heads the list.
  return tr('verdict.line', { mark: t.mark ?? 'none', parts: parts.join(' · ') });
}
