/** A player's rating over time as an SVG line chart (no chart library): one point per rated
 * match, the y axis with a few round ratings, the first and last dates on the x axis. */

import { t } from '../i18n';

const NS = 'http://www.w3.org/2000/svg';

function el(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const node = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

export interface Point {
  readonly at: number;
  readonly rating: number;
}

/** Round steps for the y axis: about four lines across the range. */
export function ticks(lo: number, hi: number): number[] {
  const span = Math.max(hi - lo, 1);
  const raw = span / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((f) => f * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(Math.round(v * 100) / 100);
  return out;
}

export function ratingChart(points: readonly Point[], start = 1500): SVGSVGElement {
  // Drawn at about the size it is shown, so the axis labels stay legible on a phone.
  const narrow = typeof innerWidth === 'number' && innerWidth < 600;
  const W = narrow ? 360 : 640;
  const H = narrow ? 200 : 220;
  const pad = { l: 48, r: 12, t: 12, b: 28 };
  const series = [{ at: points[0]?.at ?? 0, rating: start }, ...points];
  const values = series.map((p) => p.rating);
  let lo = Math.min(...values);
  let hi = Math.max(...values);
  if (hi - lo < 20) {
    const mid = (hi + lo) / 2;
    lo = mid - 10;
    hi = mid + 10;
  }
  const x = (i: number) => pad.l + (series.length > 1 ? (i / (series.length - 1)) * (W - pad.l - pad.r) : (W - pad.l - pad.r) / 2);
  const y = (r: number) => pad.t + (1 - (r - lo) / (hi - lo)) * (H - pad.t - pad.b);
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'rating-chart', role: 'img' }) as SVGSVGElement;
  svg.append(el('title', {}, t('profile.chartTitle', { n: points.length })));
  for (const v of ticks(lo, hi)) {
    svg.append(el('line', { x1: pad.l, x2: W - pad.r, y1: y(v), y2: y(v), class: 'grid' }));
    svg.append(el('text', { x: pad.l - 6, y: y(v) + 4, 'text-anchor': 'end', class: 'axis' }, String(Math.round(v))));
  }
  const path = series.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ');
  svg.append(el('path', { d: path, class: 'line' }));
  series.forEach((p, i) => {
    if (i === 0) return;
    const dot = el('circle', { cx: x(i), cy: y(p.rating), r: 3.5, class: 'dot' });
    dot.append(el('title', {}, `${p.rating.toFixed(2)} · ${new Date(p.at).toLocaleDateString()}`));
    svg.append(dot);
  });
  if (points.length) {
    const day = (t: number) => new Date(t).toLocaleDateString();
    svg.append(el('text', { x: pad.l, y: H - 8, class: 'axis' }, day(points[0]!.at)));
    svg.append(el('text', { x: W - pad.r, y: H - 8, 'text-anchor': 'end', class: 'axis' }, day(points[points.length - 1]!.at)));
  }
  return svg;
}
