#!/usr/bin/env node
// Runs every uvu suite (unit, http, adversarial, e2e when the binary exists) and prints one closing line
// `tests: N passed, M failed` counted from uvu's own summaries. Exit code 1 when anything failed.
// Usage: node scripts/run-tests.mjs [dir-or-file-pattern ...]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const groups = args.length ? args : ['unit', 'http', 'adversarial', 'e2e', 'browser'];
let passed = 0;
let failed = 0;
let crashed = false;

for (const group of groups) {
  const dir = path.join(root, 'test', group);
  const isDir = fs.existsSync(dir) && fs.statSync(dir).isDirectory();
  const files = isDir
    ? fs.readdirSync(dir).filter((f) => f.endsWith('.test.ts')).sort().map((f) => path.join(dir, f))
    : [path.resolve(group)];
  if (group === 'e2e' && !args.length && !fs.existsSync(path.join(root, 'dist', 'ferry'))) {
    console.log('e2e: dist/ferry not built, skipping (run ./build.sh first; .ci/run does)');
    continue;
  }
  // Browser tests drive Debian's chromium against dist/ferry; without either they cannot run at all.
  if (group === 'browser' && !args.length) {
    const missing = [
      fs.existsSync(path.join(root, 'dist', 'ferry')) ? null : 'dist/ferry (run ./build.sh)',
      fs.existsSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium') ? null : 'chromium (apt-get install chromium)',
    ].filter(Boolean);
    if (missing.length) {
      console.log(`browser: skipping, missing ${missing.join(' and ')}; .ci/run provides both`);
      continue;
    }
  }
  for (const file of files) {
    if (!fs.existsSync(file)) continue;
    const started = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 15 * 60 * 1000,
    });
    const out = `${r.stdout ?? ''}${r.stderr ?? ''}`;
    const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? NaN);
    const ok = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? NaN);
    const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0);
    const rel = path.relative(root, file);
    if (Number.isNaN(total) || Number.isNaN(ok)) {
      crashed = true;
      failed += 1;
      console.log(`${rel}: crashed (exit ${r.status ?? r.signal})\n${out.slice(-4000)}`);
      continue;
    }
    passed += ok;
    failed += total - ok - skipped;
    const bad = total - ok - skipped > 0 || r.status !== 0;
    console.log(`${rel}: ${ok}/${total} passed (${((Date.now() - started) / 1000).toFixed(1)}s)`);
    if (bad) {
      if (total - ok - skipped === 0) failed += 1;
      console.log(out.slice(-6000));
    }
  }
}
console.log(`tests: ${passed} passed, ${failed} failed`);
process.exitCode = failed > 0 || crashed ? 1 : 0;
