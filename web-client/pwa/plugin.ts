/**
 * The installable app, made at build time (no extra dependency): the web app manifest, PNG
 * icons drawn here (two checkers on the board's felt), and the service worker with the build's
 * hashed file names written into its cache list.
 */

import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import type { Plugin } from 'vite';

/** The pages the shell answers offline (all one bundle), besides the build's own files. */
const PAGES = ['/', '/demo.html'];

export const MANIFEST = {
  name: 'fairgammon — backgammon with fair dice',
  short_name: 'fairgammon',
  description: 'Backgammon online with dice nobody can fix, or two players on one device.',
  start_url: '/',
  scope: '/',
  display: 'standalone',
  orientation: 'any',
  background_color: '#f2ede4',
  theme_color: '#2f6b5c',
  icons: [
    { src: '/icon-192.png', sizes: '192x192', type: 'image/png', purpose: 'any' },
    { src: '/icon-512.png', sizes: '512x512', type: 'image/png', purpose: 'any' },
    { src: '/icon-maskable-512.png', sizes: '512x512', type: 'image/png', purpose: 'maskable' },
  ],
};

// ---- a tiny PNG encoder -------------------------------------------------------------------

const CRC = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'ascii');
  Buffer.from(data).copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** An RGBA image as PNG. */
export function png(width: number, height: number, rgba: Uint8Array): Buffer {
  const raw = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 4 + 1)] = 0; // no filter
    Buffer.from(rgba.subarray(y * width * 4, (y + 1) * width * 4)).copy(raw, y * (width * 4 + 1) + 1);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // RGBA
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', new Uint8Array())]);
}

type RGB = readonly [number, number, number];

/** The icon: a copper and an ivory checker on green felt; `maskable` keeps them in the safe zone. */
export function icon(size: number, maskable = false): Buffer {
  const px = new Uint8Array(size * size * 4);
  const felt: RGB = [47, 107, 92];
  const scale = maskable ? 0.72 : 1;
  const r = size * 0.25 * scale;
  const checkers: [number, number, RGB, RGB][] = [
    [size * (0.5 - 0.14 * scale), size * 0.5, [180, 95, 44], [77, 33, 10]],
    [size * (0.5 + 0.14 * scale), size * 0.5, [239, 229, 207], [143, 125, 88]],
  ];
  const corner = maskable ? 0 : size * 0.18;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const i = (y * size + x) * 4;
      // Rounded square of felt (the whole square when maskable: the platform cuts the shape).
      const cx = Math.max(corner - x, 0, x - (size - 1 - corner));
      const cy = Math.max(corner - y, 0, y - (size - 1 - corner));
      if (corner > 0 && cx * cx + cy * cy > corner * corner) continue;
      let colour: RGB = felt;
      for (const [x0, y0, fill, edge] of checkers) {
        const d = Math.hypot(x + 0.5 - x0, y + 0.5 - y0);
        if (d <= r) colour = d > r * 0.9 ? edge : fill;
      }
      px[i] = colour[0];
      px[i + 1] = colour[1];
      px[i + 2] = colour[2];
      px[i + 3] = 255;
    }
  }
  return png(size, size, px);
}

/** The Vite plugin: manifest, icons and the service worker beside the built pages. */
export function pwa(): Plugin {
  return {
    name: 'fairgammon-pwa',
    apply: 'build',
    generateBundle(_options, bundle) {
      const files: [string, string | Uint8Array][] = [
        ['manifest.webmanifest', JSON.stringify(MANIFEST, null, 2)],
        ['icon-192.png', icon(192)],
        ['icon-512.png', icon(512)],
        ['icon-maskable-512.png', icon(512, true)],
      ];
      for (const [fileName, source] of files) this.emitFile({ type: 'asset', fileName, source });
      const built = Object.keys(bundle).filter((name) => !name.endsWith('.html') && !name.endsWith('.map'));
      // (Rollup adds emitted files to the bundle as well: the Set keeps each name once.)
      const shell = [...new Set([...PAGES, ...files.map(([name]) => `/${name}`), ...built.map((name) => `/${name}`)])].sort();
      const version = createHash('sha256').update(shell.join('\n')).digest('hex').slice(0, 12);
      const template = readFileSync(new URL('./sw.js', import.meta.url), 'utf8');
      const source = template.replace('__VERSION__', JSON.stringify(version)).replace('__SHELL__', JSON.stringify(shell, null, 2));
      this.emitFile({ type: 'asset', fileName: 'sw.js', source });
    },
  };
}
