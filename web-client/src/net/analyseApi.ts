/**
 * The analysis board's API (`POST /api/analyse`, `GET /api/analyse/<job>`: server/web/analyse.py,
 * docs/analysis.md "Analysis board"): a position by gnubg Position ID (+ Match ID) or XGID, the
 * dice (none: the cube decision) and the ply. A 3-ply request is queued by the server: this
 * polls its job until the answer comes.
 */

export interface Chances {
  readonly win: number | null;
  readonly gammon: number | null;
  readonly backgammon: number | null;
  readonly lose_gammon: number | null;
  readonly lose_backgammon: number | null;
}

export interface RankedPlayDoc extends Chances {
  /** Standard notation, e.g. `bar/23 6/5(2)`. */
  readonly play: string;
  /** gnubg Position ID after the play, seen by the mover. */
  readonly position_id: string;
  readonly equity: number | null;
  readonly loss: number | null;
  readonly ply: number;
}

export interface CubeDoc extends Chances {
  readonly ply: number;
  readonly available: boolean;
  readonly pending: boolean;
  readonly action: 'no_double' | 'double_take' | 'double_pass' | 'double_beaver' | 'too_good' | null;
  readonly answer: 'take' | 'pass' | 'beaver';
  readonly equity: number | null;
  readonly no_double: number | null;
  readonly double_take: number | null;
  readonly double_pass: number | null;
  readonly window: { readonly double: number | null; readonly cash: number | null; readonly too_good: number | null } | null;
}

export interface BoardAnalysisDoc {
  readonly format: string;
  readonly ply: number;
  readonly position_id: string;
  readonly match_id: string;
  readonly xgid: string;
  readonly dice: readonly [number, number] | null;
  readonly plays: readonly RankedPlayDoc[];
  readonly passes: boolean;
  readonly cube: CubeDoc | null;
}

export interface AnalyseRequest {
  readonly position_id?: string;
  readonly match_id?: string;
  readonly xgid?: string;
  readonly dice?: readonly [number, number];
  readonly ply?: number;
}

/** A refusal: the server's error code and message. */
export class AnalyseError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answerOf(response: Response): Promise<{ status: number; body: Record<string, unknown> }> {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new AnalyseError(String(body.error ?? 'error'), String(body.message ?? `HTTP ${response.status}`));
  return { status: response.status, body };
}

/** The analysis of `request`; `waiting()` is called while a queued one is pending. */
export async function analyse(request: AnalyseRequest, waiting: () => void = () => undefined): Promise<BoardAnalysisDoc> {
  let { status, body } = await answerOf(
    await fetch('/api/analyse', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request) }),
  );
  for (let i = 0; status === 202 && i < 600; i++) {
    waiting();
    await sleep(i < 10 ? 200 : 1000);
    ({ status, body } = await answerOf(await fetch(String(body.poll), { cache: 'no-store' })));
  }
  if (status === 202) throw new AnalyseError('retry_later', 'the analysis is taking too long: try again later');
  return body as unknown as BoardAnalysisDoc;
}
