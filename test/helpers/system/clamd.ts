import { spawn, ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { clamdBinary } from './parts';
import { tempDir } from '../temp-dir';

/**
 * A real clamd (Debian's clamav-daemon) for the virus-scanning tests, started by the test process from a config
 * of its own: a signature database the test writes (freshclam cannot reach its mirrors here, and the tests must
 * not depend on what a mirror serves), TCP on a free loopback port, in the foreground as a child. Two signatures:
 * the EICAR test string as a whole file (test.hdb, `<md5>:<size>:<name>`), and a byte pattern anywhere inside a
 * file (test.ndb, `<name>:0:*:<hex>`), which the tests bury past the first chunk of a larger file. clamd takes
 * up to ~20 s to answer its first PING: start it once per test file.
 */
export interface Clamd {
  /** tcp://127.0.0.1:<port>, the form of the antivirus.clamd key. */
  url: string;
  /** unix:<path> of the same clamd's local socket. */
  unixUrl: string;
  /** clamd's process id (a test stops it with SIGSTOP to make it late, and SIGCONT to wake it). */
  pid: number;
  port: number;
  /** The name clamd gives a file holding the EICAR string. */
  eicarName: string;
  /** The name clamd gives a file holding `pattern` anywhere. */
  patternName: string;
  /** Bytes the pattern signature matches. */
  pattern: Buffer;
  stop(): Promise<void>;
}

/** The standard antivirus test file (68 bytes; harmless, recognised by every scanner). */
export const EICAR = Buffer.from('X5O!P%@AP[4\\PZX54(P^)7CC)7}$EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*', 'latin1');

const START_TIMEOUT_MS = 120_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/** Sends one command, returns clamd's answer (null on a refused or broken connection). */
export function clamdCommand(port: number, command: string, timeoutMs = 5000): Promise<string | null> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const parts: Buffer[] = [];
    const done = (v: string | null) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(null));
    sock.on('connect', () => sock.write(`z${command}\0`));
    sock.on('data', (d) => parts.push(d));
    sock.on('end', () => done(Buffer.concat(parts).toString('utf8').replace(/\0$/, '')));
    sock.on('error', () => done(null));
  });
}

export async function startClamd(): Promise<Clamd> {
  const bin = clamdBinary();
  const dir = tempDir();
  const db = path.join(dir, 'db');
  fs.mkdirSync(db);
  const eicarName = 'Test.EICAR.UNOFFICIAL';
  const patternName = 'Test.Buried.Pattern';
  // A pattern no random or text file holds by chance: 32 bytes from a fixed seed.
  const pattern = crypto.createHash('sha256').update('ferry virus-scan test pattern').digest();
  const md5 = crypto.createHash('md5').update(EICAR).digest('hex');
  fs.writeFileSync(path.join(db, 'test.hdb'), `${md5}:${EICAR.length}:Test.EICAR\n`);
  fs.writeFileSync(path.join(db, 'test.ndb'), `Test.Buried.Pattern:0:*:${pattern.toString('hex')}\n`);
  const port = await freePort();
  const conf = path.join(dir, 'clamd.conf');
  fs.writeFileSync(
    conf,
    [
      `DatabaseDirectory ${db}`,
      `TCPSocket ${port}`,
      'TCPAddr 127.0.0.1',
      `LocalSocket ${path.join(dir, 'clamd.sock')}`,
      'Foreground yes',
      `LogFile ${path.join(dir, 'clamd.log')}`,
      `PidFile ${path.join(dir, 'clamd.pid')}`,
      `TemporaryDirectory ${dir}`,
      // Larger than the biggest test file, so a file that passes a chunk boundary is scanned whole.
      'StreamMaxLength 64M',
      'MaxThreads 4',
      // The default signatures' engine options stay; nothing here reaches the network.
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(bin, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let exited = false;
  child.on('exit', () => (exited = true));
  const stop = async () => {
    if (!exited && child.pid) {
      const gone = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        /* already gone */
      }
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      if (!exited) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', () => {
    if (!exited && child.pid) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (exited) {
      const log = fs.existsSync(path.join(dir, 'clamd.log'))
        ? fs.readFileSync(path.join(dir, 'clamd.log'), 'utf8').slice(-2000)
        : '';
      await stop();
      throw new Error(`clamd exited before answering: ${stderr}${log}`);
    }
    if ((await clamdCommand(port, 'PING', 2000)) === 'PONG') break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`clamd did not answer PING within ${START_TIMEOUT_MS / 1000} s: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url: `tcp://127.0.0.1:${port}`,
    unixUrl: `unix:${path.join(dir, 'clamd.sock')}`,
    pid: child.pid!,
    port,
    eicarName: `${eicarName}`,
    patternName: `${patternName}.UNOFFICIAL`,
    pattern,
    stop,
  };
}
