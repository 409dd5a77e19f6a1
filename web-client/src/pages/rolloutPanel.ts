/**
 * A rollout on the analysis board: its progress bar, its figures with their 95% intervals (which
 * narrow as batches land), a Cancel button for its owner, and its link. Polls the server
 * (net/rolloutApi.ts) until the rollout ends.
 */

import { AnalyseError } from '../net/analyseApi';
import { type EstimateDoc, FINAL, type RolloutDoc, cancelRollout, fetchRollout } from '../net/rolloutApi';
import { button, h } from '../ui/dom';
import { linkField } from './common';

const POLL_MS = 400;

const eq = (x: number | null | undefined) => (x === null || x === undefined ? '–' : (x >= 0 ? '+' : '') + x.toFixed(3));
const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)}%`);
const interval = (e: EstimateDoc | undefined) => (e && e.mean !== null ? `${eq(e.mean)} ± ${(1.96 * (e.se ?? 0)).toFixed(3)} (${eq(e.low)} … ${eq(e.high)})` : '–');

const STATUS: Record<RolloutDoc['status'], string> = {
  queued: 'Queued',
  running: 'Rolling out',
  done: 'Done',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

export class RolloutPanel {
  readonly el = h('section', { class: 'card an-rollout', 'aria-label': 'Rollout', hidden: '' });
  private id: string | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The last state read (tests read it). */
  last: RolloutDoc | null = null;

  /** Follow rollout `id` (`what`: the play's notation, or null for the position). */
  show(id: string, what: string | null): void {
    this.stop();
    this.id = id;
    this.last = null;
    this.el.hidden = false;
    this.el.replaceChildren(h('h2', { text: what ? `Rollout of ${what}` : 'Rollout' }), h('p', { class: 'ro-status', text: 'Starting…' }));
    void this.poll(what);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.id = null;
  }

  private async poll(what: string | null): Promise<void> {
    const id = this.id;
    if (!id) return;
    let doc: RolloutDoc;
    try {
      doc = await fetchRollout(id);
    } catch (err) {
      if (id !== this.id) return;
      this.el.replaceChildren(h('h2', { text: 'Rollout' }), h('p', { class: 'ro-status error', text: err instanceof AnalyseError ? `${err.message} (${err.code})` : String(err) }));
      return;
    }
    if (id !== this.id) return;
    this.last = doc;
    this.render(doc, what);
    if (!FINAL.includes(doc.status)) this.timer = setTimeout(() => void this.poll(what), POLL_MS);
  }

  private render(doc: RolloutDoc, what: string | null): void {
    const p = doc.progress;
    const bar = h('progress', { class: 'ro-bar', max: String(p.of), value: String(Math.min(p.of, p.trials + p.running)), 'aria-label': 'Games rolled out' });
    const f = doc.figures;
    const rows: [string, string][] = [];
    if (f.subject === 'play') {
      rows.push(['Equity (95%)', interval(f.equity)], ['Cubeless', interval(f.cubeless)]);
    } else {
      rows.push(['No double (95%)', interval(f.no_double)], ['Double, take', interval(f.double_take)], ['Double, pass', eq(f.double_pass)]);
      if (f.action) rows.push(['Right action', `${f.action.replace('_', ', ')} · answer ${f.answer ?? '–'}`]);
      rows.push(['Cubeless', interval(f.cubeless)]);
    }
    rows.push(['Win · gammon · backgammon', `${pct(f.win)} · ${pct(f.gammon)} · ${pct(f.backgammon)}`]);
    const table = h('table', { class: 'an-cube ro-figures' });
    if (f.trials) for (const [k, v] of rows) table.append(h('tr', {}, h('th', { text: k }), h('td', { text: v })));
    const status = h('p', { class: `ro-status ${doc.status}`, text: `${STATUS[doc.status]} · ${p.trials} of ${p.of} games${doc.spec.truncation ? ` · truncated at ${doc.spec.truncation}` : ' · to the end'}${doc.message ? ` · ${doc.message}` : ''}` });
    const kids: Node[] = [h('h2', { text: what ? `Rollout of ${what}` : doc.spec.play ? 'Rollout of a play' : 'Rollout of the position' }), bar, status, table];
    if (doc.mine && !FINAL.includes(doc.status)) {
      const stop = button('Cancel', 'btn ghost ro-cancel');
      stop.addEventListener('click', async () => {
        stop.disabled = true;
        await cancelRollout(doc.rollout).catch(() => undefined);
      });
      kids.push(stop);
    }
    kids.push(linkField('Link to this rollout', `${location.origin}${doc.page}`, 'rolloutlink'));
    this.el.replaceChildren(...kids);
  }
}
