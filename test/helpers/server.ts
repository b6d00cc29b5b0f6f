import fs from 'node:fs';
import path from 'node:path';
import type { Test } from 'uvu';
import type { Config } from '../../src/config/defaults';
import { validateConfig } from '../../src/config/validate';
import { createApp, FerryApp, AppOptions } from '../../src/app';
import { listen, RunningServer, ServerTimeouts } from '../../src/http/server';
import { silentLogger } from '../../src/log';
import { freshPostgresDatabase } from './system/postgres';
import { startS3, s3Storage } from './system/s3';
import { tempDir } from './temp-dir';
import { watchAnswers, watchedLogger } from './internal-errors';

export interface TestServer {
  url: string;
  dir: string;
  app: FerryApp;
  server: RunningServer;
  /** fetch relative to the server, JSON helpers included. */
  request(method: string, urlPath: string, init?: RequestOptions): Promise<TestResponse>;
  close(): Promise<void>;
}

export interface RequestOptions {
  json?: unknown;
  body?: string | Buffer | Uint8Array;
  headers?: Record<string, string>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when it is not JSON. */
  json: any;
}

export { tempDir };

/** The database the tests run on: SQLite (default) or, with FERRY_TEST_DB=postgres, a real PostgreSQL server. */
export const TEST_DB: 'sqlite' | 'postgres' = process.env.FERRY_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

/**
 * The database_url a test server gets: none (SQLite in its data dir), or a fresh empty database on the test
 * process's PostgreSQL server when FERRY_TEST_DB=postgres (test/helpers/system/postgres.ts starts it).
 */
export async function testDatabaseUrl(): Promise<string | null> {
  return TEST_DB === 'postgres' ? freshPostgresDatabase('ferry_http') : null;
}

/** Where file data goes in the tests: the filesystem (default) or, with FERRY_TEST_STORAGE=s3, a real S3 server. */
export const TEST_STORAGE: 'fs' | 's3' = process.env.FERRY_TEST_STORAGE === 's3' ? 's3' : 'fs';

/**
 * The storage config a test server gets: the default (filesystem), or the test process's S3 server
 * (test/helpers/system/s3.ts starts it once) with a prefix of the server's own, so servers never see each
 * other's objects.
 */
export async function testStorage(): Promise<Record<string, unknown> | undefined> {
  if (TEST_STORAGE !== 's3') return undefined;
  const s3 = await startS3();
  return s3Storage(s3, `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}/`);
}

/**
 * Starts the real app on 127.0.0.1 port 0 with a real SQLite file in a fresh temp dir (or a fresh PostgreSQL
 * database, see TEST_DB), and mail kept in the built-in inbox of that dir unless the config says otherwise. The config object is validated exactly like a config file, so a test cannot use a
 * key the product would refuse.
 */
