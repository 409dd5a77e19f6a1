import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { pwa } from './pwa/plugin';

// Asset URLs from the site's root: the same index.html answers /, /m/<match>, /u/<name>, ...,
// and the Content-Security-Policy's base-uri 'none' allows no <base> element to fix relative
// ones (serve dist at the root of the site). Every asset is bundled (no CDN, no web fonts), so
// dist/ works offline as it is.
export default defineConfig({
  base: '/',
  // Manifest, icons and a service worker that knows this build's file names (installable, and
  // the game on this device works offline).
  plugins: [pwa()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    assetsInlineLimit: 0,
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, 'index.html'),
        demo: resolve(import.meta.dirname, 'demo.html'),
      },
    },
  },
  // `npm run dev`: the lobby, API and WebSocket of a local `fairgammon serve` on port 8000,
  // started with FAIRGAMMON_ALLOWED_ORIGINS=http://localhost:5173 (the dev page's origin).
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8000',
      '/ws': { target: 'ws://127.0.0.1:8000', ws: true },
    },
  },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
