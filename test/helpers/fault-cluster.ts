import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { spawn, type ChildProcess } from 'node:child_process';
import { BINARY, startBinary, type BinaryServer } from './binary';
import { asUser, tempDir } from './server';
import { startTestSink, type TestSink } from './mail';
import { sha256 } from './upload-client';
import { postgresServer, type PostgresServer } from './system/postgres';
import { s3Env, s3NodeStorage, startS3, type S3Server } from './system/s3';
import { clusterNodeConfig, putChunk } from './node-calls';
import { startFaultProxy, type FaultProxy } from './fault-proxy';
import { startCuttingProxy, type CuttingProxy } from './cutting-proxy';

/**
 * Nodes (`dist/ferry serve`) on one PostgreSQL database and one S3 bucket, each reached through a relay the test
 * breaks: an HTTP fault proxy in front of the S3 server (test/helpers/fault-proxy.ts) and a TCP relay in front
 * of PostgreSQL that can cut every connection and refuse new ones (test/helpers/cutting-proxy.ts). Mail goes to
 * one test sink.
 */
export interface FaultCluster {
  dir: string;
  s3: S3Server;
  store: FaultProxy;
  postgres: PostgresServer;
  /** The relay the nodes reach PostgreSQL through. */
  database: CuttingProxy;
  /** The database's own address (the test's queries go there, not through the relay). */
  databaseUrl: string;
  sink: TestSink;
  nodes: BinaryServer[];
  /** The store's credentials, for a command (`ferry purge`) run with a node's config. */
  env: NodeJS.ProcessEnv;
  /** Starts node `i` again in its own directory (after kill9), with the same config. */
  restart(i: number, config?: Record<string, unknown>): Promise<BinaryServer>;
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export const alice = asUser('alice');

export async function startFaultCluster(
  name: string,
  count: number,
  extra: (i: number) => Record<string, unknown> = () => ({}),
): Promise<FaultCluster> {
  const dir = tempDir(`ferry-${name}-`);
  const [sink, postgres, s3] = await Promise.all([startTestSink(), postgresServer(), startS3()]);
  const databaseUrl = await postgres.createDatabase(name.replace(/\W/g, '_'));
  const store = await startFaultProxy(s3.endpoint);
  const dbTarget = new URL(databaseUrl);
  const database = await startCuttingProxy(`http://${dbTarget.hostname}:${dbTarget.port}`);
  const relayed = new URL(databaseUrl);
  relayed.port = new URL(database.url).port;
  const storage = s3NodeStorage(s3, `${name}/`, { endpoint: store.url });
  const configOf = (i: number) => clusterNodeConfig(relayed.toString(), sink.url, storage, extra(i));
  const env = s3Env(s3);
  const nodes: BinaryServer[] = [];
  const start = (i: number, config = configOf(i)) =>
    startBinary({ dir: path.join(dir, `node${i + 1}`), config, env, timeoutMs: 60_000 });
  for (let i = 0; i < count; i++) {
    fs.mkdirSync(path.join(dir, `node${i + 1}`));
    nodes.push(await start(i));
  }
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  return {
    dir,
    s3,
    store,
    postgres,
    database,
    databaseUrl,
    sink,
    nodes,
    env,
    async restart(i, config) {
      nodes[i] = await start(i, config ? { ...configOf(i), ...config } : configOf(i));
      return nodes[i];
    },
    async query<T>(text: string, params: unknown[] = []) {
      return (await pool.query(text, params)).rows as T[];
    },
    async close() {
      for (const n of nodes) await n.stop().catch(() => {});
      await pool.end().catch(() => {});
      await store.close();
      await database.close();
      await sink.close();
      await s3.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface Answer {
  status: number;
  text: string;
  json: any;
  retryAfter: string | null;
}

/** One request, no retry; a network failure is status 0 (its message as text). */
export async function callOnce(
  base: string,
  method: string,
  p: string,
  body?: unknown,
  timeoutMs = 60_000,
): Promise<Answer> {
  try {
    const r = await fetch(`${base}${p}`, {
      method,
      headers: { ...alice, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: r.status, text, json, retryAfter: r.headers.get('retry-after') };
  } catch (e) {
    return { status: 0, text: String((e as Error).message), json: undefined, retryAfter: null };
  }
}

/**
 * What a load balancer's client does: a request that fails with 503 (or no answer) is sent again to the next
 * node, after a pause, at most `tries` times. Every answer is kept in `seen`; a 500 is never retried.
 */
export async function callRetrying(
  nodes: BinaryServer[],
  seen: Answer[],
  method: string,
  p: string,
  body?: unknown,
  tries = 20,
): Promise<Answer> {
  let last: Answer | null = null;
  for (let i = 0; i < tries; i++) {
    const a = await callOnce(nodes[i % nodes.length].url, method, p, body);
    seen.push(a);
    if (a.status !== 503 && a.status !== 0) return a;
    last = a;
    await new Promise((r) => setTimeout(r, 500 + 250 * Math.min(i, 6)));
  }
  return last!;
}

export interface ChunkLog {
  chunk: number;
  node: number;
  status: number;
  ms: number;
  retryAfter: string | null;
  text: string;
}

/**
 * Sends every chunk of `data` for file `fileId`, `inFlight` at once, chunk i to node i mod n first; a chunk whose
 * request gets 503 or no answer goes to the next node after a pause, at most 20 times (each request bounded by
 * 60 s, the client timeout of the issue). Resolves with every attempt; throws when a chunk gets anything else.
 */
export async function uploadChunks(
  nodes: BinaryServer[],
  fileId: number,
  data: Buffer,
  chunkSize: number,
  inFlight = 2,
  /** Only the first this many chunks (an upload left halfway). */
  only = Number.POSITIVE_INFINITY,
  /** The first chunk to send (the ones before it were sent already). */
  from = 0,
): Promise<ChunkLog[]> {
  const log: ChunkLog[] = [];
  const queue = [...Array(Math.min(only, Math.ceil(data.length / chunkSize))).keys()].filter((k) => k >= from);
  const worker = async () => {
    for (let chunk = queue.shift(); chunk !== undefined; chunk = queue.shift()) {
      const offset = chunk * chunkSize;
      const bytes = data.subarray(offset, Math.min(offset + chunkSize, data.length));
      for (let attempt = 0; ; attempt++) {
        if (attempt >= 20) throw new Error(`chunk ${chunk}: no 200 after 20 attempts`);
        const node = (chunk + attempt) % nodes.length;
        const began = Date.now();
        let status = 0;
        let text = '';
        let retryAfter: string | null = null;
        try {
          const r = await putChunk(nodes[node], alice, fileId, data.length, offset, bytes);
          status = r.status;
          retryAfter = r.headers.get('retry-after');
          text = await r.text();
        } catch (e) {
          text = String((e as Error).message);
        }
        log.push({ chunk, node, status, ms: Date.now() - began, retryAfter, text });
        if (status === 200) break;
        if (status !== 503 && status !== 0) throw new Error(`chunk ${chunk} answered ${status}: ${text}`);
        await new Promise((r) => setTimeout(r, 500 + 250 * Math.min(attempt, 6)));
      }
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return log;
}

/** /readyz of a node: the failing parts, [] when ready, ['no answer'] when it did not answer within 5 s. */
export async function failingParts(node: BinaryServer): Promise<string[]> {
  try {
    const r = await fetch(`${node.url}/readyz`, { signal: AbortSignal.timeout(5000) });
    const j = (await r.json()) as { failing?: string[] };
    return r.status === 200 ? [] : (j.failing ?? ['?']);
  } catch {
    return ['no answer'];
  }
}

/** The SHA-256 of what a recipient downloads through `node`. */
export async function downloadedSha256(node: BinaryServer, token: string, fileId: number): Promise<string> {
  const r = await fetch(`${node.url}/download?token=${token}&files_ids=${fileId}`, {
    signal: AbortSignal.timeout(120_000),
  });
  if (r.status !== 200) throw new Error(`download answered ${r.status}: ${await r.text()}`);
  return sha256(Buffer.from(await r.arrayBuffer()));
}

/** The mails in the sink that carry `token` (a recipient's download link). */
export async function mailsWith(sink: TestSink, token: string): Promise<number> {
  return (await sink.messages()).filter((m) => `${m.text ?? ''}${m.html || ''}`.includes(token)).length;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `dist/ferry <args>` without blocking this process (the relays the nodes go through answer from here);
 * `onStart` gets the child (to kill it). Killed after `timeoutMs`.
 */
export function runAsync(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 120_000,
  onStart?: (p: ChildProcess) => void,
): Promise<Ran> {
  const p = spawn(BINARY, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  onStart?.(p);
  let stdout = '';
  let stderr = '';
  p.stdout!.on('data', (d) => (stdout += d));
  p.stderr!.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) =>
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
