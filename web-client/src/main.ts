/**
 * The page served at `/` (lobby), `/m/<match>` (a match, to play or watch), `/m/<match>/replay/<n>`
 * (a recorded game on the replay board) and `/verify` (transcript checks): one bundle, routed by the path.
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
else startLobby(root);
