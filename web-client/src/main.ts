/**
 * The page served at `/` (lobby), `/m/<match>` (a match, to play or watch), `/m/<match>/replay/<n>`
 * (a recorded game on the replay board), `/verify` (transcript checks), `/rules` (how to play),
 * `/local` (two players on this device), `/u/<name>` (a player's profile), `/leaderboard`, and a
 * signed-in player's `/notices`, `/friends` and `/games` (and the others of START): one
 * bundle, routed by the path. The paths are the server's (server/web/pages.py, generated into
 * src/generated/catalog.ts): START has a page for each, or this does not compile.
 */

import './ui/style.css';
import './ui/pages.css';
import './ui/players.css';
import './ui/record.css';
import './ui/analyse.css';
import './ui/imports.css';
import './ui/friends.css';
import './ui/moderation.css';
import { startLobby } from './pages/lobby';
import { startMatchPage } from './pages/matchPage';
import { startImportReplayPage, startReplayPage } from './pages/replayPage';
import { startVerifyPage } from './pages/verifyPage';
import { startLeaderboard } from './pages/leaderboard';
import { startProfile } from './pages/profile';
import { startRulesPage } from './pages/rulesPage';
import { startLocalPage } from './pages/localPage';
import { startTournament, startTournaments } from './pages/tournaments';
import { startAnalysePage } from './pages/analysePage';
import { startImportsPage } from './pages/importsPage';
import { startTrainerPage } from './pages/trainerPage';
import { startNoticesPage } from './pages/noticesPage';
import { startFriendsPage } from './pages/friendsPage';
import { startGamesPage } from './pages/gamesPage';
import { startModerationPage } from './pages/moderationPage';
import { route } from './pages/route';
import { warnIfNoStorage } from './pages/storageWarning';
import type { PagePath } from './generated/catalog';
import { applyToDocument, loadLanguage } from './i18n';

/** Each page path's page, started with the path's parameters. */
const START: Record<PagePath, (root: HTMLElement, params: readonly string[]) => void> = {
  '/': (root) => startLobby(root),
  '/m/{match_id}': (root, [match]) => void startMatchPage(root, match!),
  '/m/{match_id}/replay/{game:int}': (root, [match, game]) => void startReplayPage(root, match!, Number(game)),
  '/verify': (root) => startVerifyPage(root),
  '/u/{name}': (root, [name]) => void startProfile(root, decodeURIComponent(name!)),
  '/leaderboard': (root) => void startLeaderboard(root),
  '/rules': (root) => startRulesPage(root),
  '/local': (root) => startLocalPage(root),
  '/tournaments': (root) => void startTournaments(root),
  '/t/{tournament}': (root, [tid]) => void startTournament(root, tid!),
  '/analyse': (root) => startAnalysePage(root),
  '/imports': (root) => void startImportsPage(root),
  '/imports/{import_id}/replay/{game:int}': (root, [ident, game]) => void startImportReplayPage(root, ident!, Number(game)),
  '/trainer': (root) => void startTrainerPage(root),
  '/notices': (root) => void startNoticesPage(root),
  '/friends': (root) => void startFriendsPage(root),
  '/games': (root) => void startGamesPage(root),
  '/moderation': (root) => void startModerationPage(root),
};

const root = document.getElementById('app')!;
// <html lang dir> name the language before anything is drawn (the pages are static files: the
// browser's languages, or the player's remembered pick, decide here), and its catalogue is
// fetched before the page draws (src/i18n: a page carries English and its own language only).
applyToDocument();
await loadLanguage();
const found = route(location.pathname);
// Any other path the server answers with this page: the lobby.
START[found?.page ?? '/'](root, found?.params ?? []);
// After the page has drawn itself (pages replace the root's children).
queueMicrotask(() => warnIfNoStorage(document.body));
// The app shell offline (and installable): the worker is built with the client (pwa/).
if ('serviceWorker' in navigator && import.meta.env.PROD) {
  addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => undefined));
}
