/**
 * The game's chart as plain SVG (no chart library): seat 0's equity after each turn (solid) and
 * the luck so far, seat 0's minus seat 1's (dashed), with the mistakes as dots (amber: error,
 * red: blunder) and the replay's current turn as a vertical line. Above the middle line seat 0
 * is ahead, below it seat 1.
 */

import { t } from '../i18n';
import type { ChartPoint } from '../view/analysis';

const NS = 'http://www.w3.org/2000/svg';
const W = 320;
const H = 150;
const PAD = { l: 26, r: 6, t: 14, b: 14 };

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

export function renderChart(points: readonly ChartPoint[], names: readonly [string, string], current: number | null): SVGSVGElement {
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'analysis-chart', role: 'img' });
  const title = el('title', {});
  title.textContent = t('analysis.chartTitle', { a: names[0], b: names[1] });
  svg.append(title);
  const extent = Math.max(1, ...points.map((p) => Math.abs(p.equity)), ...points.map((p) => Math.abs(p.luck)));
  const top = Math.ceil(extent);
  const n = Math.max(1, points.length);
  const x = (i: number) => PAD.l + ((W - PAD.l - PAD.r) * (i + 1)) / n;
  const y = (v: number) => PAD.t + ((H - PAD.t - PAD.b) * (top - v)) / (2 * top);
  const x0 = PAD.l;
  svg.append(el('rect', { x: PAD.l, y: PAD.t, width: W - PAD.l - PAD.r, height: H - PAD.t - PAD.b, class: 'chart-bg' }));
  for (const v of [top, 0, -top]) {
    svg.append(el('line', { x1: PAD.l, x2: W - PAD.r, y1: y(v), y2: y(v), class: v === 0 ? 'chart-zero' : 'chart-grid' }));
    const label = el('text', { x: PAD.l - 4, y: y(v) + 3, class: 'chart-label', 'text-anchor': 'end' });
    label.textContent = v > 0 ? `+${v}` : `${v}`;
    svg.append(label);
  }
  const who = (text: string, v: number) => {
    const node = el('text', { x: PAD.l + 4, y: v, class: 'chart-name' });
    node.textContent = text;
    svg.append(node);
  };
  who(t('analysis.ahead', { name: names[0] }), PAD.t + 10);
  who(t('analysis.ahead', { name: names[1] }), H - PAD.b - 4);
  if (current !== null && current >= 0 && current < points.length) {
    svg.append(el('line', { x1: x(current), x2: x(current), y1: PAD.t, y2: H - PAD.b, class: 'chart-now' }));
  }
  const line = (values: number[], cls: string) => {
    const d = [`M${x0},${y(0)}`, ...values.map((v, i) => `L${x(i).toFixed(1)},${y(v).toFixed(1)}`)].join(' ');
    svg.append(el('path', { d, class: cls }));
  };
  line(points.map((p) => p.luck), 'chart-luck');
  line(points.map((p) => p.equity), 'chart-equity');
  for (const p of points) {
    if (!p.mark) continue;
    const dot = el('circle', { cx: x(p.i).toFixed(1), cy: y(p.equity).toFixed(1), r: p.mark === 'blunder' ? 3.6 : 2.8, class: `chart-mark ${p.mark}` });
    const tip = el('title', {});
    tip.textContent = t('analysis.markBy', { mark: p.mark, name: names[p.seat]! });
    dot.append(tip);
    svg.append(dot);
  }
  return svg;
}
