/**
 * The page served at `/` (lobby), `/m/<match>` (a match, to play or watch), `/verify`
 * (transcript checks), `/rules` (how to play) and `/local` (two players on this device): one
 * bundle, routed by the path.
 */

import './ui/style.css';
import './ui/pages.css';
import { startLobby } from './pages/lobby';
import { startMatchPage } from './pages/matchPage';
import { startVerifyPage } from './pages/verifyPage';
import { startRulesPage } from './pages/rulesPage';
import { startLocalPage } from './pages/localPage';
import { warnIfNoStorage } from './pages/storageWarning';

const root = document.getElementById('app')!;
const path = location.pathname.replace(/\/+$/, '');
const match = /^\/m\/([^/]+)$/.exec(path);
if (match) void startMatchPage(root, match[1]!);
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
