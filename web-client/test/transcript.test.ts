import { describe, expect, it } from 'vitest';
import { TranscriptError, verifyTranscript } from '../src/fairdice/transcript';
import { NET } from './netFixture';

// The shared vectors (protocol/fairdice/vectors/fairdice-v1.json), wherever they are.
const shared = import.meta.glob<{ transcripts?: Transcripts; variant_transcripts?: Transcripts }>('../../protocol/fairdice/vectors/*.json', {
  eager: true,
  import: 'default',
});

interface Transcripts {
  valid: { note: string; transcript: unknown; rolls: number; rolloff_rolls: number; first_mover: number; plays: number }[];
  invalid: {
    note: string;
    base: number;
    patch: { op: 'replace'; path: string; value: unknown }[];
    problem: string;
    k: number | null;
    seat: number | null;
  }[];
}

/** RFC 6902 `replace` operations on a copy. */
function patched(doc: unknown, ops: Transcripts['invalid'][number]['patch']): unknown {
  const copy = structuredClone(doc) as Record<string, unknown>;
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let at: Record<string, unknown> = copy;
    for (const p of parts.slice(0, -1)) at = at[p] as Record<string, unknown>;
    at[parts[parts.length - 1]!] = op.value;
  }
  return copy;
}

// The backgammon transcripts, then the variants' (their own section).
const vectors = Object.values(shared)
  .flatMap((v) => [v.transcripts, v.variant_transcripts])
  .filter((t): t is Transcripts => !!t);

describe('transcript verifier against the shared vectors', () => {
  it('finds the vector file', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(1);
  });

  for (const t of vectors) {
    for (const v of t.valid) {
      it(`verifies: ${v.note}`, async () => {
        const verdict = await verifyTranscript(JSON.stringify(v.transcript));
        expect(verdict.rolls).toBe(v.rolls);
        expect(verdict.rolloffRolls).toBe(v.rolloff_rolls);
        expect(verdict.firstMover).toBe(v.first_mover);
        expect(verdict.playsReplayed).toBe(v.plays);
      });
    }
    for (const c of t.invalid) {
      it(`refuses (${c.problem}): ${c.note}`, async () => {
        const doc = patched(t.valid[c.base]!.transcript, c.patch);
        const error = await verifyTranscript(JSON.stringify(doc)).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(TranscriptError);
        const e = error as TranscriptError;
        expect({ problem: e.problem, k: e.k, seat: e.seat }).toEqual({ problem: c.problem, k: c.k, seat: c.seat });
      });
    }
  }

  it('refuses text that is not JSON, and any changed byte of a valid transcript', async () => {
    await expect(verifyTranscript('{nope')).rejects.toMatchObject({ problem: 'json' });
    const base = vectors[0]!.valid[0]!.transcript as { rolls: { reveals: string[] }[] };
    for (let roll = 0; roll < base.rolls.length; roll++) {
      const doc = structuredClone(base);
      const hex = doc.rolls[roll]!.reveals[1]!;
      doc.rolls[roll]!.reveals[1] = (hex[0] === 'a' ? 'b' : 'a') + hex.slice(1);
      await expect(verifyTranscript(doc), `roll ${roll + 1}`).rejects.toMatchObject({ problem: 'link', k: roll + 1, seat: 1 });
    }
  });
});

describe('transcripts of the variants, as the server exports them (test/fixtures/net-frames.json)', () => {
  const tavli = NET.matches.find((m) => m.name === 'tavli')!;
  const games = tavli.transcripts!;

  it('verifies every game of a Tavli match: portes, plakoto (opened by the last winner), fevga', async () => {
    expect(games.map((g) => [g.game_no, g.variant])).toEqual([
      [1, 'portes'],
      [2, 'plakoto'],
      [3, 'fevga'],
    ]);
    expect(games.some((g) => g.opener !== undefined)).toBe(true);
    for (const g of games) {
      const verdict = await verifyTranscript(g);
      expect(verdict.playsReplayed).toBeGreaterThan(0);
      // A Greek game's roll-off is played by nobody: every play is a turn roll.
      expect(verdict.playsReplayed).toBeLessThanOrEqual(verdict.rolls - verdict.rolloffRolls);
    }
    const plakoto = await verifyTranscript(games[1]!);
    expect(plakoto.result.reason).toBe(String((games[1]!.result as { reason: string }).reason));
  });

  it('refuses a game replayed by the wrong rules, or with the wrong opener', async () => {
    const plakoto = structuredClone(games[1]!);
    delete plakoto.variant;
    delete plakoto.opener; // a backgammon game has none
    await expect(verifyTranscript(plakoto)).rejects.toBeInstanceOf(TranscriptError);
    const opened = games.find((g) => g.opener !== undefined)!;
    const wrong = { ...structuredClone(opened), opener: 1 - (opened.opener as number) };
    await expect(verifyTranscript(wrong)).rejects.toMatchObject({ problem: 'rolloff' });
    const fevga = { ...structuredClone(games[2]!), variant: 'plakoto' };
    await expect(verifyTranscript(fevga)).rejects.toBeInstanceOf(TranscriptError);
  });
});

describe('the Jacoby rule (jacoby: true): an uncubed gammon or backgammon counts as a single', () => {
  const valid = vectors[0]!.valid.map((v) => v.transcript as Record<string, unknown> & { result: Record<string, number> });
  const jacoby = valid.filter((t) => t.jacoby === true);

  it('verifies the shared Jacoby games at multiplier 1', async () => {
    expect(jacoby.map((t) => t.result.multiplier)).toEqual([1, 1]);
    for (const t of jacoby) expect((await verifyTranscript(t)).result.points).toBe(1);
  });

  it('holds a transcript without the field (older ones too) to the full multiplier', async () => {
    const older = structuredClone(jacoby[1]!); // the backgammon
    delete older.jacoby;
    await expect(verifyTranscript(older)).rejects.toMatchObject({ problem: 'result', message: 'result: multiplier 1 but the final position scores 3' });
    older.result = { ...older.result, multiplier: 3, points: 3 };
    expect((await verifyTranscript(older)).result.points).toBe(3);
  });

  it('takes the field as true only, and only in a variant with a cube', async () => {
    await expect(verifyTranscript({ ...structuredClone(jacoby[0]!), jacoby: false })).rejects.toMatchObject({ problem: 'schema' });
    await expect(verifyTranscript({ ...structuredClone(jacoby[0]!), variant: 'portes' })).rejects.toMatchObject({
      problem: 'schema',
      message: 'jacoby: portes has no cube: no money play, no Jacoby rule',
    });
  });
});
