import { spawn, ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { swiftS3Parts } from './parts';
import { addContentMd5OnDeleteObjects } from '../../../src/storage/s3-client';

/**
 * A real S3-compatible server for the storage tests: OpenStack Swift from Debian's packages, its proxy speaking S3
 * through the s3api middleware, started by the test process itself. Everything lives in one temp dir (config,
 * rings, one storage device) and listens on free 127.0.0.1 ports: a memcached (tempauth keeps its tokens there),
 * the account, container and object servers, and the proxy. Each daemon runs in the foreground as a child in its
 * own process group, without forking workers; no replicator, auditor or updater runs, so nothing talks to any
 * other host. Starts in about 3 s on an idle machine.
 *
 * One server per test process (or one per group of files, SHARED_S3_ENV): startS3() returns the running one. stop() kills it and removes its files; the
 * process's exit (or SIGINT/SIGTERM/SIGHUP) does the same if a test forgets, and the kernel kills the daemons if
 * the test process is killed outright (setpriv --pdeathsig).
 */
export interface S3Server {
  /** http://127.0.0.1:<port>, to be used with path-style addressing. */
  endpoint: string;
  region: string;
  /** An empty bucket created at start. */
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The last lines the daemons logged (their own output and Swift's log), for a failing test's message. */
  logTail(lines?: number): string;
  stop(): Promise<void>;
}

/**
 * ferry's `storage` block for this server: path-style addressing, its bucket and keys, objects under `prefix` (a
 * folder of the caller's own, so tests sharing the server never see each other's objects); `more` sets or
 * overrides other keys (an `endpoint` through a relay, `max_parts`).
 */
export function s3Storage(server: S3Server, prefix: string, more: Record<string, unknown> = {}) {
  return {
    type: 's3',
    endpoint: server.endpoint,
    bucket: server.bucket,
    region: server.region,
    prefix,
    force_path_style: true,
    access_key_id: server.accessKeyId,
    secret_access_key: server.secretAccessKey,
    ...more,
  };
}

const REGION = 'us-east-1';
const BUCKET = 'ferry-test';
/** Bounds the whole start: about 3 s when the machine is idle, more when other suites share the cores. */
const START_TIMEOUT_MS = 60_000;
/** A port taken by someone else between our probe and the daemon's bind is retried with fresh ports, this often. */
const START_ATTEMPTS = 3;
const SETPRIV = '/usr/bin/setpriv';

/**
 * The storage block of a `dist/ferry` node on this server, its keys left to the environment (`s3Env`), as an
 * admin keeps them out of the config file (docs/configuration.md).
 */
export function s3NodeStorage(server: S3Server, prefix: string, more: Record<string, unknown> = {}) {
  const { access_key_id: _k, secret_access_key: _s, ...storage } = s3Storage(server, prefix, more);
  return storage;
}

/** The environment that gives a `dist/ferry` node this server's keys. */
export function s3Env(server: S3Server): Record<string, string> {
  return { FERRY_S3_ACCESS_KEY_ID: server.accessKeyId, FERRY_S3_SECRET_ACCESS_KEY: server.secretAccessKey };
}

/**
 * An S3 client for the server, set up the way the product's adapter must be for Swift (and Ceph): path-style
 * addressing (bucket names in the host need wildcard DNS); checksums only where S3 requires them (the SDK's
 * default sends bodies as `aws-chunked` with trailing checksums, which Swift's s3api refuses); and a Content-MD5
 * on DeleteObjects, which Swift (like S3 before 2025) requires while the SDK now sends a CRC32 header instead.
 */
export function s3Client(server: S3Server, maxAttempts = 3): S3Client {
  const client = new S3Client({
    endpoint: server.endpoint,
    region: server.region,
    credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts,
  });
  addContentMd5OnDeleteObjects(client);
  return client;
}

let current: Promise<S3Server> | undefined;

/**
 * Starts the test process's S3 server, or returns the one already running. Throws MissingPart without Swift. The
 * error is also printed: uvu drops what a before-hook throws, and counts the suite's tests as failed in silence.
 */
export function startS3(): Promise<S3Server> {
  const shared = sharedServer();
  if (shared) return Promise.resolve(shared);
  current ??= startWithRetries().catch((e) => {
    current = undefined;
    console.error(e instanceof Error ? e.message : e);
    throw e;
  });
  return current;
}

/**
 * The test runner may start one server for a whole group of test files that only use it through servers of
 * their own prefix (the HTTP suite on S3: test/helpers/server.ts gives each test server a fresh prefix), instead
 * of one per file; it passes the server here in SHARED_S3_ENV. A file never stops the shared server: the runner
 * does, after the group.
 */
export const SHARED_S3_ENV = 'FERRY_TEST_SHARED_S3';

function sharedServer(): S3Server | null {
  const given = process.env[SHARED_S3_ENV];
  if (!given) return null;
  const { endpoint, region, bucket, accessKeyId, secretAccessKey } = JSON.parse(given) as Record<string, string>;
  return {
    endpoint,
    region,
    bucket,
    accessKeyId,
    secretAccessKey,
    logTail: () => `(the test runner's shared S3 server at ${endpoint}: its log is in the runner's process)`,
    stop: async () => {},
  };
}

/** What a test process needs to use this server as its shared one (the value of SHARED_S3_ENV). */
export function sharedS3Env(server: S3Server): string {
  const { endpoint, region, bucket, accessKeyId, secretAccessKey } = server;
  return JSON.stringify({ endpoint, region, bucket, accessKeyId, secretAccessKey });
}

async function startWithRetries(): Promise<S3Server> {
  const parts = swiftS3Parts();
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(parts);
    } catch (e) {
      const portTaken = e instanceof StartFailure && /Address already in use|Could not bind/.test(e.message);
      if (!portTaken || attempt >= START_ATTEMPTS) throw e;
    }
  }
}

