/**
 * The page served at `/` (lobby), `/m/<match>` (a match, to play or watch), `/m/<match>/replay/<n>`
 * (a recorded game on the replay board), `/verify` (transcript checks), `/rules` (how to play),
 * `/local` (two players on this device), `/u/<name>` (a player's profile) and `/leaderboard`: one
 * bundle, routed by the path.
 */

import './ui/style.css';
import './ui/pages.css';
import './ui/players.css';
import './ui/record.css';
import { startLobby } from './pages/lobby';
import { startMatchPage } from './pages/matchPage';
import { startReplayPage } from './pages/replayPage';
import { startVerifyPage } from './pages/verifyPage';
import { startLeaderboard } from './pages/leaderboard';
import { startProfile } from './pages/profile';
import { startRulesPage } from './pages/rulesPage';
import { startLocalPage } from './pages/localPage';
import { warnIfNoStorage } from './pages/storageWarning';

const root = document.getElementById('app')!;
const path = location.pathname.replace(/\/+$/, '');
const match = /^\/m\/([^/]+)$/.exec(path);
const player = /^\/u\/([^/]+)$/.exec(path);
const replay = /^\/m\/([^/]+)\/replay\/(\d+)$/.exec(path);
if (match) void startMatchPage(root, match[1]!);
else if (replay) void startReplayPage(root, replay[1]!, Number(replay[2]));
else if (player) void startProfile(root, decodeURIComponent(player[1]!));
else if (path === '/leaderboard') void startLeaderboard(root);
else if (path === '/verify') startVerifyPage(root);
else if (path === '/rules') startRulesPage(root);
else if (path === '/local') startLocalPage(root);
else startLobby(root);
// After the page has drawn itself (pages replace the root's children).
queueMicrotask(() => warnIfNoStorage(document.body));
// The app shell offline (and installable): the worker is built with the client (pwa/).
if ('serviceWorker' in navigator && import.meta.env.PROD) {
  addEventListener('load', () => void navigator.serviceWorker.register('/sw.js').catch(() => undefined));
}
