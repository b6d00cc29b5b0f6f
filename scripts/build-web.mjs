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
  entryPoints: { app: 'web/main.tsx' },
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
const files = fs.readdirSync(out).filter((f) => f !== 'manifest.json').sort();
fs.writeFileSync(path.join(out, 'manifest.json'), JSON.stringify({ files }, null, 1) + '\n');
const sizes = files.map((f) => `${f} ${(fs.statSync(path.join(out, f)).size / 1024).toFixed(1)} KiB`).join(', ');
console.log(`web assets: ${sizes} → ${path.relative(root, out) || out} (${Date.now() - started} ms)`);
if (result.errors.length) process.exitCode = 1;
