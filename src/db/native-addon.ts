import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seaAsset } from '../util/sea';

/**
 * Inside the single executable `require()` only reaches built-in modules, so better-sqlite3's compiled addon
 * travels as an SEA asset. It is written once to a content-hashed file (temp name + rename, so concurrent first
 * starts are safe), re-hashed before it is trusted, and loaded with process.dlopen. Outside the SEA this returns
 * undefined and better-sqlite3 finds its addon in node_modules as usual.
 */
export const ADDON_ASSET = 'better_sqlite3.node';

let loaded: unknown;

export function loadNativeBinding(dataDir: string): unknown {
  if (loaded) return loaded;
  const bytes = seaAsset(ADDON_ASSET);
  if (!bytes) return undefined;
  const hash = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const candidates = [
    process.env.XDG_CACHE_HOME ? path.join(process.env.XDG_CACHE_HOME, 'ferry') : null,
    path.join(dataDir, '.native'),
    path.join(os.tmpdir(), `ferry-${process.getuid?.() ?? 'u'}`),
  ].filter((d): d is string => d !== null);
  let lastError: unknown;
  for (const dir of candidates) {
    try {
      const file = path.join(dir, `better_sqlite3-${hash}.node`);
      ensureAddonFile(dir, file, bytes, hash);
      const mod = { exports: {} as unknown };
      process.dlopen(mod, file);
      loaded = mod.exports;
      return loaded;
    } catch (e) {
      lastError = e; // try the next folder: this one may be read-only or mounted noexec
    }
  }
  throw new Error(`cannot load the SQLite addon: ${String(lastError)}`);
}

function ensureAddonFile(dir: string, file: string, bytes: Buffer, hash: string): void {
  if (fs.existsSync(file)) {
    const existing = crypto.createHash('sha256').update(fs.readFileSync(file)).digest('hex').slice(0, 16);
    if (existing === hash) return;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  fs.writeFileSync(tmp, bytes, { mode: 0o700 });
  fs.renameSync(tmp, file);
}
