import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';
import { builtinModules } from 'node:module';

// docs/architecture.md, "What each folder may import": the domain owns its ports and imports no adapter, no
// framework and no driver. This reads every import of src/ and fails the run on a forbidden one.

const SRC = path.resolve(__dirname, '../../src');

/** Every .ts file under dir, recursively. */
function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return sources(p);
    return d.name.endsWith('.ts') ? [p] : [];
  });
}

/** The specifiers a file imports (static imports, re-exports, dynamic imports and require). */
function imports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const found = new Set<string>();
  for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\b[^'"`;]*?from\s*['"]([^'"]+)['"]/g)) found.add(m[1]);
  for (const m of text.matchAll(/(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g)) found.add(m[1]);
  for (const m of text.matchAll(/\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g)) found.add(m[1]);
  return [...found];
}

/** The top folder of src/ a relative import lands in ('' for a file directly in src/). */
function folderOf(from: string, spec: string): string {
  const target = path.relative(SRC, path.resolve(path.dirname(from), spec));
  if (target.includes(path.sep)) return target.split(path.sep)[0];
  return fs.existsSync(path.join(SRC, target)) && fs.statSync(path.join(SRC, target)).isDirectory() ? target : '';
}

/** What each folder may import from src/ besides itself (the table of docs/architecture.md). */
const MAY_IMPORT: Record<string, string[]> = {
  domain: [],
  db: ['domain', 'config'],
  storage: ['domain', 'util', 'shared'],
  mail: ['domain', 'config', 'i18n', 'util', 'shared', 'log.ts'],
  auth: ['domain', 'config', 'util', 'shared'],
};

const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

/**
 * Besides itself, the domain may use the encryption format's arithmetic (src/shared-crypto: pure code, no I/O,
 * the same that the pages and the client run), so that sizes and offsets of ciphertext are computed in one place.
 */
const DOMAIN_MAY_IMPORT = ['domain', 'shared-crypto'];

test('the domain imports nothing but itself, the pure encryption format and Node built-ins: no adapter, no framework, no driver', () => {
  const offenders: string[] = [];
  for (const file of sources(path.join(SRC, 'domain'))) {
    for (const spec of imports(file)) {
      const ok = spec.startsWith('.') ? DOMAIN_MAY_IMPORT.includes(folderOf(file, spec)) : builtins.has(spec);
      if (!ok) offenders.push(`${path.relative(SRC, file)} imports ${spec}`);
    }
  }
  assert.equal(offenders, [], offenders.join('\n'));
});

test('adapters import only the domain and the shared helpers their row of the table allows', () => {
  const offenders: string[] = [];
  for (const [folder, allowed] of Object.entries(MAY_IMPORT)) {
    if (folder === 'domain') continue;
    for (const file of sources(path.join(SRC, folder))) {
      for (const spec of imports(file).filter((s) => s.startsWith('.'))) {
        const target = folderOf(file, spec);
        const name = target === '' ? path.basename(path.resolve(path.dirname(file), spec)) + '.ts' : target;
        if (target !== folder && !allowed.includes(name)) offenders.push(`${path.relative(SRC, file)} imports ${spec}`);
      }
    }
  }
  assert.equal(offenders, [], offenders.join('\n'));
});

test('the ports are where the domain says: one folder, every port async', () => {
  const ports = fs.readdirSync(path.join(SRC, 'domain', 'ports')).sort();
  assert.equal(ports, ['clock.ts', 'file-store.ts', 'ids.ts', 'index.ts', 'mailer.ts', 'repositories.ts', 'unit-of-work.ts']);
  // Every repository method returns a Promise: nothing shaped by a synchronous driver.
  const repos = fs.readFileSync(path.join(SRC, 'domain', 'ports', 'repositories.ts'), 'utf8');
  const methods = [...repos.matchAll(/^ {2}(\w+)\(.*\): (.+);$/gm)];
  assert.ok(methods.length > 60, `${methods.length} repository methods`);
  for (const m of methods) assert.match(m[2], /^Promise</, `${m[1]} returns ${m[2]}`);
});

test.run();
