#!/usr/bin/env node
// Bundles the browser code (web/, TypeScript + Preact) and its CSS into .build/web-assets/ with esbuild, and
// writes manifest.json naming every file. build.sh embeds each file as SEA asset `web/<name>`; from source
// the server reads the folder directly (src/http/web/assets.ts).
// Usage: node scripts/build-web.mjs [--out DIR] [--dev]
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const outIdx = args.indexOf('--out');
const out = outIdx >= 0 ? path.resolve(args[outIdx + 1]) : path.join(root, '.build', 'web-assets');
const dev = args.includes('--dev');

fs.rmSync(out, { recursive: true, force: true });
fs.mkdirSync(out, { recursive: true });

const started = Date.now();
const result = await esbuild.build({
  absWorkingDir: root,
  // Workers are files of their own (a worker's script is loaded by URL): the download page's service worker
  // and the upload page's upload engine (which also seals chunks for end-to-end encryption).
  entryPoints: {
    app: 'web/main.tsx',
    'download-sw': 'web/download-sw.ts',
    'upload-worker': 'web/upload/upload-worker.ts',
  },
  bundle: true,
  outdir: out,
  format: 'iife',
  platform: 'browser',
  target: ['chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  minify: !dev,
  sourcemap: dev ? 'inline' : false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
await esbuild.build({
  absWorkingDir: root,
  entryPoints: { app: 'web/style.css' },
  bundle: true,
  outdir: out,
  minify: !dev,
  logLevel: 'warning',
});
fs.writeFileSync(path.join(out, 'favicon.ico'), favicon());
const files = fs
  .readdirSync(out)
  .filter((f) => f !== 'manifest.json')
  .sort();
fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ files }, null, 1) + '\n');
const sizes = files.map((f) => `${f} ${(fs.statSync(path.join(out, f)).size / 1024).toFixed(1)} KiB`).join(', ');
console.log(`web assets: ${sizes} → ${path.relative(root, out) || out} (${Date.now() - started} ms)`);
if (result.errors.length) process.exitCode = 1;

/**
 * ferry's icon, drawn here rather than kept as a binary file: a 32×32 ICO holding one 32-bit bitmap, the
 * blue of the pages with a white arrow pointing up (sending). Answers /favicon.ico from the binary.
 */
function favicon() {
  const N = 32;
  const blue = [0xad, 0x5c, 0x0b, 0xff]; // B, G, R, A of #0b5cad
  const white = [0xff, 0xff, 0xff, 0xff];
  const clear = [0, 0, 0, 0];
  const r = 6; // corner radius
  const inSquare = (x, y) => {
    const cx = Math.min(Math.max(x + 0.5, r), N - r);
    const cy = Math.min(Math.max(y + 0.5, r), N - r);
    return (x + 0.5 - cx) ** 2 + (y + 0.5 - cy) ** 2 <= r * r;
  };
  const inArrow = (x, y) => {
    const half = y - 5; // the head widens by one pixel a row from its tip at row 6
    if (y >= 6 && y <= 15 && Math.abs(x + 0.5 - 16) <= half) return true;
    return y > 15 && y <= 25 && x >= 13 && x <= 18;
  };
  const pixels = Buffer.alloc(N * N * 4);
  for (let y = 0; y < N; y++) {
    for (let x = 0; x < N; x++) {
      const c = !inSquare(x, y) ? clear : inArrow(x, y) ? white : blue;
      pixels.set(c, ((N - 1 - y) * N + x) * 4); // bitmaps run bottom-up
    }
  }
  const mask = Buffer.alloc(N * 4); // AND mask, 1 bit a pixel: all 0 (the alpha channel decides)
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(N, 4);
  info.writeInt32LE(N * 2, 8); // height of colour + mask
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const head = Buffer.alloc(6 + 16);
  head.writeUInt16LE(1, 2); // type: icon
  head.writeUInt16LE(1, 4); // one image
  head.writeUInt8(N, 6);
  head.writeUInt8(N, 7);
  head.writeUInt16LE(1, 10); // planes
  head.writeUInt16LE(32, 12); // bits per pixel
  head.writeUInt32LE(image.length, 14);
  head.writeUInt32LE(head.length, 18);
  return Buffer.concat([head, image]);
}
