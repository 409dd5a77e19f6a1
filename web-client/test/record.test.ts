import { describe, expect, it } from 'vitest';
import vectors from './vectors/notation-vectors.json';
import { decodePositionId } from '../src/engine/positionId';
import { parseServerFrame } from '../src/net/protocol';
import { playText } from '../src/engine/notation';
import { RecordBook, type RecordEntry, entryText, recordRows } from '../src/net/record';
import { NET, bytes } from './netFixture';

interface Case {
  family: string;
  id: string;
  moves: [number, number][];
  text: string;
}
const cases = (vectors as unknown as { cases: Case[] }).cases;

describe('notation vectors from the Python engine', () => {
  it('has hand-picked and random cases', () => {
    expect(cases.filter((c) => c.family === 'hand').length).toBeGreaterThan(10);
    expect(cases.length).toBeGreaterThan(300);
  });

  it('playText writes every case as engine/notation.py does', () => {
    const bad = cases.filter((c) => playText(decodePositionId(c.id), c.moves) !== c.text);
    expect(bad.map((c) => `${c.id} ${JSON.stringify(c.moves)} → ${playText(decodePositionId(c.id), c.moves)} (want ${c.text})`)).toEqual([]);
  });
});

function book(frames: string[], from = 0, b = new RecordBook()): RecordBook {
  for (const hex of frames.slice(from)) {
    const frame = parseServerFrame(bytes(hex));
    if (frame?.t === 'event') b.apply(frame);
  }
  return b;
}

describe('the record of real matches', () => {
  for (const match of NET.matches) {
    it(`${match.name}: one entry per play, pass, cube action, resignation and game end`, () => {
      const b = book(match.frames);
      const kinds = match.frames.map((hex) => {
        const f = parseServerFrame(bytes(hex));
        return f?.t === 'event' ? f.k : '';
      });
      const count = (k: string) => kinds.filter((x) => x === k).length;
      const all = b.gameNumbers().flatMap((g) => b.entries(g));
      expect(all.filter((e) => e.action === 'move').length).toBe(count('moved'));
      expect(all.filter((e) => e.action === 'pass').length).toBe(count('passed'));
      expect(all.filter((e) => e.action === 'double').length).toBe(count('doubled'));
      expect(all.filter((e) => e.action === 'win').length).toBe(count('game_over'));
      // Every play has its dice, larger first, and a text that names points.
      for (const e of all.filter((x) => x.action === 'move')) {
        expect(e.dice).not.toBeNull();
        expect(e.dice![0]).toBeGreaterThanOrEqual(e.dice![1]);
        expect(entryText(e)).toMatch(/^[1-6][1-6]: ((bar|\d+)(\*)?(\/(\d+|off)\*?)+(\(\d\))? ?)+$/);
      }
      // Versions rise: the record is in the order things happened.
      expect(all.map((e) => e.v)).toEqual([...all.map((e) => e.v)].sort((a, c) => a - c));
    });

    for (const snap of match.snapshots) {
      it(`${match.name}: after a snapshot at v${snap.v}, filling in the server's record gives the full record`, () => {
        const full = book(match.frames);
        const b = new RecordBook();
        const frame = parseServerFrame(bytes(snap.hex));
        if (frame?.t !== 'snapshot') throw new Error('not a snapshot');
        b.applySnapshot(frame.p.v, frame.p.state);
        book(match.frames, snap.v, b);
        const game = frame.p.state.game?.game ?? 1;
        if (frame.p.state.game) {
          // The current game and every earlier one wait for the server's records.
          expect([...b.partial.keys()].sort()).toEqual(Array.from({ length: game }, (_, i) => i + 1));
          expect(b.partial.get(game)).toBe(snap.v);
        }
        // What the server's records say up to the snapshot (here: the full book's).
        const upTo = snap.v;
        const strip = (es: readonly RecordEntry[]) => es.map(({ v: _v, ...rest }) => rest);
        for (const n of [...b.partial.keys()]) {
          const known: RecordEntry[] = full.entries(n).filter((e) => e.v <= upTo).map((e) => ({ ...e, v: 0 }));
          b.fill(n, upTo, known);
        }
        expect(b.gameNumbers()).toEqual(full.gameNumbers());
        for (const n of full.gameNumbers()) expect(strip(b.entries(n))).toEqual(strip(full.entries(n)));
        expect(b.partial.size).toBe(0);
      });
    }
  }
});

describe('recordRows', () => {
  const e = (seat: 0 | 1, action: RecordEntry['action'] = 'move'): RecordEntry => ({ v: 0, game: 1, seat, action, dice: [3, 1], text: 'x' });
  it('pairs seat 0 and seat 1, and starts a row when the right cell is taken', () => {
    const rows = recordRows([e(1), e(0), e(1), e(0, 'double'), e(1, 'take'), e(0), e(1, 'win')]);
    expect(rows).toEqual([
      { n: 1, cells: [null, 0] },
      { n: 2, cells: [1, 2] },
      { n: 3, cells: [3, 4] },
      { n: 4, cells: [5, null] },
      { n: null, cells: [null, 6] },
    ]);
  });
});
