/**
 * Sound effects synthesised with WebAudio (no audio files): dice, a checker move, a hit, a
 * bear-off, your turn and a low clock. Silent unless the player turned sound on.
 */

export type Cue = 'dice' | 'move' | 'hit' | 'off' | 'turn' | 'low';

/** One tone of a cue: start (s), frequency (Hz), length (s), wave and relative level. */
interface Tone {
  readonly at: number;
  readonly hz: number;
  readonly len: number;
  readonly wave: OscillatorType;
  readonly level: number;
}

const tone = (at: number, hz: number, len: number, wave: OscillatorType = 'triangle', level = 1): Tone => ({ at, hz, len, wave, level });

/** The tones of each cue (exported for the unit test: every cue is short and audible). */
export const CUES: Record<Cue, readonly Tone[]> = {
  // Two dice tumbling: a few short clicks.
  dice: [tone(0, 900, 0.03, 'square', 0.5), tone(0.06, 700, 0.03, 'square', 0.5), tone(0.13, 1100, 0.03, 'square', 0.4), tone(0.2, 800, 0.04, 'square', 0.4)],
  move: [tone(0, 520, 0.08)],
  hit: [tone(0, 330, 0.06, 'sawtooth', 0.7), tone(0.05, 220, 0.12, 'triangle')],
  off: [tone(0, 660, 0.07), tone(0.07, 880, 0.1)],
  turn: [tone(0, 587, 0.12, 'sine'), tone(0.14, 784, 0.18, 'sine')],
  low: [tone(0, 988, 0.08, 'square', 0.5)],
};

let ctx: AudioContext | null = null;

/** Play `cue` at `volume` (0..1) when `enabled`. */
export function play(cue: Cue, enabled: boolean, volume = 0.5): void {
  if (!enabled || volume <= 0 || typeof AudioContext === 'undefined') return;
  try {
    ctx ??= new AudioContext();
    const t0 = ctx.currentTime;
    for (const t of CUES[cue]) {
      const osc = ctx.createOscillator();
      const gain = ctx.createGain();
      osc.type = t.wave;
      osc.frequency.value = t.hz;
      const peak = 0.25 * Math.min(1, volume) * t.level;
      gain.gain.setValueAtTime(peak, t0 + t.at);
      gain.gain.exponentialRampToValueAtTime(0.0001, t0 + t.at + t.len);
      osc.connect(gain).connect(ctx.destination);
      osc.start(t0 + t.at);
      osc.stop(t0 + t.at + t.len + 0.01);
    }
  } catch {
    // no audio: stay silent
  }
}

/** A soft click for a checker move (kept for older callers). */
export function click(enabled: boolean, volume = 0.5): void {
  play('move', enabled, volume);
}
