/** A soft click for checker moves, synthesised (no audio files); only when sound is on. */

let ctx: AudioContext | null = null;

export function click(enabled: boolean): void {
  if (!enabled || typeof AudioContext === 'undefined') return;
  try {
    ctx ??= new AudioContext();
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = 'triangle';
    osc.frequency.value = 520;
    gain.gain.setValueAtTime(0.12, ctx.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, ctx.currentTime + 0.08);
    osc.connect(gain).connect(ctx.destination);
    osc.start();
    osc.stop(ctx.currentTime + 0.09);
  } catch {
    // no audio: stay silent
  }
}
