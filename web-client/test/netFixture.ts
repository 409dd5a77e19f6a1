/** The wire fixture written by tools/make_net_fixture.py, typed, and helpers to read it. */

import fixture from './fixtures/net-frames.json';
import { encodePositionId } from '../src/engine/positionId';
import { fromHex, toHex } from '../src/fairdice';
import type { Tracker } from '../src/net/tracker';

export interface Picture {
  v: number;
  game: number;
  k: number;
  turn: number;
  on_roll: number | null;
  dice: number[] | null;
  position_id: string;
  cube: number;
  cube_owner: number | null;
  score: number[];
  crawford: boolean;
  names: (string | null)[];
  clock: [string, number[], number | null, number[]];
  commitments: (string | null)[];
  commit_game: number;
  last_game: [number, number | null, number, string] | null;
  variant: string;
  pinned: [number, number];
  boards: [number[], number[]];
  over: [number | null, string, number[]] | null;
}

export interface FixtureMatch {
  name: string;
  match_id: string;
  kinds: string[];
  frames: string[];
  pictures: Picture[];
  snapshots: { v: number; hex: string; picture: Picture }[];
  /** The server's fair-dice transcript of each game (the Tavli match's). */
  transcripts?: Record<string, unknown>[];
}

export const NET = fixture as unknown as {
  client: { name: string; frame: unknown; hex: string }[];
  server: { name: string; frame: unknown; hex: string }[];
  matches: FixtureMatch[];
  reserve_decisions: string[];
};

export const bytes = fromHex;

/** The Python picture's fields, from a TypeScript tracker. */
export function picture(t: Tracker): Picture {
  const g = t.lastGame;
  const o = t.over;
  return {
    v: t.version,
    game: t.game,
    k: t.k,
    turn: t.turn,
    on_roll: t.onRoll,
    dice: t.dice ? [...t.dice] : null,
    position_id: encodePositionId({ mover: t.boards[0], opponent: t.boards[1] }),
    cube: t.cube,
    cube_owner: t.cubeOwner,
    score: [...t.score],
    crawford: t.crawford,
    names: [...t.names],
    clock: [t.clock.phase, [...t.clock.seats], t.clock.deadline, [...t.clock.reserves]],
    commitments: t.commitments.map((c) => (c ? toHex(c) : null)),
    commit_game: t.commitGame,
    last_game: g ? [g.game, g.winner, g.points, g.reason] : null,
    over: o ? [o.winner, o.reason, [...o.score]] : null,
    variant: t.variant,
    pinned: [...t.pinned],
    boards: [[...t.boards[0]], [...t.boards[1]]],
  };
}

/** Plain msgpack values of the fixture ({bin: hex} for bytes) as the decoder returns them. */
export function revive(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.bin === 'string' && Object.keys(o).length === 1) return fromHex(o.bin);
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, revive(v)]));
  }
  return value;
}
