import fs from 'node:fs';
import path from 'node:path';

/**
 * The `http` files whose result cannot depend on FERRY_TEST_DB or FERRY_TEST_STORAGE, with the reason: they start
 * no test server, or choose their database and store themselves. scripts/run-tests.mjs runs them in the `http`
 * group only, not again in `http-postgres` and `http-s3` (docs/development.md, "Testing"), and
 * test/unit/same-in-every-variant.test.ts checks that none of them reaches what the variants change.
 */
export const SAME_IN_EVERY_VARIANT: Record<string, string> = {
  'access-repository-contract.test.ts': 'runs its cases on the fakes, SQLite and PostgreSQL itself',
  'import-repository-contract.test.ts': 'runs its cases on the fakes, SQLite and PostgreSQL itself',
  'sharing-repository-contract.test.ts': 'runs its cases on the fakes, SQLite and PostgreSQL itself',
  'transfer-repository-contract.test.ts': 'runs its cases on the fakes, SQLite and PostgreSQL itself',
  'repository-contract.test.ts': 'runs its cases on SQLite and PostgreSQL itself',
  'migrations.test.ts': 'migrates a SQLite file and a PostgreSQL database of its own',
  'client-filesender.test.ts': 'the client against a FileSender emulator: no ferry server, no ferry database',
  'log-format.test.ts': 'starts `serve` from a config file of its own (SQLite and the filesystem)',
};

/**
 * What follows the variant: the test server's database and store (test/helpers/server.ts) and whatever reads the
 * variables. `forEachWorld` (test/helpers/repository-worlds.ts) reads FERRY_TEST_DB only to leave worlds out, and
 * runs every world in the `http` group, where the variable is unset.
 */
export const FOLLOWS_VARIANT = /\b(startTestServer|testDatabaseUrl|testStorage|TEST_DB|TEST_STORAGE|FERRY_TEST_\w+)\b/;
const NARROWS_ONLY = new Set(['repository-worlds.ts']);

/**
 * Why `file` may follow the variant (a line naming what it reaches, through its imports of test/ modules), or
 * null when it cannot. Imports of test/helpers/server.ts are checked by name, since that module also holds plain
 * helpers (`request`, `tempDir`); any other test module is followed whole.
 */
export function followsVariant(file: string, seen = new Set<string>()): string | null {
  if (seen.has(file)) return null;
  seen.add(file);
  const text = fs.readFileSync(file, 'utf8');
  const base = path.basename(file);
  if (!NARROWS_ONLY.has(base)) {
    const own = text.replace(/^\s*(import|export)\s[^;]*?from\s+'[^']+';/gms, '');
    const hit = FOLLOWS_VARIANT.exec(own);
    if (hit) return `${path.relative(process.cwd(), file)} uses ${hit[1]}`;
  }
  for (const m of text.matchAll(/^\s*(?:import|export)\s([^;]*?)\sfrom\s+'(\.[^']+)';/gms)) {
    const target = path.resolve(path.dirname(file), m[2]);
    const resolved = [`${target}.ts`, path.join(target, 'index.ts')].find((f) => fs.existsSync(f));
    if (!resolved?.includes(`${path.sep}test${path.sep}`)) continue;
    if (path.basename(resolved) === 'server.ts') {
      const hit = FOLLOWS_VARIANT.exec(m[1]);
      if (hit) return `${path.relative(process.cwd(), file)} imports ${hit[1]}`;
      continue;
    }
    const why = followsVariant(resolved, seen);
    if (why) return why;
  }
  return null;
}
