import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../free-port';

/**
 * A real MariaDB server for the tests, from Debian's `mariadb-server` package: `mariadbd` on an empty data
 * folder in a temp dir, on a free port of 127.0.0.1 and a socket beside it, without grant tables (so no
 * `mariadb-install-db`, which takes seconds: anyone on loopback is root), started on first use and killed when
 * the test process ends. Each caller gets a fresh empty database. Without the binary this throws with the
 * command that installs it: a test that needs MariaDB fails, it is never skipped.
 */
export const MARIADB_INSTALL = 'apt-get install -y mariadb-server';

export function mariadbBinary(): string {
  for (const p of ['/usr/sbin/mariadbd', '/usr/bin/mariadbd', '/usr/sbin/mysqld']) if (fs.existsSync(p)) return p;
  throw new Error(`mariadbd not found; install it with: ${MARIADB_INSTALL}`);
}

export interface MariadbServer {
  port: number;
  socket: string;
  /** A new, empty database; returns its mysql:// URL (over TCP). */
  createDatabase(prefix?: string): Promise<string>;
}

let running: Promise<MariadbServer> | null = null;
let counter = 0;

export function mariadbServer(): Promise<MariadbServer> {
  running ??= start();
  return running;
}

async function start(): Promise<MariadbServer> {
  const bin = mariadbBinary();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ferry-mariadb-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const socket = path.join(dir, 'mysqld.sock');
  let child: ChildProcess | null = null;
  const stop = () => {
    child?.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', stop);
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    child = spawn(
      bin,
      [
        '--no-defaults',
        // mariadbd refuses to run as root unless told to; as anyone else it runs as that user.
        ...(process.getuid?.() === 0 ? ['--user=root'] : []),
        `--datadir=${data}`,
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-grant-tables',
        '--skip-log-bin',
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-buffer-pool-size=32M',
        `--log-error=${path.join(dir, 'error.log')}`,
        `--pid-file=${path.join(dir, 'mariadbd.pid')}`,
      ],
      { stdio: 'ignore' },
    );
    // The server is killed when the process exits; it does not keep the process alive by itself.
    child.unref();
    const exited = new Promise<number | null>((resolve) => child?.once('exit', (code) => resolve(code)));
    // Loaded here, not at the top: the test runner loads this module for its install command, without a client.
    const { default: mysql } = await import('mysql2/promise');
    let ready = false;
    for (let i = 0; i < 120 && !ready; i++) {
      const gone = await Promise.race([exited, new Promise((r) => setTimeout(() => r('wait'), 250))]);
      if (gone !== 'wait') break;
      try {
        const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
        await c.end();
        ready = true;
      } catch {
        // not listening yet
      }
    }
    if (ready) {
      return {
        port,
        socket,
        async createDatabase(prefix = 'filesender') {
          const name = `${prefix}_${process.pid}_${++counter}`;
          const c = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' });
          try {
            await c.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4`);
          } finally {
            await c.end();
          }
          return `mysql://root@127.0.0.1:${port}/${name}`;
        },
      };
    }
    child.kill('SIGKILL');
    const log = fs.existsSync(path.join(dir, 'error.log')) ? fs.readFileSync(path.join(dir, 'error.log'), 'utf8') : '';
    if (!/bind|address already in use/i.test(log)) throw new Error(`mariadbd did not start:\n${log.slice(-2000)}`);
  }
  throw new Error('mariadbd did not start: no free port after 5 attempts');
}
