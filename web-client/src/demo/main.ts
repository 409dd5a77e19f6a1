/**
 * Hot-seat demo: two players on one device, fair dice from both seats' chains held locally
 * (crypto.getRandomValues secrets, verified like a network game). URL parameters:
 *   mode=match|money|single  length=N  clock=SECONDS (0 = none)  names=Ivory,Copper
 *   dice=31,64,...   practice dice (roll-off first), then random
 *   position=ID      start from a gnubg Position ID with the first player on roll (no roll-off)
 *   tamper=K         announce roll K wrongly, to show the mismatch alarm
 *   latency=MS       answer plays after MS like a server; refuse=N refuses the first N plays
 *   spectate=1       read-only, as a spectator;  watchers=N  presence=online,reconnecting|gone
 *   side=0|1         keep the board from that seat's side whoever plays
 */

import '../ui/style.css';
import { decodePositionId } from '../engine/positionId';
import { CHAIN_LENGTH } from '../fairdice';
import { BoardApp } from '../ui/app';
import { type DiceSource, LocalFairDice, ScriptedDice } from '../view/dice';
import type { MatchKind, Presence } from '../view/gameView';
import { LocalGame } from '../view/localGame';
import { loadLanguage } from '../i18n';

// The page's catalogue before anything is worded (src/i18n).
await loadLanguage();

const params = new URLSearchParams(location.search);
const kind = (['match', 'money', 'single'].includes(params.get('mode') ?? '') ? params.get('mode') : 'match') as MatchKind;
const length = Math.max(1, Math.min(25, Number(params.get('length') ?? 5) || 5));
const clock = Math.max(0, Number(params.get('clock') ?? 60) || 0);
const names = (params.get('names') ?? 'Ivory,Copper').split(',').slice(0, 2) as [string, string];
const tamper = params.get('tamper');
const dice: DiceSource = params.get('dice')
  ? new ScriptedDice(ScriptedDice.parse(params.get('dice')!))
  : new LocalFairDice(CHAIN_LENGTH, tamper ? Number(tamper) : null);
const positionId = params.get('position');

const game = new LocalGame({
  kind,
  length,
  clockSeconds: params.has('clock') ? clock : 60,
  names: [names[0] ?? 'Ivory', names[1] ?? 'Copper'],
  dice,
  position: positionId ? decodePositionId(positionId) : undefined,
  latencyMs: Number(params.get('latency') ?? 0) || 0,
  refusePlays: Number(params.get('refuse') ?? 0) || 0,
  spectator: params.get('spectate') === '1',
  side: params.get('side') === '0' ? 0 : params.get('side') === '1' ? 1 : null,
  spectators: Number(params.get('watchers') ?? 0) || 0,
  presence: presence(params.get('presence')),
});

function presence(text: string | null): [Presence, Presence] | undefined {
  const known = ['online', 'reconnecting', 'gone'];
  const parts = (text ?? '').split(',');
  if (parts.length !== 2 || !parts.every((p) => known.includes(p))) return undefined;
  return parts as [Presence, Presence];
}
const root = document.getElementById('app')!;
const app = new BoardApp(root, game, { title: 'fairgammon', languagePicker: 'side' });
void game.start();
// For tests and curious players: the live objects.
Object.assign(window, { fairgammon: { game, app } });