class StartFailure extends Error {}

interface Daemon {
  name: string;
  port: number;
  proc: ChildProcess;
  outFile: string;
  exit: Promise<void>;
}

/** Every started server that is not stopped yet, for the exit and signal handlers. */
const live = new Set<{ killNow(): void }>();

async function startOnce(parts: ReturnType<typeof swiftS3Parts>): Promise<S3Server> {
  removeOrphanedDirs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  fs.writeFileSync(path.join(dir, OWNER_FILE), String(process.pid));
  const etc = path.join(dir, 'etc');
  const devices = path.join(dir, 'srv');
  fs.mkdirSync(etc);
  fs.mkdirSync(path.join(devices, 'd1'), { recursive: true });
  const log = await logSink();
  const daemons: Daemon[] = [];
  let stopped = false;
  const killNow = () => {
    for (const d of daemons) killGroup(d.proc);
    log.close();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };
  const handle = { killNow };
  live.add(handle);
  installExitHandlers();

  const logTail = (n = 40) => {
    const outs = daemons.map((d) => {
      const text = fs.existsSync(d.outFile) ? fs.readFileSync(d.outFile, 'utf8').trimEnd() : '';
      const status =
        d.proc.exitCode !== null || d.proc.signalCode !== null
          ? ` (exited: ${d.proc.exitCode ?? d.proc.signalCode})`
          : '';
      return text || status ? `--- ${d.name}${status}\n${tail(text, 15)}` : '';
    });
    return [...outs.filter(Boolean), `--- swift log\n${tail(log.lines.join('\n'), n)}`].join('\n');
  };
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    current = undefined;
    live.delete(handle);
    for (const d of daemons) killGroup(d.proc);
    // SIGKILL is not refused; the bound only guards against a kernel that is slow to reap.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(daemons.map((d) => d.exit)), new Promise((r) => (timer = setTimeout(r, 5000)))]);
    clearTimeout(timer);
    log.close();
    fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  };

  try {
    const [proxyPort, accountPort, containerPort, objectPort, memcachedPort] = await freePorts(5);
    const user = os.userInfo().username;
    const accessKeyId = 'ferry:tester';
    const secretAccessKey = crypto.randomBytes(18).toString('base64url');

    writeRing(path.join(etc, 'account.ring.gz'), accountPort);
    writeRing(path.join(etc, 'container.ring.gz'), containerPort);
    writeRing(path.join(etc, 'object.ring.gz'), objectPort);
    const common = (name: string, port: number) => ({
      bind_ip: '127.0.0.1',
      bind_port: port,
      // A taken port fails the start at once (and is retried with new ports) instead of after 30 s of retries.
      bind_timeout: 2,
      // No pre-forked workers: one process per server, which is all a test needs and keeps the CPU for the tests.
      workers: 0,
      // Swift switches to this user when started as root; the daemons stay whoever runs the tests.
      user,
      swift_dir: etc,
      devices,
      mount_check: 'false',
      // Swift logs to syslog; here it goes to this process over loopback UDP, never to the system's log.
      log_name: name,
      log_udp_host: '127.0.0.1',
      log_udp_port: log.port,
      log_level: 'INFO',
    });
    // The account, container and object servers differ only in their name and port.
    const storageServer = (kind: string, port: number) =>
      ini({
        DEFAULT: common(`${kind}-server`, port),
        'pipeline:main': { pipeline: `${kind}-server` },
        [`app:${kind}-server`]: { use: `egg:swift#${kind}` },
      });
    const confs = {
      account: storageServer('account', accountPort),
      container: storageServer('container', containerPort),
      object: storageServer('object', objectPort),
      proxy: ini({
        DEFAULT: common('proxy-server', proxyPort),
        'pipeline:main': {
          // s3api before the auth (tempauth checks the S3 signature), slo after it (multipart uploads are SLOs).
          pipeline:
            'catch_errors gatekeeper proxy-logging cache listing_formats s3api tempauth copy slo dlo versioned_writes proxy-logging proxy-server',
        },
        'app:proxy-server': { use: 'egg:swift#proxy', account_autocreate: 'true' },
        'filter:catch_errors': { use: 'egg:swift#catch_errors' },
        'filter:gatekeeper': { use: 'egg:swift#gatekeeper' },
        'filter:proxy-logging': { use: 'egg:swift#proxy_logging' },
        'filter:cache': { use: 'egg:swift#memcache', memcache_servers: `127.0.0.1:${memcachedPort}` },
        'filter:listing_formats': { use: 'egg:swift#listing_formats' },
        'filter:s3api': {
          use: 'egg:swift#s3api',
          location: REGION,
          // S3 allows 10,000 parts per upload; Swift's default is 1,000, and its SLO must allow as many segments.
          max_upload_part_num: 10000,
        },
        'filter:tempauth': {
          use: 'egg:swift#tempauth',
          [`user_${accessKeyId.replace(':', '_')}`]: `${secretAccessKey} .admin`,
        },
        'filter:copy': { use: 'egg:swift#copy' },
        'filter:slo': { use: 'egg:swift#slo', max_manifest_segments: 10000 },
        'filter:dlo': { use: 'egg:swift#dlo' },
        'filter:versioned_writes': { use: 'egg:swift#versioned_writes' },
      }),
    };
    for (const [name, text] of Object.entries(confs)) fs.writeFileSync(path.join(etc, `${name}-server.conf`), text);

    const launch = (name: string, port: number, argv: string[]) => {
      const outFile = path.join(dir, `${name}.out`);
      const out = fs.openSync(outFile, 'a');
      // Swift's own Python, whatever Python the tests' environment points at. Without eventlet's green DNS
      // (dnspython, httpx, ...) a server starts on half the CPU time; every address here is a loopback IP anyway.
      const env: NodeJS.ProcessEnv = { ...process.env, EVENTLET_NO_GREENDNS: 'yes' };
      delete env.PYTHONPATH;
      delete env.PYTHONHOME;
      // The daemon gets SIGKILL from the kernel when this process dies, however it dies.
      const cmd = fs.existsSync(SETPRIV) ? [SETPRIV, '--pdeathsig', 'KILL', '--', ...argv] : argv;
      const proc = spawn(cmd[0], cmd.slice(1), { detached: true, stdio: ['ignore', out, out], env, cwd: dir });
      fs.closeSync(out);
      // Never what keeps the test process alive: its exit handler kills the daemons.
      proc.unref();
      const exit = new Promise<void>((resolve) => {
        proc.once('exit', () => resolve());
        proc.once('error', () => resolve());
      });
      daemons.push({ name, port, proc, outFile, exit });
    };
    const asRoot = process.getuid?.() === 0 ? ['-u', user] : [];
    launch('memcached', memcachedPort, [
      parts.memcached,
      '-l',
      '127.0.0.1',
      '-p',
      String(memcachedPort),
      '-U',
      '0',
      '-t',
      '1',
      '-m',
      '64',
      ...asRoot,
    ]);
    launch('account-server', accountPort, [parts.account, path.join(etc, 'account-server.conf')]);
    launch('container-server', containerPort, [parts.container, path.join(etc, 'container-server.conf')]);
    launch('object-server', objectPort, [parts.object, path.join(etc, 'object-server.conf')]);
    launch('proxy-server', proxyPort, [parts.proxy, path.join(etc, 'proxy-server.conf')]);

    const deadline = Date.now() + START_TIMEOUT_MS;
    for (const d of daemons) {
      while (!(await accepts(d.port))) {
        if (d.proc.exitCode !== null || d.proc.signalCode !== null)
          throw new StartFailure(`${d.name} exited before listening on port ${d.port}`);
        if (Date.now() > deadline)
          throw new StartFailure(`${d.name} was not listening on port ${d.port} within ${START_TIMEOUT_MS / 1000} s`);
        await sleep(50);
      }
    }

    const server: S3Server = {
      endpoint: `http://127.0.0.1:${proxyPort}`,
      region: REGION,
      bucket: BUCKET,
      accessKeyId,
      secretAccessKey,
      logTail,
      stop,
    };
    // The first request through the whole chain (auth, memcached, account auto-creation, container server) is the
    // readiness check, and leaves the bucket the tests use.
    const client = s3Client(server, 1);
    try {
      for (;;) {
        try {
          await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
          break;
        } catch (e) {
          if (Date.now() > deadline)
            throw new StartFailure(`creating bucket ${BUCKET} failed: ${(e as Error).message}`);
          await sleep(100);
        }
      }
    } finally {
      client.destroy();
    }
    return server;
  } catch (e) {
    const message = `Swift's S3 server (test/helpers/system/s3.ts) did not start: ${(e as Error).message}\n${logTail()}`;
    live.delete(handle);
    killNow();
    throw e instanceof StartFailure || !(e instanceof Error)
      ? new StartFailure(message)
      : Object.assign(e, { message });
  }
}

