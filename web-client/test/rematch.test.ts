import { describe, expect, it } from 'vitest';
import { encodeFrame } from '../src/net/codec';
import { parseServerFrame } from '../src/net/protocol';
import { Tracker } from '../src/net/tracker';
import { NET, bytes } from './netFixture';

const B = 'ffeeddccbbaa99887766554433221100';

describe('the rematch offer in the tracker', () => {
  it('comes with the rematch_offered event after the match', () => {
    const match = NET.matches[0]!;
    const t = new Tracker();
    for (const hex of match.frames) {
      const frame = parseServerFrame(bytes(hex));
      if (frame?.t === 'event') t.applyEvent(frame);
    }
    expect(t.over).not.toBeNull();
    expect(t.rematch).toBeNull();
    const v = t.version + 1;
    const frame = parseServerFrame(
      encodeFrame({ t: 'event', v, k: 'rematch_offered', p: { by: 1, match: B }, n: { phase: 'over', seats: [], deadline: null, reserves: [0, 0] } }),
    );
    expect(frame?.t).toBe('event');
    if (frame?.t !== 'event') return;
    t.applyEvent(frame);
    expect(t.rematch).toEqual({ by: 1, match: B });
    expect(t.version).toBe(v);
    expect(t.gaps).toBe(0);
  });

  it('comes with the snapshot (a late joiner sees it), and is absent from earlier snapshots', () => {
    const snap = NET.matches[0]!.snapshots[0]!;
    const frame = parseServerFrame(bytes(snap.hex));
    if (frame?.t !== 'snapshot') throw new Error('not a snapshot');
    const t = new Tracker();
    t.applySnapshot(frame.p.v, frame.p.state);
    expect(t.rematch).toBeNull();
    t.applySnapshot(frame.p.v, { ...frame.p.state, rematch: { by: 0, match: B } });
    expect(t.rematch).toEqual({ by: 0, match: B });
  });
});
