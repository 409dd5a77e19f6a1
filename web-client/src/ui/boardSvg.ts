/**
 * The SVG board. A static layer (frame, felt, points, numbers, focusable hit areas) is built
 * once; the dynamic layer (checkers, highlights, dice, cube) is redrawn from a Scene. Input is
 * reported as places (bottom seat's numbering: 1..24, 25 bar, 0 tray): taps and drags.
 */

import { t } from '../i18n';
import {
  BAND,
  BAR_W,
  BAR_X,
  FIELD_BOTTOM,
  FIELD_TOP,
  H,
  MID_Y,
  POINT_H,
  POINT_W,
  TRAY_W,
  TRAY_X,
  W,
  placeAt,
  pointGeom,
} from './geometry';
import { type SvgNode, checkerNode, node, sceneNodes, staticNodes } from './boardNodes';
import { animateChanges } from './boardMotion';
import type { Scene } from './scene';

const NS = 'http://www.w3.org/2000/svg';

/** The element `n` describes, built through the DOM: attribute values and text are set as
 * data (setAttribute, textContent), never parsed as markup. */
function build(n: SvgNode): SVGElement {
  const made = document.createElementNS(NS, n.tag);
  for (const k in n.attrs) made.setAttribute(k, String(n.attrs[k]));
  if (n.text !== undefined) made.textContent = n.text;
  if (n.kids) for (const kid of n.kids) made.appendChild(build(kid));
  return made;
}

/** An element of the board's own layers (svg, groups, hit areas), typed by its tag. */
function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  return build(node(tag, attrs)) as SVGElementTagNameMap[K];
}

/** Replace the children of `parent` with the elements `nodes` describe (one DOM insertion). */
function show(parent: Element, nodes: readonly SvgNode[]): void {
  parent.replaceChildren(...nodes.map(build));
}

export interface BoardInput {
  /** A tap, click, or Enter/Space on a place. */
  place(place: number): void;
  /** A checker dragged from one place and dropped on another. */
  drop(from: number, to: number): void;
  /** A drag began from `from` (select it so destinations light up). */
  dragStart(from: number): void;
}

export class BoardSvg {
  readonly el: SVGSVGElement;
  private readonly dyn: SVGGElement;
  private readonly ghost: SVGGElement;
  private readonly hits = new Map<number, SVGRectElement>();
  private scene: Scene | null = null;
  /** The scene last drawn, to animate what changed since. */
  private shown: Scene | null = null;
  /** The last change came from a drag: the checker is already where it was dropped. */
  private dropped = false;
  private drag: { from: number; x: number; y: number; moved: boolean; id: number } | null = null;
  private names: readonly [string, string] = ['Ivory', 'Copper'];
  focused = 1;

  constructor(private readonly input: BoardInput) {
    this.el = el('svg', {
      viewBox: `0 0 ${W} ${H}`,
      class: 'board',
      role: 'group',
      'aria-label': t('board.label'),
      'aria-roledescription': 'board',
    });
    show(this.el, staticNodes());
    this.dyn = el('g', { class: 'dyn' });
    this.ghost = el('g', { class: 'ghost', 'aria-hidden': 'true' });
    this.el.append(this.dyn);
    const hitLayer = el('g', { class: 'hits' });
    for (let p = 1; p <= 24; p++) {
      const g = pointGeom(p);
      const y = g.bottom ? MID_Y : FIELD_TOP;
      this.addHit(hitLayer, p, g.x, y, POINT_W, POINT_H + BAND / 2);
    }
    this.addHit(hitLayer, 25, BAR_X, FIELD_TOP, BAR_W, FIELD_BOTTOM - FIELD_TOP);
    this.addHit(hitLayer, 0, TRAY_X, FIELD_TOP, TRAY_W, FIELD_BOTTOM - FIELD_TOP);
    this.el.append(hitLayer, this.ghost);
    this.hits.get(1)!.setAttribute('tabindex', '0');
    this.el.addEventListener('pointerdown', (e) => this.onPointerDown(e));
    this.el.addEventListener('pointermove', (e) => this.onPointerMove(e));
    this.el.addEventListener('pointerup', (e) => this.onPointerUp(e));
    this.el.addEventListener('pointercancel', () => this.endDrag());
  }

