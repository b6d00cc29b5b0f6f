// Runs several uvu test files in this one process, one after another, as uvu's own CLI does (it sets
// `globalThis.UVU_DEFER` so that a file's `test.run()` queues its suite instead of starting it), and writes one
// line per file: `RESULT_PREFIX` and a JSON `FileResult`. scripts/run-tests.mjs starts it for the groups whose files
// are pure code (docs/development.md, "Testing"): one process and one `tsx` start instead of one per file.
//
// Unlike uvu's CLI, each file's suites run right after that file is imported, so that what a file leaves behind is
// found and charged to it: a variable of `process.env` it set or removed (put back), `process.exitCode` (reset), a
// global it added, a timer or handle still keeping the process alive, an unhandled rejection or uncaught exception.
// Any of these fails the file, with its output.
// Usage: node --import tsx test/helpers/run-in-one-process.ts <file.test.ts> ...
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** The start of each result line; the rest of the line is JSON. */
export const RESULT_PREFIX = '@ferry-test-file ';

/** What one file did. `problems` are the leaks and crashes found besides failed tests. */
export interface FileResult {
  file: string;
  passed: number;
  total: number;
  skipped: number;
  seconds: number;
  problems: string[];
  /** What the file printed, only when it failed (the last 6,000 characters). */
  output: string;
}

type SuiteRun = () => Promise<[true | string, number, number, number]>;
interface UvuGlobals {
  UVU_DEFER?: number;
  UVU_INDEX?: number;
  UVU_QUEUE?: unknown[][];
}
const uvuGlobals = globalThis as unknown as UvuGlobals;

/** The resources keeping the event loop alive, counted by kind (only ref'd timers and handles are listed). */
function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo()) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

/**
 * Globals that libraries set once when they are first loaded, whichever file loads them first: zod's registry and
 * config, and the AWS SDK's Lambda invoke store. They are shared by design, as in any process that loads them.
 */
const LIBRARY_GLOBALS = new Set(['__zod_globalConfig', '__zod_globalRegistry', 'awslambda']);

/** What a file's process-wide state looked like before it ran. */
function snapshot() {
  return { env: { ...process.env }, globals: new Set(Object.keys(globalThis)), resources: activeResources() };
}

/** Puts `process.env` and the globals back as they were, and names what the file changed. */
function restore(before: ReturnType<typeof snapshot>): string[] {
  const problems: string[] = [];
  const changed = new Set([...Object.keys(before.env), ...Object.keys(process.env)]);
  for (const key of changed) {
    if (process.env[key] === before.env[key]) continue;
    problems.push(`left process.env.${key} changed`);
    if (before.env[key] === undefined) delete process.env[key];
    else process.env[key] = before.env[key];
  }
  for (const key of Object.keys(globalThis)) {
    if (before.globals.has(key) || key.startsWith('UVU_') || LIBRARY_GLOBALS.has(key)) continue;
    problems.push(`left a global \`${key}\``);
    delete (globalThis as Record<string, unknown>)[key];
  }
  if (process.exitCode !== undefined && process.exitCode !== 0) {
    problems.push(`set process.exitCode to ${process.exitCode}`);
  }
  process.exitCode = undefined;
  return problems;
}

/**
 * Timers and handles the file started and left running. A socket or file closes a moment after the test that
 * used it ends, so the count is taken again for up to a second before anything is named.
 */
async function leftRunning(before: Map<string, number>): Promise<string[]> {
  let extra: string[] = [];
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, attempt === 0 ? 0 : 50));
    extra = [];
    for (const [kind, n] of activeResources()) {
      const more = n - (before.get(kind) ?? 0);
      // The wait's own timer has fired by now: it is not among them.
      if (more > 0) extra.push(`${more} ${kind}`);
    }
    if (!extra.length) return [];
  }
  return [`left running when its tests ended: ${extra.join(', ')}`];
}

/** Runs one file: imports it (its suites queue themselves), then runs each queued suite. */
async function runFile(file: string): Promise<FileResult> {
  const started = performance.now();
  const before = snapshot();
  const problems: string[] = [];
  let output = '';
  const writes = { out: process.stdout.write, err: process.stderr.write };
  const capture = (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
    output += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    done?.();
    return true;
  };
  const onError = (e: unknown) => problems.push(`unhandled: ${e instanceof Error ? (e.stack ?? e.message) : e}`);
  process.on('unhandledRejection', onError);
  process.on('uncaughtException', onError);
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  let passed = 0;
  let total = 0;
  let skipped = 0;
  try {
    uvuGlobals.UVU_INDEX = 0;
    uvuGlobals.UVU_QUEUE = [[path.relative(process.cwd(), file)]];
    try {
      await import(pathToFileURL(file).href);
    } catch (e) {
      problems.push(`crashed on import: ${e instanceof Error ? (e.stack ?? e.message) : e}`);
    }
    const [, ...runs] = uvuGlobals.UVU_QUEUE[0] as [string, ...SuiteRun[]];
    if (!runs.length && !problems.length) problems.push('queued no test suite (no `test.run()`)');
    for (const run of runs) {
      const [errors, ran, skip, max] = await run();
      passed += ran;
      total += max;
      skipped += skip;
      if (errors !== true) output += `\n${errors}\n`;
    }
    problems.push(...(await leftRunning(before.resources)));
  } finally {
    process.stdout.write = writes.out;
    process.stderr.write = writes.err;
    process.off('unhandledRejection', onError);
    process.off('uncaughtException', onError);
  }
  problems.push(...restore(before));
  const failed = passed < total || skipped > 0 || problems.length > 0;
  return {
    file,
    passed,
    total,
    skipped,
    seconds: (performance.now() - started) / 1000,
    problems,
    output: failed ? `${output}\n${problems.join('\n')}`.slice(-6000) : '',
  };
}

/** Runs every file named on the command line and writes a result line for each, then ends the process. */
async function main(files: string[]): Promise<void> {
  // Before any test file loads uvu: its module reads this once, when it is first loaded.
  uvuGlobals.UVU_DEFER = 1;
  for (const file of files) {
    const result = await runFile(path.resolve(file));
    process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(result)}\n`);
  }
  // Every file was checked for what it left running; nothing more is waited for.
  process.exit(0);
}

if (path.basename(process.argv[1] ?? '') === 'run-in-one-process.ts') void main(process.argv.slice(2));
