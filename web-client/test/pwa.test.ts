import { describe, expect, it } from 'vitest';
import { inflateSync } from 'node:zlib';
import { MANIFEST, icon, pwa } from '../pwa/plugin';

describe('the installable app made at build time', () => {
  it('draws PNG icons of the sizes the manifest names', () => {
    for (const { src, sizes } of MANIFEST.icons) {
      const size = Number(sizes.split('x')[0]);
      const png = icon(size, src.includes('maskable'));
      expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(png.readUInt32BE(16)).toBe(size); // IHDR width
      expect(png.readUInt32BE(20)).toBe(size); // IHDR height
      const idatLength = png.readUInt32BE(33);
      const pixels = inflateSync(png.subarray(41, 41 + idatLength));
      expect(pixels.length).toBe((size * 4 + 1) * size);
    }
    expect(MANIFEST.start_url).toBe('/');
    expect(MANIFEST.display).toBe('standalone');
  });

  it('writes the service worker with the build’s own file names', () => {
    const emitted: { fileName: string; source: string | Uint8Array }[] = [];
    const plugin = pwa();
    const bundle = { 'assets/index-abc123.js': {}, 'assets/index-def456.css': {}, 'index.html': {} };
    const hook = plugin.generateBundle as unknown as (this: unknown, o: unknown, b: unknown) => void;
    hook.call({ emitFile: (f: { fileName: string; source: string | Uint8Array }) => emitted.push(f) }, {}, bundle);
    const sw = emitted.find((f) => f.fileName === 'sw.js')!.source as string;
    expect(sw).toContain('"/assets/index-abc123.js"');
    expect(sw).toContain('"/assets/index-def456.css"');
    expect(sw).toContain('"/"');
    expect(sw).toContain('"/manifest.webmanifest"');
    expect(sw).toContain('"/icon-192.png"');
    expect(sw).not.toContain('__SHELL__');
    expect(sw).toMatch(/const VERSION = "[0-9a-f]{12}";/);
    expect(emitted.map((f) => f.fileName).sort()).toEqual(['icon-192.png', 'icon-512.png', 'icon-maskable-512.png', 'manifest.webmanifest', 'sw.js']);
  });
});