const DIR_PREFIX = 'ferry-s3-';
const OWNER_FILE = 'owner.pid';

/**
 * A test process that was killed outright (SIGKILL, OOM) took its daemons with it (pdeathsig) but left its temp
 * dir, which may hold hundreds of MiB of objects: the next start removes the dirs whose owner is gone.
 */
function removeOrphanedDirs(): void {
  for (const name of fs.readdirSync(os.tmpdir())) {
    if (!name.startsWith(DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    try {
      const pid = Number(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'));
      if (pid > 0 && !processExists(pid)) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Not ours to judge: no owner file (yet), or not readable.
    }
  }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(proc: ChildProcess): void {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return;
  try {
    process.kill(-proc.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

let handlersInstalled = false;
function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const killAll = () => {
    for (const s of live) s.killNow();
    live.clear();
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      killAll();
      process.removeListener(signal, onSignal);
      // Die of the signal as if nobody had listened, unless the test process has its own handler.
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}

/**
 * A one-device, one-replica ring (Swift's v1 ring file: "R1NG", version, JSON metadata, then for each replica the
 * device of each partition as uint16). With partition power 0 there is one partition, on device 0. Written here
 * rather than by swift-ring-builder, which takes a Python start-up per call (nine calls, several seconds).
 */
function writeRing(file: string, port: number): void {
  const meta = Buffer.from(
    JSON.stringify({
      byteorder: 'little',
      devs: [{ device: 'd1', id: 0, ip: '127.0.0.1', meta: '', port, region: 1, weight: 1, zone: 1 }],
      part_shift: 32,
      replica_count: 1,
      version: 1,
    }),
    'ascii',
  );
  const head = Buffer.alloc(10);
  head.write('R1NG', 0, 'ascii');
  head.writeUInt16BE(1, 4);
  head.writeUInt32BE(meta.length, 6);
  const partitionToDevice = Buffer.alloc(2); // partition 0 -> device 0
  fs.writeFileSync(file, zlib.gzipSync(Buffer.concat([head, meta, partitionToDevice])));
}

function ini(sections: Record<string, Record<string, string | number>>): string {
  return Object.entries(sections)
    .map(
      ([name, kv]) =>
        `[${name}]\n${Object.entries(kv)
          .map(([k, v]) => `${k} = ${v}`)
          .join('\n')}\n`,
    )
    .join('\n');
}

/** n distinct ports that were free a moment ago (held open together, so that they differ). */
async function freePorts(n: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<net.Server>((resolve, reject) => {
          const s = net.createServer();
          s.once('error', reject);
          s.listen(0, '127.0.0.1', () => resolve(s));
        }),
    ),
  );
  const ports = servers.map((s) => (s.address() as net.AddressInfo).port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000);
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Receives Swift's syslog datagrams on a loopback port and keeps the last lines. */
function logSink(): Promise<{ port: number; lines: string[]; close(): void }> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket('udp4');
    const lines: string[] = [];
    let closed = false;
    socket.on('message', (msg) => {
      lines.push(
        msg
          .toString('utf8')
          .replace(/^<\d+>/, '')
          .trimEnd(),
      );
      if (lines.length > 500) lines.splice(0, lines.length - 400);
    });
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      socket.unref();
      resolve({
        port: socket.address().port,
        lines,
        close: () => {
          if (!closed) socket.close();
          closed = true;
        },
      });
    });
  });
}

function tail(text: string, n: number): string {
  return text.split('\n').slice(-n).join('\n');
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
