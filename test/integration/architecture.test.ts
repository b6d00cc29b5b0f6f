import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import path from 'node:path';

import { spawnSync } from 'node:child_process';
import { tempDir } from '../helpers/temp-dir';

// docs/architecture.md, "What each folder may import": the rules live in .dependency-cruiser.cjs and `npm run lint`
// applies them to src/ and web/. These tests show that the rules hold on the tree and refuse a wrong import.

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'src');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');

/** dependency-cruiser's report on `cwd`: a circle is an "error no-circular:" line and the chain after it. */
function cruise(cwd: string): string {
  const r = spawnSync(DEPCRUISE, ['src', 'web', '--config', CONFIG, '--output-type', 'err'], { cwd, encoding: 'utf8' });
  return `${r.stdout}${r.stderr}`;
}

/** The import-rule violations dependency-cruiser finds under `cwd` (one "error rule: from → to" line each). */
function violations(cwd: string): string[] {
  return cruise(cwd)
    .split('\n')
    .filter((l) => /^\s*error /.test(l))
    .map((l) => l.trim());
}

test('every import in src/ and web/ is one its folder may make', () => {
  assert.equal(violations(ROOT), []);
});

/** A scratch project with this one's rules and packages; `put` writes a source file into it. */
function scratchTree() {
  const dir = tempDir();
  const put = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), text);
  };
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.copyFileSync(path.join(ROOT, 'tsconfig.json'), path.join(dir, 'tsconfig.json'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  return { dir, put };
}

test('the rules refuse the domain reaching an adapter or a package, the pages reaching the server, and a folder with no row', () => {
  const { dir, put } = scratchTree();
  put('src/db/repo.ts', 'export const repo = 1;\n');
  put('src/http/route.ts', 'export const route = 1;\n');
  put(
    'src/domain/rules.ts',
    "import { repo } from '../db/repo';\nimport { sql } from 'kysely';\nexport const x = [repo, sql];\n",
  );
  put('src/domain/deeper/more.ts', "import { route } from '../../http/route';\nexport const y = route;\n");
  put('src/newfolder/thing.ts', "import { x } from '../domain/rules';\nexport const z = x;\n");
  put(
    'web/lib/page.ts',
    "import { route } from '../../src/http/route';\nimport fs from 'node:fs';\nexport const p = [route, fs];\n",
  );
  put('web/pages/fine.ts', "import { x } from '../../src/domain/rules';\nexport const q = x;\n");
  const found = violations(dir).join('\n');
  for (const wrong of [
    'src/domain/rules.ts → src/db/repo.ts',
    'domain-uses-no-package: src/domain/rules.ts → ',
    'src/domain/deeper/more.ts → src/http/route.ts',
    'src/newfolder/thing.ts → src/domain/rules.ts',
    'web/lib/page.ts → src/http/route.ts',
    'web-uses-no-node: web/lib/page.ts → fs',
  ]) {
    assert.ok(found.includes(wrong), `${wrong} not refused in:\n${found}`);
  }
  assert.not.ok(found.includes('web/pages/fine.ts'), found);
});

test('the rules refuse an import circle, a type-only one and one through three files included', () => {
  const { dir, put } = scratchTree();
  // Each import alone is one its folder may make: only the circle is wrong.
  put('src/i18n/table.ts', "import type { en } from './en';\nexport type Table = Record<keyof typeof en, string>;\n");
  put(
    'src/i18n/en.ts',
    "import type { Table } from './table';\nexport const en = { a: 'A' };\nexport type T = Table;\n",
  );
  put('src/http/routes/login.ts', "import { page } from '../web/pages';\nexport const back = () => page;\n");
  put('src/http/web/pages.ts', "import { link } from './links';\nexport const page = link;\n");
  put('src/http/web/links.ts', "import { back } from '../routes/login';\nexport const link = back;\n");
  put('src/http/fine.ts', "import { page } from './web/pages';\nexport const f = page;\n");
  put('web/lib/fine.ts', 'export const w = 1;\n');
  const circles = cruise(dir);
  const errors = circles.split('\n').filter((l) => /^\s*error /.test(l));
  // Every violation is a circle (each import alone is allowed); a circle is reported once per file in it.
  assert.ok(errors.length >= 2 && errors.every((l) => l.trim().startsWith('error no-circular:')), circles);
  assert.ok(circles.includes('src/i18n/table.ts') && circles.includes('src/i18n/en.ts'), circles);
  assert.ok(
    ['src/http/routes/login.ts', 'src/http/web/pages.ts', 'src/http/web/links.ts'].every((f) => circles.includes(f)),
    circles,
  );
  assert.not.ok(circles.includes('src/http/fine.ts'), circles);
});

test('the ports are where the domain says: one folder, every port async', () => {
  const ports = fs.readdirSync(path.join(SRC, 'domain', 'ports')).sort();
  assert.equal(ports, [
    'clock.ts',
    'file-store.ts',
    'filesender-source.ts',
    'ids.ts',
    'index.ts',
    'mailer.ts',
    'nodes.ts',
    'repositories.ts',
    'unit-of-work.ts',
    'virus-scanner.ts',
  ]);
  // Every repository method returns a Promise: nothing shaped by a synchronous driver.
  const repos = fs.readFileSync(path.join(SRC, 'domain', 'ports', 'repositories.ts'), 'utf8');
  const methods = [...repos.matchAll(/^ {2}(\w+)\(.*\): (.+);$/gm)];
  assert.ok(methods.length > 60, `${methods.length} repository methods`);
  for (const m of methods) assert.match(m[2], /^Promise</, `${m[1]} returns ${m[2]}`);
});

/** The source files under `dir` (recursively), as paths relative to the repository. */
function sources(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.tsx?$/.test(f))
    .map((f) => path.relative(ROOT, path.join(dir, f)).split(path.sep).join('/'));
}

