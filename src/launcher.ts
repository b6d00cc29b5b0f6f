import path from 'node:path';
import vm from 'node:vm';
import { VERSION } from './version';

/**
 * The single executable's entry (build.sh): `ferry version` answers here; every other command compiles the
 * application bundle, an SEA asset, and runs it. The executable used to start the application itself from
 * V8's code cache, but V8 runs code taken from that cache markedly slower than code it compiled itself
 * (GET /transfer: 4,000 against 5,500 requests/s), while without a cache compiling the whole 2.6 MB
 * application cost `ferry version` 50 ms. This file is small enough that neither is needed.
 */
export const APP_ASSET = 'ferry.cjs';

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === 'version') {
  process.stdout.write(`ferry ${VERSION}\n`); // as src/cli/version.ts prints it
} else {
  // The dynamic require keeps esbuild from resolving node:sea (the app bundle's own `require` is this one too:
  // inside the executable it reaches built-in modules only).
  const sea = require('node:sea') as { getAsset(key: string, encoding: string): string };
  const filename = path.join(path.dirname(process.execPath), APP_ASSET);
  const params = ['exports', 'require', 'module', '__filename', '__dirname'];
  const app = vm.compileFunction(sea.getAsset(APP_ASSET, 'utf8'), params, { filename });
  const mod = { exports: {} };
  app(mod.exports, require, mod, filename, path.dirname(filename));
}
