/**
 * The single executable's own powers: whether this process runs inside it, and the assets bundled into it
 * (the pages, better-sqlite3's addon). Outside the single executable both say "no" and the callers fall back to
 * node_modules and the build folder. Kept apart from any adapter, so that the pages, the CLI and the database
 * reach it without importing each other (docs/architecture.md, "What each folder may import").
 */

interface SeaModule {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

function seaModule(): SeaModule | null {
  try {
    // node:sea is built in (Node 20.12+); the require is kept dynamic so esbuild leaves it to the runtime.
    const sea = require('node:sea') as SeaModule;
    return sea.isSea() ? sea : null;
  } catch {
    return null;
  }
}

export function isSea(): boolean {
  return seaModule() !== null;
}

export function seaAsset(key: string): Buffer | null {
  const sea = seaModule();
  if (!sea) return null;
  try {
    return Buffer.from(sea.getAsset(key));
  } catch {
    return null;
  }
}
