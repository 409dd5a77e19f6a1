/**
 * A rollout on the analysis board: its progress bar, its figures with their 95% intervals (which
 * narrow as batches land), a Cancel button for its owner, and its link. Polls the server
 * (net/rolloutApi.ts) until the rollout ends.
 */

import { AnalyseError } from '../net/analyseApi';
import { generalRefusal, refusalText } from '../net/refusals';
import { type EstimateDoc, FINAL, type RolloutDoc, cancelRollout, fetchRollout } from '../net/rolloutApi';
import { button, h } from '../ui/dom';
import { linkField } from './common';
import { formatNumber, ltr, t } from '../i18n';

const POLL_MS = 400;

/** An equity per locale, signed, to three places ("+0.123"). */
export const eq = (x: number | null | undefined): string =>
  x === null || x === undefined ? '–' : formatNumber(x === 0 ? 0 : x, { minimumFractionDigits: 3, maximumFractionDigits: 3, signDisplay: x >= 0 ? 'always' : 'auto' });
/** A probability as a percentage per locale, to one place ("53.2%"). */
export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? '–' : formatNumber(x, { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
const interval = (e: EstimateDoc | undefined) =>
  e && e.mean !== null ? ltr(`${eq(e.mean)} ± ${formatNumber(1.96 * (e.se ?? 0), { minimumFractionDigits: 3, maximumFractionDigits: 3 })} (${eq(e.low)} … ${eq(e.high)})`) : '–';

export class RolloutPanel {
  readonly el = h('section', { class: 'card an-rollout', 'aria-label': t('rollout.title'), hidden: '' });
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
    this.el.replaceChildren(h('h2', { text: what ? t('rollout.of', { play: ltr(what) }) : t('rollout.title') }), h('p', { class: 'ro-status', text: t('rollout.starting') }));
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
      this.el.replaceChildren(h('h2', { text: t('rollout.title') }), h('p', { class: 'ro-status error', text: err instanceof AnalyseError ? refusalText(err.code, err.message) : generalRefusal() }));
      return;
    }
    if (id !== this.id) return;
    this.last = doc;
    this.render(doc, what);
    if (!FINAL.includes(doc.status)) this.timer = setTimeout(() => void this.poll(what), POLL_MS);
  }

  private render(doc: RolloutDoc, what: string | null): void {
    const p = doc.progress;
    const bar = h('progress', { class: 'ro-bar', max: String(p.of), value: String(Math.min(p.of, p.trials + p.running)), 'aria-label': t('rollout.bar') });
    const f = doc.figures;
    const rows: [string, string][] = [];
    if (f.subject === 'play') {
      rows.push([t('rollout.equity95'), interval(f.equity)], [t('rollout.cubeless'), interval(f.cubeless)]);
    } else {
      rows.push([t('rollout.noDouble95'), interval(f.no_double)], [t('analyse.doubleTake'), interval(f.double_take)], [t('analyse.doublePass'), eq(f.double_pass)]);
      if (f.action) rows.push([t('analyse.rightAction'), t('rollout.actionAnswer', { action: f.action, answer: f.answer ?? '–' })]);
      rows.push([t('rollout.cubeless'), interval(f.cubeless)]);
    }
    rows.push([t('analyse.winChances'), t('analyse.three', { a: pct(f.win), b: pct(f.gammon), c: pct(f.backgammon) })]);
    const table = h('table', { class: 'an-cube ro-figures' });
    if (f.trials) for (const [k, v] of rows) table.append(h('tr', {}, h('th', { text: k }), h('td', { text: v })));
    const status = h('p', { class: `ro-status ${doc.status}`, text: t('rollout.progress', { status: doc.status, trials: p.trials, of: p.of, cut: doc.spec.truncation ? 'yes' : 'no', at: doc.spec.truncation ?? 0 }) + (doc.message ? ` · ${doc.message}` : '') });
    const kids: Node[] = [h('h2', { text: what ? t('rollout.of', { play: ltr(what) }) : doc.spec.play ? t('rollout.ofPlay') : t('rollout.ofPosition') }), bar, status, table];
    if (doc.mine && !FINAL.includes(doc.status)) {
      const stop = button(t('common.cancel'), 'btn ghost ro-cancel');
      stop.addEventListener('click', async () => {
        stop.disabled = true;
        await cancelRollout(doc.rollout).catch(() => undefined);
      });
      kids.push(stop);
    }
    kids.push(linkField(t('rollout.link'), `${location.origin}${doc.page}`, 'rolloutlink'));
    this.el.replaceChildren(...kids);
  }
}
