/**
 * Playing the computer over the lobby's HTTP API (docs/bots.md): create a match against a bot
 * level, and ask for hints (only ever given in such a match).
 */

import { type MessageKey, t } from '../i18n';
import { BOT_LEVELS, type BotLevel } from '../generated/catalog';
import { type Created, call } from './lobbyApi';
import type { CreateOptions } from './storage';

/** A level of the computer (bots/catalog.py, through src/generated/catalog.ts). */
export type Level = BotLevel;

/** Each level's name and one line about it, as the lobby offers them. */
export const LEVEL_WORDS: Readonly<Record<Level, readonly [MessageKey, MessageKey]>> = {
  easy: ['level.easy', 'level.easyAbout'],
  normal: ['level.normal', 'level.normalAbout'],
  hard: ['level.hard', 'level.hardAbout'],
  expert: ['level.expert', 'level.expertAbout'],
};

/** The levels in the server's order, easiest first: [level, name, about] in the page's language. */
export const levels = (): readonly (readonly [Level, string, string])[] => BOT_LEVELS.map((l) => [l, t(LEVEL_WORDS[l][0]), t(LEVEL_WORDS[l][1])] as const);

export const levelName = (level: string): string => levels().find(([l]) => l === level)?.[1] ?? level;

/** A hinted play: `moves` as [from, to] pairs (25 = bar, 0 = off), from the player's side. */
export interface HintPlay {
  readonly moves: readonly (readonly [number, number])[];
  /** The play in the move record's notation (`bar/23 6/5(2)`). */
  readonly play: string;
  readonly equity: number;
  readonly win: number;
}

export interface CubeHint {
  readonly action: 'double' | 'no_double' | 'take' | 'drop' | 'beaver';
  /** The cube is dead for the player on roll: a double is legal and gains nothing (no
   * equities then). */
  readonly dead: boolean;
  readonly no_double: number | null;
  readonly double_take: number | null;
  readonly double_pass: number | null;
  /** Facing a double: the deciding player's own equities after taking and after passing. */
  readonly take: number | null;
  readonly pass: number | null;
  readonly win: number;
}

export interface Hint {
  readonly match: string;
  readonly seat: 0 | 1;
  readonly phase: 'move' | 'decide' | 'take';
  readonly plays: readonly HintPlay[];
  readonly cube: CubeHint | null;
}

export function createBotMatch(options: CreateOptions, name: string, level: Level): Promise<Created & { bot: Level }> {
  const body: Record<string, unknown> = { mode: options.mode, clock: options.clock, reserve: options.reserve, name, bot: level };
  if (options.mode === 'match') body.length = options.length;
  if (options.mode === 'money') Object.assign(body, { jacoby: options.jacoby, beavers: options.beavers });
  if (options.variant && options.variant !== 'backgammon') body.variant = options.variant;
  return call<Created & { bot: Level }>('POST', '/api/matches', body);
}

/** Say whether this seat plays fast (the computer then answers without its think time). */
export function setPace(match: string, token: string, fast: boolean): Promise<{ match: string; fast: boolean }> {
  return call('POST', `/api/matches/${match}/pace`, { token, fast });
}

/** The hint for the seat holding `token` (its token travels in the body, never in a URL). */
export function getHint(match: string, token: string): Promise<Hint> {
  return call<Hint>('POST', `/api/matches/${match}/hint`, { token });
}

/** "24/18 13/9", "bar/20", "6/off". */