/** How many lines a top-level function of `text` takes, from its `export … function name(` line to its closing brace. */
function functionLines(text: string, name: string): number {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => new RegExp(`^export (async )?function ${name}\\(`).test(l));
  if (start < 0) return -1;
  const end = lines.findIndex((l, i) => i > start && l === '}');
  return end - start + 1;
}

test('createApp only composes the capabilities of src/compose/: at most 80 lines', () => {
  const app = fs.readFileSync(path.join(SRC, 'app.ts'), 'utf8');
  const n = functionLines(app, 'createApp');
  assert.ok(n > 0 && n <= 80, `createApp takes ${n} lines`);
  // Nothing concrete is built in app.ts itself: every part comes from a capability.
  assert.equal(
    [...app.matchAll(/\bnew ([A-Z]\w+)\(/g)].map((m) => m[1]),
    [],
  );
  assert.is(functionLines('export function f() {\n  return 1;\n}\n', 'f'), 3);
});

/**
 * The SQL statements in a source text: a string or template that begins with a statement's keywords (upper
 * case, as every statement of this project is written).
 */
function sqlStatements(text: string): string[] {
  const statement =
    /['"`]\s*(SELECT\s+[\w*(]|INSERT\s+INTO\s|UPDATE\s+\w+\s+SET\s|DELETE\s+FROM\s|CREATE\s+(TABLE|UNIQUE|INDEX)\s|ALTER\s+TABLE\s|DROP\s+(TABLE|INDEX)\s|PRAGMA\s|BEGIN\s+IMMEDIATE)/g;
  return [...text.matchAll(statement)].map((m) => m[0]);
}

test("no SQL statement in src/ outside src/db (FileSender's database, read by `ferry import`, included)", () => {
  const found = sources(SRC)
    .filter((f) => !f.startsWith('src/db/'))
    .flatMap((f) => sqlStatements(fs.readFileSync(path.join(ROOT, f), 'utf8')).map((sql) => `${f}: ${sql}`));
  assert.equal(found, []);
  // The check finds what it is for, and not the words in prose.
  assert.equal(
    sqlStatements("db.query('SELECT id FROM transfers LIMIT 1'); q(`DELETE FROM files`); say('Select a file');").length,
    2,
  );
});

/**
 * The members of the `Services` interface whose type names a repository, a lock, a unit of work or the file
 * store's raw ports: what the HTTP layer and the CLI reach must be use cases, never the parts under them.
 */
function servicesReachingPorts(servicesText: string): string[] {
  const ports = (file: string) =>
    [
      ...fs
        .readFileSync(path.join(SRC, 'domain', 'ports', file), 'utf8')
        .matchAll(/^export (?:interface|type) (\w+)/gm),
    ].map((m) => m[1]);
  const forbidden = new Set([
    ...ports('repositories.ts').filter((n) => /(Repository|Repositories|Reader)$/.test(n)),
    ...ports('unit-of-work.ts'),
    'FileStore',
    'PositionalReader',
    'MultipartUploads',
    'UploadHashing',
  ]);
  const body = /export interface Services \{([\s\S]*?)\n\}/.exec(servicesText)?.[1] ?? '';
  const members = [...body.matchAll(/^ {2}(\w+)\??: ([\s\S]*?);$/gm)];
  return members
    .filter((m) => [...m[2].matchAll(/\b[A-Z]\w*/g)].some((t) => forbidden.has(t[0])))
    .map((m) => `${m[1]}: ${m[2]}`);
}

test('Services exposes use cases, never a repository or a lock', () => {
  const text = fs.readFileSync(path.join(SRC, 'services.ts'), 'utf8');
  assert.ok(/export interface Services \{/.test(text));
  assert.equal(servicesReachingPorts(text), []);
  const wrong = `export interface Services {
  locks: Locks;
  mailDelivery: MailDeliveryReader;
  trackingErrors: TrackingErrorRepository;
  openFile: (f: FileRecord) => Promise<PositionalReader>;
  transfers: TransfersService;
}`;
  assert.equal(
    servicesReachingPorts(wrong).map((m) => m.split(':')[0]),
    ['locks', 'mailDelivery', 'trackingErrors', 'openFile'],
  );
});

test.run();
