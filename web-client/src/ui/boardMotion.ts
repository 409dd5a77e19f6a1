/** Motion: checkers slide from where they were, new dice tumble in; none under reduced motion. */

import { FIELD_BOTTOM, FIELD_TOP, TRAY_W, TRAY_X, barCenter, checkerCenter } from './geometry';
import type { Scene } from './scene';

const f = (n: number) => (Math.round(n * 10) / 10).toString();

/** Where the top checker of `seat` on `place` is drawn when `count` checkers are there. */
function topAt(scene: Scene, seat: number, place: number, count: number): { x: number; y: number } {
  const isBottom = seat === scene.bottom;
  if (place === 25) return barCenter(isBottom, Math.max(0, count - 1));
  if (place === 0) return { x: TRAY_X + TRAY_W / 2, y: isBottom ? FIELD_BOTTOM - 40 : FIELD_TOP + 40 };
  return checkerCenter(place, Math.max(0, count - 1));
}

/** Slide the checkers that moved since the last scene (a step, an undo, a hit). */
export function animateChanges(dyn: SVGGElement, before: Scene | null, after: Scene): void {
  if (!before || typeof matchMedia === 'undefined') return;
  if (matchMedia('(prefers-reduced-motion: reduce)').matches) return;
  if (before.bottom !== after.bottom) return;
  const counts = (s: Scene, seat: number) => {
    const c = new Map<number, number>();
    for (let p = 1; p <= 24; p++) {
      const st = s.points[p];
      c.set(p, st && st.seat === seat ? st.count : 0);
    }
    c.set(25, s.bar[seat]!);
    c.set(0, s.off[seat]!);
    return c;
  };
  for (const seat of [0, 1]) {
    const a = counts(before, seat);
    const b = counts(after, seat);
    const losses: number[] = [];
    const gains: number[] = [];
    for (const [place, n] of a) {
      const d = b.get(place)! - n;
      for (let i = 0; i < -d; i++) losses.push(place);
      for (let i = 0; i < d; i++) gains.push(place);
    }
    if (losses.length === 0 || losses.length !== gains.length || losses.length > 4) continue;
    gains.forEach((to, i) => {
      const from = losses[i]!;
      if (to === 0) return; // borne off: the slab simply appears
      const node = dyn.querySelector<SVGGElement>(`[data-key="s${seat}-p${to}"]`);
      if (!node) return;
      const p = topAt(before, seat, from, a.get(from)!);
      const q = topAt(after, seat, to, b.get(to)!);
      node.animate(
        [{ transform: `translate(${f(p.x)}px, ${f(p.y)}px)` }, { transform: `translate(${f(q.x)}px, ${f(q.y)}px)` }],
        { duration: 220, easing: 'cubic-bezier(0.2, 0.8, 0.2, 1)' },
      );
    });
  }
  const d = after.dice;
  if (d && (!before.dice || before.dice.k !== d.k)) {
    dyn.querySelectorAll<SVGGElement>('.die').forEach((die, i) => {
      const t = die.getAttribute('transform')!.match(/translate\(([-\d.]+),([-\d.]+)\)/);
      if (!t) return;
      const at = `translate(${t[1]}px, ${t[2]}px)`;
      die.animate(
        [
          { transform: `${at} rotate(${i % 2 ? -160 : 160}deg) scale(0.6)`, opacity: 0 },
          { transform: `${at} rotate(0deg) scale(1)`, opacity: 1 },
        ],
        { duration: 320, easing: 'cubic-bezier(0.2, 0.8, 0.2, 1)', delay: i * 40, fill: 'backwards' },
      );
    });
  }
}