  private addHit(layer: SVGGElement, place: number, x: number, y: number, w: number, h: number): void {
    const rect = el('rect', {
      x,
      y,
      width: w,
      height: h,
      class: 'hit',
      role: 'button',
      tabindex: '-1',
      'data-place': place,
    });
    rect.addEventListener('focus', () => {
      this.focused = place;
      this.syncFocus();
    });
    // The ring goes when the focus leaves the board.
    rect.addEventListener('blur', () => queueMicrotask(() => this.syncFocus()));
    layer.append(rect);
    this.hits.set(place, rect);
  }

  setNames(names: readonly [string, string]): void {
    this.names = names;
  }

  /** Redraw the dynamic layer and the labels from `scene`. */
  render(scene: Scene): void {
    this.scene = scene;
    const previous = this.shown;
    show(this.dyn, sceneNodes(scene, this.names));
    this.shown = scene;
    if (!this.dropped) animateChanges(this.dyn, previous, scene);
    this.updateLabels(scene);
    this.syncFocus();
  }

  private updateLabels(scene: Scene): void {
    const targets = new Set(scene.targets);
    for (const [place, rect] of this.hits) {
      const state = {
        mark: scene.selected === place ? 'selected' : scene.movable.includes(place) ? 'movable' : 'none',
        target: targets.has(place) ? 'yes' : 'no',
      };
      let text: string;
      if (place === 25) {
        text = t('board.barLabel', { n: scene.bar[scene.bottom]!, name: this.names[scene.bottom], m: scene.bar[scene.top]!, other: this.names[scene.top], ...state });
      } else if (place === 0) {
        text = t('board.offLabel', { n: scene.off[scene.bottom]!, name: this.names[scene.bottom], ...state });
      } else {
        const s = scene.points[place];
        text = t('board.pointLabel', { point: String(place), n: s ? s.count : 0, name: s ? this.names[s.seat] : '', ...state });
      }
      rect.setAttribute('aria-label', text);
      rect.classList.toggle('is-target', targets.has(place));
    }
  }

  /** Move the keyboard focus to a place (roving tabindex). */
  focus(place: number): void {
    const rect = this.hits.get(place);
    if (!rect) return;
    this.focused = place;
    for (const r of this.hits.values()) r.setAttribute('tabindex', '-1');
    rect.setAttribute('tabindex', '0');
    rect.focus({ preventScroll: true });
    this.syncFocus();
  }

  hasFocus(): boolean {
    return this.el.contains(document.activeElement);
  }

  private syncFocus(): void {
    // Only a keyboard focus shows the ring (a tap focuses the place too, without it).
    for (const [place, r] of this.hits) {
      r.classList.toggle('kbd', place === this.focused && r === document.activeElement && r.matches(':focus-visible'));
    }
  }

  // ---- pointer input ----------------------------------------------------------------------

  private svgPoint(e: PointerEvent): { x: number; y: number } {
    const m = this.el.getScreenCTM();
    if (!m) return { x: 0, y: 0 };
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return { x: p.x, y: p.y };
  }

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0) return;
    const { x, y } = this.svgPoint(e);
    const place = placeAt(x, y);
    if (place === null) return;
    const scene = this.scene;
    if (scene && scene.interactive && scene.movable.includes(place) && !scene.targets.includes(place)) {
      this.drag = { from: place, x, y, moved: false, id: e.pointerId };
    } else {
      this.input.place(place);
    }
  }

  private onPointerMove(e: PointerEvent): void {
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.id) return;
    const { x, y } = this.svgPoint(e);
    if (!drag.moved && Math.hypot(x - drag.x, y - drag.y) > 10) {
      drag.moved = true;
      this.el.setPointerCapture(e.pointerId);
      this.el.classList.add('dragging');
      this.input.dragStart(drag.from);
    }
    if (drag.moved) {
      const seat = this.scene?.mover ?? 0;
      show(this.ghost, [checkerNode(seat, x, y, ' lifted', 'dragged checker')]);
    }
  }

  private onPointerUp(e: PointerEvent): void {
    const drag = this.drag;
    if (!drag || e.pointerId !== drag.id) return;
    this.endDrag();
    if (!drag.moved) {
      this.input.place(drag.from);
      return;
    }
    const { x, y } = this.svgPoint(e);
    const to = placeAt(x, y);
    this.dropped = true;
    if (to !== null && to !== drag.from) this.input.drop(drag.from, to);
    this.dropped = false;
  }

  private endDrag(): void {
    this.drag = null;
    this.ghost.replaceChildren();
    this.el.classList.remove('dragging');
  }
}
