/**
 * Rollouts on the server (`/api/rollouts`: server/web/rollouts.py, docs/analysis.md "Rollouts"):
 * start one, read its progress and figures (95% intervals that narrow batch by batch), cancel it.
 */

import { AnalyseError } from './analyseApi';

export interface EstimateDoc {
  readonly mean: number | null;
  readonly se: number | null;
  readonly low: number | null;
  readonly high: number | null;
}

export interface RolloutFiguresDoc {
  readonly trials: number;
  readonly of: number;
  readonly subject: 'position' | 'play';
  readonly equity?: EstimateDoc;
  readonly cubeless?: EstimateDoc;
  readonly no_double?: EstimateDoc;
  readonly double_take?: EstimateDoc;
  readonly double_pass?: number;
  readonly action?: string | null;
  readonly answer?: string;
  readonly win?: number | null;
  readonly gammon?: number | null;
  readonly backgammon?: number | null;
}

export interface RolloutSpecDoc {
  readonly position_id: string | null;
  readonly match_id: string | null;
  readonly xgid: string | null;
  readonly dice: readonly [number, number] | null;
  readonly play: string | null;
  readonly trials: number;
  readonly truncation: number;
}

export interface RolloutDoc {
  readonly rollout: string;
  readonly status: 'queued' | 'running' | 'done' | 'cancelled' | 'failed';
  readonly spec: RolloutSpecDoc;
  readonly progress: { readonly trials: number; readonly of: number; readonly running: number };
  readonly figures: RolloutFiguresDoc;
  readonly mine: boolean;
  readonly poll: string;
  readonly page: string;
  readonly message?: string;
}

export interface RolloutRequest {
  readonly position_id?: string;
  readonly match_id?: string;
  readonly xgid?: string;
  readonly dice?: readonly [number, number];
  readonly play?: string;
  readonly trials?: number;
  readonly truncation?: number;
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (!response.ok) throw new AnalyseError(String(body.error ?? 'error'), String(body.message ?? `HTTP ${response.status}`));
  return body;
}

const post = (path: string, body: unknown) =>
  fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), credentials: 'same-origin' });

export async function startRollout(request: RolloutRequest): Promise<string> {
  return String((await json(await post('/api/rollouts', request))).rollout);
}

export async function fetchRollout(id: string): Promise<RolloutDoc> {
  return (await json(await fetch(`/api/rollouts/${encodeURIComponent(id)}`, { cache: 'no-store', credentials: 'same-origin' }))) as unknown as RolloutDoc;
}

export async function cancelRollout(id: string): Promise<void> {
  await json(await post(`/api/rollouts/${encodeURIComponent(id)}/cancel`, {}));
}

export const FINAL: readonly RolloutDoc['status'][] = ['done', 'cancelled', 'failed'];
