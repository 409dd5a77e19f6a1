/** Player settings kept in this browser (falls back to defaults when storage is unavailable). */

export interface Settings {
  /** Send the turn as soon as all usable dice are used (no End turn needed). */
  autoConfirm: boolean;
  /** Sound effects; off by default. */
  sound: boolean;
}

const KEY = 'fairgammon.settings.v1';
export const DEFAULT_SETTINGS: Settings = { autoConfirm: false, sound: false };

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