export async function startTestServer(
  config: Record<string, unknown> = {},
  { timeouts, ...opts }: AppOptions & { timeouts?: Partial<ServerTimeouts> } = {},
): Promise<TestServer> {
  const dir = tempDir();
  const database_url = 'database_url' in config ? config.database_url : await testDatabaseUrl();
  const storage = 'storage' in config ? config.storage : await testStorage();
  const raw = {
    data_dir: path.join(dir, 'data'),
    purge_interval_s: 0,
    ...config,
    database_url,
    ...(storage ? { storage } : {}),
  };
  const cfg: Config = validateConfig(raw, 'test');
  // No answer is a 500 and no log line a stack trace without log.debug: the process fails if one is
  // (test/helpers/internal-errors.ts).
  let label = 'test server (starting)';
  let debug = () => cfg.log.debug === true;
  const log = watchedLogger(
    opts.log ?? silentLogger,
    () => label,
    () => debug(),
  );
  const app = await createApp(cfg, { ...opts, log });
  debug = () => app.services.settings.get().log.debug === true;
  const server = await listen(app.http, '127.0.0.1', 0, timeouts);
  label = `test server ${server.url}`;
  watchAnswers(server.server, label);
  // base_url must point at the real port so Location headers and links work.
  if (!('base_url' in config)) {
    (cfg as { base_url: string }).base_url = server.url;
    app.services.settings.get().base_url = server.url;
  }
  try {
    await app.join();
  } catch (e) {
    // Refused (an older node under a newer level): nothing is left running.
    await server.close(1000);
    await app.close();
    fs.rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  app.start();
  return {
    url: server.url,
    dir,
    app,
    server,
    request: (method, urlPath, init = {}) => request(server.url, method, urlPath, init),
    async close() {
      await server.close(1000);
      await app.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The one server of a suite: started in its `before`, closed in its `after`. Until then any use fails plainly,
 * so a test never talks to a server that is not there.
 */
export function suiteServer(
  suite: Pick<Test, 'before' | 'after'>,
  config: Parameters<typeof startTestServer>[0],
  opts?: Parameters<typeof startTestServer>[1],
): TestServer {
  let s: TestServer | undefined;
  suite.before(async () => {
    s = await startTestServer(config, opts);
  });
  suite.after(() => s?.close());
  const live = (): TestServer => {
    if (!s) throw new Error('the suite server is not started (used outside its tests)');
    return s;
  };
  return {
    get url() {
      return live().url;
    },
    get dir() {
      return live().dir;
    },
    get app() {
      return live().app;
    },
    get server() {
      return live().server;
    },
    request: (...args) => live().request(...args),
    close: () => live().close(),
  };
}

/** Runs `fn` against a server of its own (startTestServer's arguments), closing it however `fn` ends. */
export async function withTestServer<T>(
  config: Parameters<typeof startTestServer>[0],
  fn: (t: TestServer) => Promise<T>,
  opts?: Parameters<typeof startTestServer>[1],
): Promise<T> {
  const t = await startTestServer(config, opts);
  try {
    return await fn(t);
  } finally {
    await t.close();
  }
}

/**
 * Raw SQL on the server's database, with `?` placeholders, on SQLite and PostgreSQL alike: for tests that look
 * at or arrange rows directly.
 */
export function sql<T = any>(s: { app: FerryApp }, text: string, ...params: unknown[]): Promise<T[]> {
  return s.app.db.query<T>(text, params);
}

/** The first row of sql(), or undefined. */
export async function sqlOne<T = any>(
  s: { app: FerryApp },
  text: string,
  ...params: unknown[]
): Promise<T | undefined> {
  return (await s.app.db.query<T>(text, params))[0];
}

export async function request(
  base: string,
  method: string,
  urlPath: string,
  init: RequestOptions = {},
): Promise<TestResponse> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  let body: BodyInit | undefined;
  if (init.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.body !== undefined) {
    body = init.body as BodyInit;
  }
  return readResponse(
    await fetch(base + urlPath, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(30_000) }),
  );
}

/** A fetch answer as tests read it: status, headers, text, and the JSON when the body is JSON. */
export async function readResponse(res: Response): Promise<TestResponse> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The header service provider lets tests act as any user, the way a trusted reverse proxy would. */
export const HEADER_SP = {
  auth: {
    sp: {
      type: 'header',
      uid_header: 'X-Remote-User',
      email_header: 'X-Remote-Email',
      trusted_proxies: ['127.0.0.1', '::1'],
    },
  },
};

/**
 * The config keys of another node on `a`'s data: the same data dir and the same database (the SQLite file in
 * it, or the same PostgreSQL database; without the key a test server would get a fresh one).
 */
export function sameDataAs(a: TestServer): { data_dir: string; database_url: string | null } {
  return { data_dir: a.app.config.data_dir, database_url: a.app.config.database_url ?? null };
}

export function asUser(id: string, email = `${id}@example.org`): Record<string, string> {
  return { 'X-Remote-User': id, 'X-Remote-Email': email };
}

export { freePort } from './free-port';
