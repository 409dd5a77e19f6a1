/**
 * The analysis board's address (`/analyse#pid=…&mid=…&dice=31&ply=2`, or `#xgid=…`): what a
 * share link holds, read and written. Pure.
 */

export const START_ID = '4HPwATDgc/ABMA';

/** What the address holds (also what is sent). */
export interface BoardQuery {
  readonly pid: string | null;
  readonly mid: string | null;
  readonly xgid: string | null;
  readonly dice: readonly [number, number] | null;
  readonly ply: 1 | 2 | 3;
}

/** The query in an address's hash (anything missing or malformed left out). */
export function queryFromHash(hash: string): BoardQuery {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const dice = /^[1-6][1-6]$/.test(p.get('dice') ?? '') ? ([Number(p.get('dice')![0]), Number(p.get('dice')![1])] as const) : null;
  const ply = Number(p.get('ply'));
  return { pid: p.get('pid') || null, mid: p.get('mid') || null, xgid: p.get('xgid') || null, dice, ply: ply === 2 || ply === 3 ? ply : 1 };
}

/** The hash naming `q` (the page's share link). */
export function hashOf(q: BoardQuery): string {
  const p = new URLSearchParams();
  if (q.xgid) p.set('xgid', q.xgid);
  else {
    p.set('pid', q.pid ?? START_ID);
    if (q.mid) p.set('mid', q.mid);
  }
  if (q.dice) p.set('dice', `${q.dice[0]}${q.dice[1]}`);
  p.set('ply', String(q.ply));
  return `#${p.toString()}`;
}

/** The path of the analysis board for a position (the replay's "open in the analysis board"). */
export function analysePath(pid: string, dice: readonly [number, number] | null, mid: string | null = null): string {
  return `/analyse${hashOf({ pid, mid, xgid: null, dice, ply: 2 })}`;
}

