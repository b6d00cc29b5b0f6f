import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp-dir';
import { watchProcess } from './internal-errors';
import { writeConfig } from './config-file';

export const BINARY = path.resolve(__dirname, '../../dist/ferry');

export interface BinaryServer {
  url: string;
  proc: ChildProcess;
  dir: string;
  configFile: string;
  /** Everything the process printed so far. */
  output(): string;
  /** SIGTERM and wait for the exit (bounded); resolves to the exit code. */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL, as a crash would. */
  kill9(): Promise<void>;
}

export interface StartOptions {
  /** Reuse a directory (and its ferry.json) from an earlier run, e.g. to restart after kill9(). */
  dir?: string;
  config?: Record<string, unknown>;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Extra arguments after `serve -c <file>`. */
  args?: string[];
  /** Another copy of the binary to run (default dist/ferry). */
  binary?: string;
  /** How long to wait for "listening on" (default 15 s). */
  timeoutMs?: number;
}

export { writeConfig };

/** Starts dist/ferry serve and waits (at most 15 s) for its "listening on <url>" line. */
export async function startBinary(opts: StartOptions = {}): Promise<BinaryServer> {
  const dir = opts.dir ?? tempDir('ferry-e2e-');
  const configFile = path.join(dir, 'ferry.json');
  if (!opts.dir || opts.config) writeConfig(dir, opts.config);
  const timeoutMs = opts.timeoutMs ?? 15_000;
  const spawned = await spawnServer(
    opts.binary ?? BINARY,
    ['serve', '-c', configFile, ...(opts.args ?? [])],
    { cwd: opts.cwd ?? dir, env: { ...process.env, ...opts.env } },
    { label: `ferry serve in ${dir}`, logDebug: () => logDebug(configFile), timeoutMs },
  );
  return serverHandle(spawned, dir, configFile);
}

/** A started server as the tests hold it: its address and output, a bounded SIGTERM, and a crash (SIGKILL). */
export function serverHandle(spawned: SpawnedServer, dir: string, configFile: string): BinaryServer {
  const { proc, url, output, exited } = spawned;
  return {
    url,
    proc,
    dir,
    configFile,
    output,
    async stop(timeoutMs = 10_000) {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const t = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(t);
      return code;
    },
    async kill9() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** A `ferry serve` process that printed its "listening on <url>" line. */
export interface SpawnedServer {
  proc: ChildProcess;
  url: string;
  /** Everything the process printed so far. */
  output(): string;
  /** Resolves to the exit code once the process ends. */
  exited: Promise<number | null>;
}

/**
 * Spawns a `ferry serve` (the binary, the source, or the packaged service) and waits, at most `timeoutMs`, for
 * its "listening on <url>" line; a process that ends or stays silent first is killed and its output reported.
 * No answer is a 500 and no log line a stack trace without log.debug (test/helpers/internal-errors.ts).
 */
export async function spawnServer(
  command: string,
  args: string[],
  options: SpawnOptions,
  watch: { label: string; logDebug: () => boolean; timeoutMs: number },
): Promise<SpawnedServer> {
  const proc = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  watchProcess(proc, watch.label, () => out, watch.logDebug);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.kill('SIGKILL');
      reject(new Error(`${watch.label}: no "listening on" line within ${watch.timeoutMs} ms:\n${out}`));
    }, watch.timeoutMs);
    const check = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stdout!.on('data', check);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${watch.label} exited with ${code} before listening:\n${out}`));
    });
  });
  return { proc, url, output: () => out, exited };
}

/** The config file's log.debug, read when the output is checked (a test may have rewritten the file). */
function logDebug(configFile: string): boolean {
  try {
    return JSON.parse(fs.readFileSync(configFile, 'utf8'))?.log?.debug === true;
  } catch {
    return false;
  }
}

/** Waits (bounded) for a process to end by itself: its exit code, or null if it was killed or did not end. */
export function waitForExit(proc: ChildProcess, timeoutMs = 10_000): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(null), timeoutMs);
    proc.once('exit', (code) => {
      clearTimeout(t);
      resolve(code);
    });
  });
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a ferry CLI command to completion (bounded, 60 s by default; a timed-out run has code null). */
export function runFerry(
  args: string[],
  opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; binary?: string } = {},
): RunResult {
  const r = spawnSync(opts.binary ?? BINARY, args, {
    cwd: opts.cwd,
    input: opts.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, ...opts.env },
    timeout: opts.timeoutMs ?? 60_000,
  });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}
