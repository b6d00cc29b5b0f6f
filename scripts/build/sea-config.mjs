#!/usr/bin/env node
// Writes the Node single-executable config for build.sh and prints a fingerprint of everything that goes into
// dist/ferry (the bundles, every asset, the config, the node binary, build.sh itself); build.sh compares this
// fingerprint to skip the slow blob + inject steps when nothing changed.
// Usage: node scripts/build/sea-config.mjs <config-out> <launcher> <app-bundle> <blob-out> <sqlite-addon> <web-assets-dir>
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const [cfgPath, main, app, output, addon, webDir] = process.argv.slice(2);
// The launcher (src/launcher.ts) compiles the application from its asset; neither needs V8's code cache.
const assets = { 'ferry.cjs': app, 'better_sqlite3.node': addon };
if (fs.existsSync(webDir)) {
  const walk = (d) =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  for (const f of walk(webDir).sort()) assets[`web/${path.relative(webDir, f).split(path.sep).join('/')}`] = f;
}
// V8 starts a full collection whenever the old generation's slack falls below the young generation's size, and
// sizes that slack from the small heap the application starts with (~23 MB): during an upload, whose 64 KiB
// socket buffers keep passing through, that made a full collection every ~30 MiB received, about 1 CPU-second
// per GiB on V8's helper threads. A first limit of 256 MB stops it, and without the memory reducer a few idle
// seconds between uploads no longer shrink the limit back. The limit reserves nothing; the memory reducer's
// absence costs some 10-20 MiB of RSS (docs/architecture.md, Memory).
// Two limits bring Node 24 back to Node 20's footprint under load, at no CPU cost measured: the young generation
// stops at 16 MiB semi-spaces (Node 20's limit; Node 24 lets them grow to 64 MiB without pointer compression,
// and a minute of GET /transfer took RSS from 195 to 225 MiB), and V8's mid-tier compiler Maglev is off (its
// code and compile zones held ~20 MiB; the hot paths still reach TurboFan).
const execArgv = ['--initial-old-space-size=256', '--no-memory-reducer', '--max-semi-space-size=16', '--no-maglev'];
const config = {
  main,
  output,
  disableExperimentalSEAWarning: true,
  useCodeCache: false,
  useSnapshot: false,
  execArgv,
  assets,
};
const text = JSON.stringify(config, null, 2) + '\n';
if (!fs.existsSync(cfgPath) || fs.readFileSync(cfgPath, 'utf8') !== text) fs.writeFileSync(cfgPath, text);

const hash = crypto.createHash('sha256');
const add = (label, file) => hash.update(`${label}\0`).update(fs.readFileSync(file)).update('\0');
hash.update(text);
add('main', main);
for (const [key, file] of Object.entries(assets)) add(key, file);
// The node that is copied: same path, size and mtime means the same binary (hashing 95 MB costs ~0.3 s).
const st = fs.statSync(process.execPath);
hash.update(`node\0${process.execPath}\0${process.version}\0${st.size}\0${st.mtimeMs}\0`);
add('build.sh', new URL('../../build.sh', import.meta.url));
process.stdout.write(hash.digest('hex') + '\n');
