import { describe, expect, it } from 'vitest';
import { parseServerFrame } from '../src/net/protocol';
import { Tracker } from '../src/net/tracker';
import { NET, bytes, picture } from './netFixture';

function replay(frames: string[], from = 0, tracker = new Tracker()): Tracker {
  for (const hex of frames.slice(from)) {
    const frame = parseServerFrame(bytes(hex));
    if (frame?.t !== 'event') throw new Error(`not an event: ${hex}`);
    tracker.applyEvent(frame);
  }
  return tracker;
}

describe('tracker against the Python client tracker, on frames of real matches', () => {
  for (const match of NET.matches) {
    it(`${match.name}: the same picture after every event (${match.frames.length} events)`, () => {
      const t = new Tracker();
      match.frames.forEach((hex, i) => {
        replay([hex], 0, t);
        expect(picture(t), `after event v${i + 1}`).toEqual(match.pictures[i]);
      });
      expect(t.gaps).toBe(0);
      expect(t.over).not.toBeNull();
    });

    for (const snap of match.snapshots) {
      it(`${match.name}: resumes from a snapshot at v${snap.v} and ends where the full replay ends`, () => {
        const frame = parseServerFrame(bytes(snap.hex));
        expect(frame?.t).toBe('snapshot');
        if (frame?.t !== 'snapshot') return;
        const t = new Tracker();
        t.applySnapshot(frame.p.v, frame.p.state);
        expect(picture(t)).toEqual(snap.picture);
        // Presence came with the snapshot.
        expect(t.status).toEqual(snap.v <= 2 ? ['online', 'empty'] : ['online', 'reconnecting']);
        replay(match.frames, snap.v, t);
        expect(picture(t)).toEqual(match.pictures[match.pictures.length - 1]);
        expect(t.gaps).toBe(0);
      });
    }
  }

  it('covers cube, resignation, beaver, pass, forfeit, crash credit and Crawford in the fixture', () => {
    const kinds = new Set(NET.matches.flatMap((m) => m.kinds));
    for (const k of ['Doubled', 'Taken', 'Dropped', 'Beavered', 'ResignOffered', 'ResignAccepted', 'Passed', 'Forfeit', 'ClockCredit']) {
      expect(kinds).toContain(k);
    }
    expect(NET.matches.some((m) => m.pictures.some((p) => p.crawford))).toBe(true);
  });

  it('keeps offers, the last play and the rolls of the game', () => {
    const match = NET.matches.find((m) => m.name === 'money')!;
    const t = new Tracker();
    let sawDouble = false;
    let sawResign = false;
    let sawBeaverAnswer = false;
    for (const hex of match.frames) {
      const frame = parseServerFrame(bytes(hex))!;
      if (frame.t !== 'event') continue;
      t.applyEvent(frame);
      if (frame.k === 'doubled') {
        expect(t.double).toEqual({ seat: frame.p.seat, value: frame.p.value });
        expect(t.clock.phase).toBe('take');
        sawDouble = true;
      }
      if (frame.k === 'beavered') {
        // The doubler answers the redouble next.
        expect(t.clock.seats).toEqual([frame.p.seat === 0 ? 1 : 0]);
        expect(t.double?.value).toBe(frame.p.value);
        sawBeaverAnswer = true;
      }
      if (frame.k === 'resign_offered') {
        expect(t.resignation).toEqual({ seat: frame.p.seat, level: frame.p.level });
        sawResign = true;
      }
      if (frame.k === 'moved') expect(t.lastPlay?.moves).toEqual(frame.p.moves);
      if (frame.k === 'dice') {
        const last = t.rolls[t.rolls.length - 1]!;
        expect(last.k).toBe(frame.p.k);
        expect(t.rolls.map((r) => r.k)).toEqual(t.rolls.map((_, i) => i + 1));
      }
    }
    expect([sawDouble, sawResign, sawBeaverAnswer]).toEqual([true, true, true]);
  });

  it('after a timeout the forfeit is known with its reason', () => {
    const match = NET.matches.find((m) => m.name === 'timeout')!;
    const t = replay(match.frames);
    expect(t.forfeit?.reason).toBe('timeout');
    expect(t.lastGame?.reason).toBe('forfeit');
    expect(t.over?.reason).toBe('forfeit');
  });
});

describe('between games', () => {
  it('stays between games until the next game starts, even after one seat committed', () => {
    const match = NET.matches.find((m) => m.name === 'match3')!;
    const t = new Tracker();
    const seen: string[] = [];
    for (const hex of match.frames) {
      const frame = parseServerFrame(bytes(hex))!;
      if (frame.t !== 'event') continue;
      t.applyEvent(frame);
      if (t.lastGame && !t.over && ['game_over', 'commit_received', 'committed', 'game_started'].includes(frame.k)) {
        seen.push(`${frame.k}:${t.betweenGames}:${t.commitGame}`);
      }
    }
    // After game 1: over, one commitment in (still between games, commitments for game 2),
    // both in, then game 2 starts.
    expect(seen.slice(0, 4)).toEqual(['game_over:true:2', 'commit_received:true:2', 'committed:true:2', 'game_started:false:2']);
  });
});
