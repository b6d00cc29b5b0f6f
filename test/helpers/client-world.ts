import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from './binary';
import { asUser, HEADER_SP, startTestServer, tempDir, TestServer } from './server';

/** A real server in this process (its request log kept, to count chunk PUTs) and a home for the terminal client. */
export interface ClientWorld {
  srv: TestServer;
  /** Every line the server logged, in order. */
  lines: string[];
  home: string;
  /** The client's environment: this HOME, and none of the FERRY_* variables of the shell running the tests. */
  env: NodeJS.ProcessEnv;
  /** The remote-user string the profile page shows alice. */
  remoteConfig: string;
  close(): Promise<void>;
}

export async function clientWorld(homePrefix: string, config: Record<string, unknown> = {}): Promise<ClientWorld> {
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  const srv = await startTestServer({ ...HEADER_SP, ...config }, { log });
  const me = await srv.request('GET', '/user', { headers: asUser('alice') });
  const home = tempDir(homePrefix);
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config') };
  for (const k of ['FERRY_URL', 'FERRY_USER', 'FERRY_SECRET', 'FERRY_REMOTE_CONFIG', 'FERRY_CONFIG', 'FERRY_PASSWORD'])
    delete env[k];
  return {
    srv,
    lines,
    home,
    env,
    remoteConfig: me.json.remote_config,
    async close() {
      await srv.close();
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

export interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Fed to the client's standard input, which is then closed. */
  stdin?: string;
  /** Descriptor 0 closed altogether, as cron leaves it. */
  noStdin?: boolean;
  timeoutMs?: number;
  /** Gets the process (to kill it). */
  onStart?: (p: ReturnType<typeof spawn>) => void;
}

/** Runs the built binary without blocking this process (the server answers from here); killed after `timeoutMs`. */
export function runFerry(w: Pick<ClientWorld, 'home' | 'env'>, args: string[], opts: RunOptions = {}): Promise<Run> {
  const cmd = opts.noStdin ? '/bin/sh' : BINARY;
  const argv = opts.noStdin ? ['-c', 'exec "$0" "$@" <&-', BINARY, ...args] : args;
  const p = spawn(cmd, argv, {
    cwd: opts.cwd ?? w.home,
    env: { ...w.env, ...opts.env },
    stdio: [opts.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  if (opts.stdin !== undefined) p.stdin!.end(opts.stdin);
  opts.onStart?.(p);
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d) => (stdout += d));
  p.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => p.kill('SIGKILL'), opts.timeoutMs ?? 600_000);
  return new Promise((resolve) =>
    p.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}
