/** Player settings kept in this browser (falls back to defaults when storage is unavailable). */

export interface Settings {
  /** Send the turn by itself once all usable dice are used, after a moment to undo (no End turn). */
  autoConfirm: boolean;
  /** A tap on a checker moves it at once by the die that makes sense (else: select, then destination). */
  quickMove: boolean;
  /** Roll by itself after a moment when the cube could be turned, unless Double is chosen. */
  autoRoll: boolean;
  /** The moment (ms) to undo before a turn goes out by itself, and to choose Double before a roll. */
  pauseMs: number;
  /** Sound effects; off by default. */
  sound: boolean;
  /** Sound volume, 0..1. */
  volume: number;
  /** Swap the checker colours on screen (yours copper instead of ivory, and so on). */
  swapColours: boolean;
  /** Draw the home board on the left instead of the right. */
  homeLeft: boolean;
  /** A spectator sees the board from the second player's side. */
  flipSpectator: boolean;
  /** Fast play: the pauses above are short (`FAST_PAUSE_MS`), and against the computer it
   * answers without its think time (the page tells the server: POST /api/matches/{id}/pace). */
  fast: boolean;
}

/** The moment to undo or to double with fast play (ms). */
export const FAST_PAUSE_MS = 300;

/** The pause before a turn goes out, or the dice roll, by themselves (ms). */
export function pauseOf(settings: Settings): number {
  return settings.fast ? Math.min(FAST_PAUSE_MS, settings.pauseMs) : settings.pauseMs;
}

const KEY = 'fairgammon.settings.v1';
export const DEFAULT_SETTINGS: Settings = {
  autoConfirm: true,
  quickMove: true,
  autoRoll: true,
  pauseMs: 1200,
  sound: false,
  volume: 0.5,
  swapColours: false,
  homeLeft: false,
  flipSpectator: false,
  fast: false,
};

export function loadSettings(): Settings {
  try {
    const raw = localStorage.getItem(KEY);
    if (raw) return { ...DEFAULT_SETTINGS, ...(JSON.parse(raw) as Partial<Settings>) };
  } catch {
    // storage blocked or corrupt: defaults
  }
  return { ...DEFAULT_SETTINGS };
}

export function saveSettings(settings: Settings): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch {
    // storage blocked: settings last for this page only
  }
}
