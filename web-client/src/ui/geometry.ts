/**
 * Board geometry in SVG user units. The board is drawn from the bottom seat's side: its home
 * board (points 1-6) bottom right, points numbered from its side, its tray bottom right.
 * "Places" are the bottom seat's numbering: 1..24 points, 25 its bar, 0 its tray (off).
 */

export const FRAME = 28; // the wooden frame; holds the point numbers
export const POINT_W = 64;
export const BAR_W = 68;
export const TRAY_W = 72;
export const R = 29; // checker radius
export const POINT_H = 5 * 2 * R; // five checkers fit on a point
export const BAND = 70; // the middle band between the two rows of points
export const W = FRAME + 6 * POINT_W + BAR_W + 6 * POINT_W + TRAY_W + FRAME;
export const H = FRAME + POINT_H + BAND + POINT_H + FRAME;
export const MID_Y = H / 2;

export const LEFT_X = FRAME; // left half of the field
export const BAR_X = LEFT_X + 6 * POINT_W;
export const RIGHT_X = BAR_X + BAR_W;
export const TRAY_X = RIGHT_X + 6 * POINT_W;
export const FIELD_TOP = FRAME;
export const FIELD_BOTTOM = H - FRAME;

/** Number of checkers drawn on a point before the stack shows a count instead. */
export const STACK_MAX = 5;

export interface PointGeom {
  /** Left edge of the point's column. */
  readonly x: number;
  /** Centre x. */
  readonly cx: number;
  /** The row: true = bottom (points 1..12). */
  readonly bottom: boolean;
  /** y of the base (board edge) and of the tip. */
  readonly baseY: number;
  readonly tipY: number;
}

/** Where point `p` (1..24, bottom seat's numbering) is drawn. */
export function pointGeom(p: number): PointGeom {
  let x: number;
  if (p <= 6) x = RIGHT_X + (6 - p) * POINT_W;
  else if (p <= 12) x = LEFT_X + (12 - p) * POINT_W;
  else if (p <= 18) x = LEFT_X + (p - 13) * POINT_W;
  else x = RIGHT_X + (p - 19) * POINT_W;
  const bottom = p <= 12;
  return {
    x,
    cx: x + POINT_W / 2,
    bottom,
    baseY: bottom ? FIELD_BOTTOM : FIELD_TOP,
    tipY: bottom ? FIELD_BOTTOM - POINT_H : FIELD_TOP + POINT_H,
  };
}

/** Centre of the i-th checker (0 = at the edge) of a stack on point p. */
export function checkerCenter(p: number, i: number): { x: number; y: number } {
  const g = pointGeom(p);
  const k = Math.min(i, STACK_MAX - 1);
  return { x: g.cx, y: g.bottom ? g.baseY - R - k * 2 * R : g.baseY + R + k * 2 * R };
}

/** Centre of the i-th checker on a bar; the bottom seat's checkers sit below the middle. */
export function barCenter(bottomSeat: boolean, i: number): { x: number; y: number } {
  const k = Math.min(i, 3);
  const y0 = bottomSeat ? MID_Y + BAND / 2 + R : MID_Y - BAND / 2 - R;
  return { x: BAR_X + BAR_W / 2, y: bottomSeat ? y0 + k * 2 * R : y0 - k * 2 * R };
}

export const SLAB_H = 16;
export const SLAB_GAP = 2;

/** The i-th borne-off checker (seen edge-on) of a tray. */
export function slabRect(bottomSeat: boolean, i: number): { x: number; y: number; w: number; h: number } {
  const w = TRAY_W - 24;
  const x = TRAY_X + 12;
  const step = SLAB_H + SLAB_GAP;
  const y = bottomSeat ? FIELD_BOTTOM - 10 - (i + 1) * step + SLAB_GAP : FIELD_TOP + 10 + i * step;
  return { x, y, w, h: SLAB_H };
}

/** The place (1..24 point, 25 bar, 0 tray) under an SVG coordinate, for the bottom seat. */
export function placeAt(x: number, y: number): number | null {
  if (x >= TRAY_X && x < TRAY_X + TRAY_W) return 0; // either tray: off for whoever moves
  if (x >= BAR_X && x < BAR_X + BAR_W) return 25;
  const bottom = y > MID_Y;
  let col: number | null = null;
  let right = false;
  if (x >= LEFT_X && x < BAR_X) col = Math.floor((x - LEFT_X) / POINT_W);
  else if (x >= RIGHT_X && x < TRAY_X) {
    col = Math.floor((x - RIGHT_X) / POINT_W);
    right = true;
  }
  if (col === null) return null;
  if (bottom) return right ? 6 - col : 12 - col;
  return right ? 19 + col : 13 + col;
}

/** Keyboard grid: the screen column (0..11, left to right) and row of a point. */
export function gridOf(p: number): { row: 0 | 1; col: number } {
  if (p >= 13) return { row: 0, col: p - 13 };
  return { row: 1, col: 12 - p };
}

export function pointAtGrid(row: 0 | 1, col: number): number {
  const c = Math.max(0, Math.min(11, col));
  return row === 0 ? 13 + c : 12 - c;
}
