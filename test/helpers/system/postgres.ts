import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../free-port';

/**
 * A real PostgreSQL server for the tests, from Debian's `postgresql` package: initdb in a temp dir (as the
 * `postgres` user when the tests run as root, since the server refuses to run as root), then pg_ctl with
 * fsync off, on a free port of 127.0.0.1. One server per test process, started on first use and stopped when
 * the process exits; each caller gets a fresh empty database on it. Without the binaries this throws with the
 * command that installs them: a test that needs PostgreSQL fails, it is never skipped.
 */
export const POSTGRES_INSTALL = 'apt-get install -y postgresql';

export class PostgresMissing extends Error {
  readonly part = 'postgresql';
  readonly install = POSTGRES_INSTALL;
  constructor(why: string) {
    super(`PostgreSQL server binaries not found (${why}); install them with: ${POSTGRES_INSTALL}`);
  }
}

/** The directory holding initdb, pg_ctl and postgres: $FERRY_PG_BIN, else the newest /usr/lib/postgresql/<n>/bin (15 or later). */
export function postgresBinDir(): string {
  const given = process.env.FERRY_PG_BIN;
  if (given) {
    if (!fs.existsSync(path.join(given, 'pg_ctl'))) throw new PostgresMissing(`no pg_ctl in FERRY_PG_BIN=${given}`);
    return given;
  }
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .map(Number)
        .filter((v) => v >= 15 && fs.existsSync(path.join(root, String(v), 'bin', 'pg_ctl')))
        .sort((a, b) => b - a)
    : [];
  if (!versions.length) throw new PostgresMissing(`no ${root}/<15 or later>/bin/pg_ctl`);
  return path.join(root, String(versions[0]), 'bin');
}

export interface PostgresServer {
  /** postgres://ferry@127.0.0.1:<port>/postgres (the maintenance database). */
  url: string;
  port: number;
  /** A new, empty database on the server; returns its URL. */
  createDatabase(prefix?: string): Promise<string>;
  /** Stops the server (fast shutdown: connections are cut), as an outage would; start() brings it back on the same port. */
  stop(): void;
  start(): void;
}

let running: Promise<PostgresServer> | null = null;
let dbCounter = 0;

/** The test process's server, started on first call. */
export function postgresServer(): Promise<PostgresServer> {
  running ??= start();
  return running;
}

/** Shorthand: a fresh empty database on the test process's server. */
export async function freshPostgresDatabase(prefix = 'ferry'): Promise<string> {
  return (await postgresServer()).createDatabase(prefix);
}

/** Runs a server binary as the postgres user when we are root (the server refuses root), else as ourselves. */
function runAs(bin: string, args: string[], pgUid: number | null): { status: number | null; out: string } {
  const r =
    pgUid === null
      ? spawnSync(bin, args, { encoding: 'utf8' })
      : spawnSync('runuser', ['-u', 'postgres', '--', bin, ...args], { encoding: 'utf8' });
  if (r.error) throw r.error;
  return { status: r.status, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

function postgresUid(): number | null {
  if (process.getuid?.() !== 0) return null;
  const r = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
  if (r.status !== 0) throw new PostgresMissing('running as root and there is no `postgres` user');
  return Number(r.stdout.trim());
}

async function start(): Promise<PostgresServer> {
  const bin = postgresBinDir();
  const uid = postgresUid();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-pg-'));
  const data = path.join(dir, 'data');
  if (uid !== null) {
    fs.chmodSync(dir, 0o755);
    fs.chownSync(dir, uid, -1);
  }
  const stop = () => {
    if (fs.existsSync(path.join(data, 'postmaster.pid')))
      runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], uid);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => {
      stop();
      process.exit(130);
    });
  }
  const init = runAs(
    path.join(bin, 'initdb'),
    ['-D', data, '-U', 'ferry', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'],
    uid,
  );
  if (init.status !== 0) throw new Error(`initdb failed:\n${init.out}`);
  // A port taken between choosing it and the server binding it makes pg_ctl fail: then another is tried.
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const opts = `-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c listen_addresses=127.0.0.1 -p ${port} -k ${dir} -c max_connections=200`;
    const pgStart = () =>
      runAs(
        path.join(bin, 'pg_ctl'),
        ['-D', data, '-o', opts, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start'],
        uid,
      );
    const started = pgStart();
    if (started.status === 0) {
      const url = `postgres://ferry@127.0.0.1:${port}/postgres`;
      return {
        url,
        port,
        stop() {
          const r = runAs(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], uid);
          if (r.status !== 0) throw new Error(`pg_ctl stop failed:\n${r.out}`);
        },
        start() {
          const r = pgStart();
          if (r.status !== 0) throw new Error(`pg_ctl start failed:\n${r.out}`);
        },
        async createDatabase(prefix = 'ferry') {
          const name = `${prefix}_${process.pid}_${++dbCounter}`;
          // Loaded here, not at the top: the test runner loads this module to find the server, without a client.
          const { default: pg } = await import('pg');
          const client = new pg.Client({ connectionString: url });
          await client.connect();
          try {
            await client.query(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
          } finally {
            await client.end();
          }
          return `postgres://ferry@127.0.0.1:${port}/${name}`;
        },
      };
    }
    const log = fs.existsSync(path.join(dir, 'server.log'))
      ? fs.readFileSync(path.join(dir, 'server.log'), 'utf8')
      : '';
    if (!/could not bind|address already in use/i.test(log + started.out))
      throw new Error(`pg_ctl start failed:\n${started.out}\n${log}`);
  }
  throw new Error('pg_ctl start failed: no free port after 5 attempts');
}
