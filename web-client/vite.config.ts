import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';

// Relative asset URLs: the server may mount the client anywhere. Every asset is bundled (no CDN,
// no web fonts), so dist/ works offline as it is.
export default defineConfig({
  base: './',
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
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
  },
});
