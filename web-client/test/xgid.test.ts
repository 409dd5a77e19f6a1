import { describe, expect, it } from 'vitest';
import { decodePositionId } from '../src/engine/positionId';
import { xgidOf } from '../src/engine/xgid';
import vectors from './vectors/xgid-vectors.json';

describe('the analysis board editor writes XGIDs as the engine does', () => {
  it(`reproduces the ${vectors.count} shared vectors`, () => {
    expect(vectors.cases.length).toBe(vectors.count);
    for (const c of vectors.cases) {
      const state = { cube: c.cube, owner: c.owner as 'mover' | 'opponent' | null, length: c.length, score: [c.score[0]!, c.score[1]!] as const, crawford: c.crawford };
      expect(xgidOf(decodePositionId(c.id), state), c.id).toBe(c.xgid);
    }
  });
});
